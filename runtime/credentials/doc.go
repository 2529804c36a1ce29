// Package credentials binds an object to the ARM client and subscription
// it is reconciled with: the credential Secret of its namespace (or the
// one its armature.dev/credential annotation names, in the same
// namespace), else the operator's default identity where an administrator
// opted the namespace in. A Secret of another namespace is never read.
//
// The reconciler and the Action controller share one Credentials; the
// names of the Secret, its keys and the condition reasons are api/core's.
package credentials
