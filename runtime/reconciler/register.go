package reconciler

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

// registerAgain is how long a registration request stands before the
// operator sends another for the same credential, subscription and
// namespace (ARM takes minutes to register a provider).
const registerAgain = 10 * time.Minute

// registrations remembers the provider registrations the operator asked
// for, shared by the reconcilers of every kind.
type registrations struct{ m sync.Map } // credential|subscription/namespace → time.Time

// registerProvider asks ARM to register the object's subscription with the
// resource provider of its id (Config.RegisterProviders), once per
// registerAgain, without waiting for it. It returns the condition message
// and whether the user must still act (the request failed).
func (r *Reconciler) registerProvider(ctx context.Context, st *state, msg string) (string, bool) {
	sub, ns := arm.ProviderOf(st.id)
	if sub == "" || ns == "" || st.arm.Client == nil {
		return msg, true
	}
	asked := fmt.Sprintf("%s The operator asked Azure to register subscription %s with %s (--register-providers) and retries.", msg, sub, ns)
	key := st.arm.Name + "|" + strings.ToLower(sub+"/"+ns)
	if v, ok := r.providers.m.Load(key); ok && time.Since(v.(time.Time)) < registerAgain {
		return asked, false
	}
	if err := arm.RegisterProvider(ctx, st.arm.Client, sub, ns); err != nil {
		return fmt.Sprintf("%s The operator could not register %s: %v", msg, ns, err), true
	}
	r.providers.m.Store(key, time.Now())
	r.event(st, corev1.EventTypeNormal, core.EventRegisteringProvider, fmt.Sprintf("POST /subscriptions/%s/providers/%s/register", sub, ns))
	return asked, false
}
