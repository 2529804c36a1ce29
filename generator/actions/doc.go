// Package actions flattens the schemas of ARM POST actions (regenerateKey,
// restart, failover, listKeys…) into the data-only field tables of
// runtime/descriptor, which the webhook validates Action parameters with and
// the ARM emulator synthesises responses from.
//
// # Field tables
//
// A body schema becomes a list of descriptor.Field: the root first (path
// ""), then every value below it sorted by path, with `[*]` for array items
// and `.*` for map values. A field carries its JSON type, format, closed
// enum, whether its parent requires it, readOnly, and whether it is a
// secret. allOf parents are merged and discriminated subtypes contribute
// their properties (never required), as in generator/load. A schema met
// again below itself, and an object that lists no members (free-form), is
// Open: any value is accepted below it.
//
// # Secrets
//
// A field is secret when the swagger says so (x-ms-secret: true, format
// password). Action responses rarely say so: the corpus's listKeys,
// regenerateKey, ListAccountSas and regeneratePassword return keys, tokens
// and passwords as plain readOnly strings. So a string field of a response
// is also secret when its name is key-like: it ends in key, password,
// token, secret or sasUri, contains connectionString, or is `value` below
// a member whose name contains key (storage's keys[*].value); and a string
// field whose name ends in Uri is secret when the action takes a query
// parameter about SAS (retrieveBootDiagnosticsData returns SAS URIs). Marking a
// value secret only routes it to a Kubernetes Secret instead of status, so
// the rule errs on that side (an SSH public key is stored as a secret too).
package actions
