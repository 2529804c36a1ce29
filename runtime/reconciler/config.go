package reconciler

import "time"

// Config holds the operator's settings, with their defaults in one place.
type Config struct {
	// SyncPeriod is how often a resource is read back from ARM to detect
	// drift. Defaults to 15 minutes; a resource may set its own with the
	// armature.dev/sync-period annotation.
	SyncPeriod time.Duration
	// Jitter spreads resyncs by up to this share of the period. Defaults to 0.1.
	Jitter float64
	// WorkersPerKind is the number of concurrent reconciles per kind.
	// Defaults to 4.
	WorkersPerKind int
	// SubscriptionID is the subscription of resources owned by the
	// subscription (resource groups). Required for those kinds.
	SubscriptionID string
	// PollInterval is the wait between polls of an operation when ARM gives
	// no Retry-After. Defaults to 2 seconds.
	PollInterval time.Duration
	// DriftByGET observes every resource with its own GET each sync period
	// instead of the drift observer's one LIST per collection (see
	// observer.go). Defaults to false: types that can be listed are.
	DriftByGET bool
	// FirstObservation is the delay of the drift observer's first pass
	// after the operator starts (what changed while none ran). Defaults to
	// 10 seconds.
	FirstObservation time.Duration
	// ReconcileTimeout is the deadline of one reconcile (ARM calls never
	// wait for a long-running operation, so a reconcile is a few requests).
	// Defaults to 2 minutes.
	ReconcileTimeout time.Duration
	// PreferredVersions names, per API group (storage.azure.armature.dev),
	// the version to reconcile a kind in when neither the object's
	// armature.dev/api-version annotation nor its managedFields say which
	// version its spec was written in. Defaults to the storage version.
	PreferredVersions map[string]string
}

// Default returns the config with every unset field defaulted.
func (c Config) Default() Config {
	if c.SyncPeriod <= 0 {
		c.SyncPeriod = 15 * time.Minute
	}
	if c.Jitter <= 0 {
		c.Jitter = 0.1
	}
	if c.WorkersPerKind <= 0 {
		c.WorkersPerKind = 4
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 2 * time.Second
	}
	if c.FirstObservation <= 0 {
		c.FirstObservation = 10 * time.Second
	}
	if c.ReconcileTimeout <= 0 {
		c.ReconcileTimeout = 2 * time.Minute
	}
	return c
}
