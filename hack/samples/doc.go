// Command samples is `make samples`: it starts a sandbox (kube-apiserver
// and etcd, the ARM emulator and the operator, as hack/sandbox does, with
// hack/internal/stack), applies every sample of the generated kinds in
// config/samples to namespace default (the operator's own identity), waits
// until every custom resource is Ready or nothing has changed for a while,
// and prints
//
//	samples Ready: N/M
//
// then, for each custom resource that is not Ready, its kind, name,
// reason and message (a sample refused at admission has reason
// AdmissionRefused and the apiserver's message). It exits 1 when N/M is
// below -min (docs/samples.md says why the default is what it is), 2 on
// any other failure.
//
// The files are applied in name order, the documents of a file in their
// order (a Secret and an owner before what needs it). Objects that are no
// custom resource of a generated kind (Secrets) are created but not
// counted. The samples of the extra CRDs (actions.azure.armature.dev_…:
// Actions against a StorageAccount of namespace team-a) are left out: they
// are examples of another API, not of a generated kind.
//
// The operator, kube-apiserver and etcd log to files in -logs (default: a
// temporary folder, removed at the end unless a sample is not Ready).
package main
