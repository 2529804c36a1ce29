// Command sandbox is what `make sandbox` runs: a local armature
// installation for trying manifests, and for CI without an Azure
// subscription (docs/sandbox.md).
//
// It starts kube-apiserver and etcd (envtest, with the binaries
// hack/setup-envtest.sh builds), installs every shipped CRD and the
// webhook configurations, starts the ARM emulator (with its Azure AD) and
// the operator with its admission and conversion webhooks, writes a
// kubeconfig, and prints exactly two lines on standard output once all of
// it serves:
//
//	KUBECONFIG=<absolute path>
//	ARM=<the emulator's URL>
//
// Progress goes to standard error; the operator, kube-apiserver and etcd
// log to files in the sandbox folder. It then runs until SIGINT, SIGTERM
// or SIGHUP and stops everything it started.
//
// # The folder
//
// SANDBOX_DIR, default ./.sandbox (git ignores it). It holds kubeconfig,
// arm-ca.pem (the emulator's CA), operator.log, kube-apiserver.log,
// etcd.log and, while running, tmp/ (etcd's data and the certificates:
// TMPDIR points there, so envtest's folders are made in it). One sandbox
// per folder: a lock (.lock) refuses a second. A start removes tmp/ and
// stops a kube-apiserver or etcd left running there by a sandbox that was
// killed (SIGKILL gives no chance to stop them); a stop removes tmp/,
// kubeconfig and arm-ca.pem and keeps the logs.
//
// # Tenancy
//
// As in production, the operator's own identity (subscription
// 00000000-0000-0000-0000-000000000000) serves only the namespaces opted
// in: here `default` alone. Any other namespace needs a credential Secret
// armature-credential; the emulator's Azure AD knows the application
// tenantId "sandbox", clientId "sandbox-team", clientSecret
// "sandbox-secret", allowed subscription
// 11111111-1111-1111-1111-111111111111 only.
package main
