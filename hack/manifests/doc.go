// Command manifests renders the generated parts of config/, the kustomize
// deployment of the operator (package hack/manifests/render holds the
// rules):
//
//	go run ./hack/manifests                      # config/ for every kind (make manifests)
//	go run ./hack/manifests -check               # fail when config/ is stale (make verify)
//	go run ./hack/manifests -kinds 'storage.*/*,resources.*/*' -out /tmp/my-config
//
// -kinds takes the operator's --kinds syntax (comma-separated path.Match
// patterns over "<group>/<Kind>") and renders a complete config/ variant
// (CRDs, RBAC, webhook rules, samples and ARMATURE_KINDS for those kinds
// only, plus copies of the hand-written files) into -out. Run it from the
// repository root.
package main
