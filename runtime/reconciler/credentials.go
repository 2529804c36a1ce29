package reconciler

import (
	"github.com/armature-dev/armature/runtime/credentials"
)

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
