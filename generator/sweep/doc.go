// Package sweep runs the whole generator over a tree of ARM swagger, one
// provider folder at a time, and measures how much of it armature covers:
// `armature sweep` and `make sweep` (docs/sweep.md, docs/coverage.md).
//
// # Folders
//
// Discover finds every `specification/…/resource-manager/<Namespace>[/<sub>]/stable/<version>`
// below the spec root and keeps the newest api-version of each provider
// folder (all of them with Options.AllVersions). The swagger documents
// directly in the folder are the input; documents they reference (common
// types, sub-folders) are read through them. Preview and data-plane folders
// are not swept.
//
// # Per folder
//
// A worker (Options.Jobs of them) takes one folder at a time through
// generator.Generate — load, tree, classify, model, emit with
// controller-tools — into its own folder of one temporary Go module, then
// checks every x-ms-examples PUT body against the CRDs it wrote with the
// offline validator (generator.CheckExamples). The worker keeps only the
// Record: the analysis, the model and the validators are dropped before it
// takes the next folder, so memory is bounded by the Jobs largest folders.
// A panic is recovered and becomes the folder's problem, located at the
// first frame outside the Go runtime; the sweep goes on.
//
// # References
//
// Every record counts the fields of its kinds' specs that hold an ARM
// resource id, by the rule that found them (generator/refs, with no
// references entries): Record.References, summed in Summary.References and
// written to docs/coverage.md. A problem of the detection is a problem of
// the folder (stage references).
//
// # The temporary module and the build
//
// The generated packages import the armature module (runtime/descriptor…).
// The temporary module requires it with `replace github.com/armature-dev/armature => <root>`,
// and copies its go.mod requirements and go.sum so the dependency versions
// are the same; ModuleRoot finds <root> (flag, working directory, the
// source path recorded in the binary, the module cache). After every folder
// is done, one `go build ./...` compiles all the generated packages; each
// compile error is attributed to its folder by the package path and becomes
// a problem there.
//
// # A lasting module: the generated tier
//
// With Options.Module the folders are generated into that module instead
// (tier/, module github.com/armature-dev/armature/tier), each into
// providers/<folder> (FolderDir), and nothing is removed: `armature tier`
// (make crds) keeps the output as the generated tier. WriteModule writes
// its go.mod from armature's with `replace … => ../`; Options.BeforeBuild
// writes what must compile with the folders (the tier's registry, package
// generator/sweep/tier); Options.Optimise builds with the go command's
// default flags so that a later build of the tier's operator finds the
// packages in the build cache. A compile error in no folder's code (the
// registry) is the summary's BuildError.
//
// # Tiers and evidence
//
// With Options.Curated (ReadCurated: the curated tier's descriptors, read
// as Go source from generated/apis, never imported), every kind of the
// records is placed (AssignTiers): curated when the curated tier has its
// API group and kind, else generated — one per group and kind, the newest
// api-version winning —, else none; ARM types served by two kinds are
// noted. Its evidence is the strongest of recorded real traffic
// (RecordedTypes over the cassettes), examples accepted, compiled. Both go
// to docs/coverage.md.
//
// # Clean
//
// A folder is clean when it has no Problem and every path that did not
// become a kind was skipped with a category: one of tree.SkipCategories, or
// CategoryFailed for a resource whose failure is already one of the
// folder's problems. The closed list is documented in package tree and
// docs/sweep.md. Rejected examples do not make a folder unclean; they are
// the second ratio.
//
// # Causes
//
// A Problem keeps the generator's message and its location (file.json#/pointer
// for the swagger, file:line for the build) and adds a cause: the message
// with names, quoted values, locations and numbers replaced by
// placeholders, so that one generator fault met in fifty providers is one
// line of the scoreboard.
package sweep
