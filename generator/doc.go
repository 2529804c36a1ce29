// Package generator runs the stages — load, tree, classify, model, emit —
// over a set of swagger files. cmd/armature only parses flags and calls it.
//
// # Errors
//
// A file that cannot be read or parsed stops the run: there is nothing to
// generate from. A problem inside one resource (a dangling $ref, an
// unsupported construct) skips that resource, is reported with its file and
// JSON pointer, and makes the run fail at the end, after everything else has
// been analysed, so one run shows every problem.
//
// # Config
//
// With Options.Config (specs/armature.yaml), include and exclude choose the
// resource types and overrides correct them (see generator/override). An
// include, exclude or override entry that matches nothing, or an override
// that cannot apply, is an error of the config (*config.Error) in
// Analysis.Errors; Generate writes nothing while there is one, because the
// output would silently differ from what the file says.
package generator
