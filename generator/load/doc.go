// Package load reads ARM Swagger 2.0 documents and resolves `$ref`s across
// files, keeping the origin of every schema.
//
// # Documents
//
// A Loader reads each file once (go-openapi/loads for the bytes,
// go-openapi/spec for the model) and caches it by its path relative to the
// spec root. Files reached through a cross-file `$ref` are loaded on demand,
// so reference cycles between files (Compute's computeRPCommon.json and
// virtualMachine.json refer to each other) are loaded once and never loop.
//
// # Origins
//
// Every resolved schema is a Schema: the go-openapi schema, never modified,
// plus its Origin — the file and JSON pointer it was read from, such as
// `storage.json#/definitions/Sku/properties/name`. Errors carry an Origin so
// that a bad swagger is reported by file and pointer.
//
// # Flattening
//
// Properties returns the properties of an object schema with `allOf`
// parents merged in (the child wins), `$ref`s followed, and, for a base type
// that declares a `discriminator`, the properties of every subtype that names
// it in `allOf` with an `x-ms-discriminator-value`. The result is memoised per
// origin. Walkers above this package cut recursion by carrying the stack of
// origins they are inside.
package load
