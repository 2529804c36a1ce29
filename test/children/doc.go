// Package children holds the envtest suites of resources related to other
// resources beyond plain ownership: embedded children (a parent whose body
// also holds its child resources, such as a virtual network's subnets,
// docs/embedded.md) and extension resources (a role assignment owned by
// any resource, through spec.owner group, kind and name, or an ARM id).
//
// The suites run the operator (every reconciler, real kube-apiserver and
// etcd through envtest) against the ARM emulator over loopback, with the
// generated kinds and the kinds of the generator's golden case
// generator/testdata/embedded (Microsoft.Fabrikam nets, subnets, rules and
// the extension kind Grant). The tests against the generated
// Microsoft.Network and Microsoft.Authorization kinds skip, saying so, when
// those kinds are not generated.
package children
