// Package conversion converts generated custom resources between the
// versions a kind is served in (one per ARM api-version named in
// specs/armature.yaml), and serves that as the CRD conversion webhook
// (ConversionReview v1 at Path).
//
// spec and status are ARM-shaped JSON in every version, so conversion is
// generic and needs no generated code: a property path present in both
// versions' Descriptors keeps its value; a property the target version
// does not have is moved into the annotation AnnotationPreserved (its
// path and value) and put back when the object is converted to a version
// that has it again. A round trip old → new → old, or new → old → new, is
// therefore lossless, also across a write made in the other version.
//
// What it does not do: rename or retype properties (the API change report
// of `armature diff` flags those as breaking), or check enum values a
// version lacks (a value only the newer version allows is kept as is).
package conversion
