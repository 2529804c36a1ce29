// Command operator is armature's operator with the generated tier
// (docs/tiers.md): every kind of the curated tier (generated/apis) and of
// tier/apis, each served once its CRD is installed. The tier is not
// committed: `make crds` generates tier/apis and tier/providers from the
// pinned corpus first; then, in tier/,
//
//	go build ./cmd/operator
//
// or `make crds && docker build --build-arg TIER=generated .` for the
// image. The flags are cmd/operator's (operator.Main); the plan and import
// subcommands of cmd/operator are not part of this build.
package main
