// Package emit is the generator's last stage: it writes a model
// (generator/model) as Go packages, deepcopy functions, CRD YAML and
// per-group docs under an output folder (generated/).
//
// # Go
//
// Types, kubebuilder markers and one Descriptor value per kind
// (runtime/descriptor: the property-class table, secret paths, name
// rules, verbs, LRO behaviour) are written with dave/jennifer; every file
// starts with Header, and definitions are sorted so that the same model
// gives byte-identical files (golang.go, descriptor.go).
//
// # controller-tools
//
// deepcopy and CRD YAML come from controller-tools used as a library on the
// written packages (tools.go). A CRD larger than MaxCRDBytes, the limit of
// client-side apply's annotation, is written with shorter descriptions
// (Options.Descriptions), else reported as a CRDError while the rest is
// written (crdsize.go).
//
// # Ownership
//
// Emit owns apis/, crds/ and docs/ below OutDir: files there that it did
// not write are removed, and a file whose content is unchanged is not
// rewritten (Result counts both), so `make verify` sees only real changes.
package emit
