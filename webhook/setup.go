package webhook

import (
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/armature-dev/armature/runtime/action"
)

// The paths the handlers are served at, and that the generated webhook
// configurations call.
const (
	// ValidatePath is where the validating handler is served.
	ValidatePath = "/validate-armature"
	// DefaultPath is where the defaulting handler is served.
	DefaultPath = "/default-armature"
)

// errNoManager is returned by Setup without a manager.
var errNoManager = errors.New("webhook.Setup: nil manager")

// Setup serves reg's two handlers on the manager's webhook server, at
// ValidatePath and DefaultPath, and the Action handler for reg's kinds at
// ActionValidatePath. A nil reg serves DefaultRegistry. The
// server starts with the manager and serves the certificate in its CertDir
// (see WriteCertDir for a self-signed one).
func Setup(mgr manager.Manager, reg *Registry) error {
	if mgr == nil {
		return errNoManager
	}
	if reg == nil {
		reg = defaultRegistry
	}
	srv := mgr.GetWebhookServer()
	srv.Register(ValidatePath, &admission.Webhook{Handler: reg.ValidatingHandler()})
	srv.Register(DefaultPath, &admission.Webhook{Handler: reg.DefaultingHandler()})
	srv.Register(ActionValidatePath, &admission.Webhook{Handler: ActionValidatingHandler(action.NewRegistry(reg.Descriptors()))})
	return nil
}
