// Package specroot tests hack/sync-specs.sh, which builds the spec root
// specs/azure-rest-api-specs: run on a copy of the script in a temporary
// repository layout, never on the repository's own spec root.
package specroot
