package reconciler

import (
	"github.com/armature-dev/armature/runtime/credentials"
)

// The credentials of objects live in runtime/credentials; these names stay
// until the operator composition uses that package.
type (
	// Credentials is credentials.Credentials.
	Credentials = credentials.Credentials
	// Binding is credentials.Binding.
	Binding = credentials.Binding
	// NewClientFunc is credentials.NewClientFunc.
	NewClientFunc = credentials.NewClientFunc
)

// NewCredentials is credentials.New.
var NewCredentials = credentials.New

// WithDefaultNamespaces is credentials.WithDefaultNamespaces.
var WithDefaultNamespaces = credentials.WithDefaultNamespaces

// credentialError turns a credential's problem into the reconciler's own
// errors: terminal, or retried slowly.
func credentialError(err error) error {
	p, ok := credentials.AsProblem(err)
	switch {
	case !ok:
		return err
	case p.Terminal:
		return terminal(p.Reason, p.Message)
	}
	return waitWorld(p.Reason, p.Message)
}
