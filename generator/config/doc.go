// Package config reads specs/armature.yaml, the file that says what the
// generator generates: which swagger files, which API group domain, where the
// output goes, and which resource types to leave out (each with a reason).
//
// # Spec root
//
// Swagger files are named relative to the spec root. It is, in order: the
// --spec-root flag, the ARMATURE_SPECS environment variable, specRoot in the
// file (relative to the file's folder's parent, i.e. the repository), and
// specs/azure-rest-api-specs.
package config
