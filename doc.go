// Package armature is the root of the armature module: `go generate ./...`
// here regenerates generated/ from specs/armature.yaml.
package armature
