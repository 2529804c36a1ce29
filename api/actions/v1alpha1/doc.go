// Package v1alpha1 holds the Action kind of actions.azure.armature.dev: a
// one-shot request to run an ARM POST action (regenerateKey, restart,
// failover, listKeys…) on a resource, reviewed and audited like any other
// change, with its outcome kept in status and its secret results in a
// Secret.
//
// The types are hand-written; zz_generated.deepcopy.go and ../crd.yaml are
// produced from them by controller-tools (go test ./api/actions/ -update).
// +kubebuilder:object:generate=true
// +groupName=actions.azure.armature.dev
package v1alpha1
