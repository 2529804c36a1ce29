// Package descriptor defines Descriptor, the generated data that tells the
// generic reconciler, the webhook and the ARM emulator everything they need
// about one kind: its ARM type and api-version, where it lives, which verbs
// it has, the class of every property, and the swagger's rules for its
// name. CheckSegment, CheckID and Descriptor.CheckName say which names and
// ids a user gives can never be put into an ARM id (names.go).
//
// Generated packages declare one Descriptor per kind and return them from
// their Descriptors function; nothing in this package is generated.
package descriptor
