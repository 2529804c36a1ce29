package reconciler

import (
	"sync"
	"time"
)

// registerAgain is how long a registration request stands before the
// operator sends another for the same credential, subscription and
// namespace (ARM takes minutes to register a provider).
const registerAgain = 10 * time.Minute

// registrations remembers the provider registrations the operator asked
// for, shared by the reconcilers of every kind.
type registrations struct{ m sync.Map } // credential|subscription/namespace → time.Time
