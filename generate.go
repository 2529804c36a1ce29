package armature

//go:generate go run ./cmd/armature generate --config specs/armature.yaml
