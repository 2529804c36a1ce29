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
	// subscription (resource groups) reconciled with the default
	// credential; a credential Secret names its own. Required for those
	// kinds.
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
	// RetryBackoff is the requeue after a transient ARM error (class retry
	// of runtime/arm's error table: 429, 5xx, an operation in progress,
	// read-after-write lag, a parent not there yet), once azcore's own
	// retries are spent. It
	// doubles per consecutive failure; a longer Retry-After is honoured.
	// Defaults to 1s up to 5m.
	RetryBackoff Backoff
	// WorldBackoff is the requeue after an error only a change outside the
	// object cures (class world-change: a role assignment, a provider
	// registration, a credential). Defaults to 1m up to 30m.
	WorldBackoff Backoff
	// NameTakenBackoff is the requeue after a name Azure gives another
	// resource (class name-taken). Defaults to 5m up to 1h.
	NameTakenBackoff Backoff
	// ReadAfterWrite is how long after ARM accepted a write a 404 on GET
	// is ARM's read-after-write lag (retried) rather than a deletion
	// outside the operator (recreated). Defaults to 1 minute.
	ReadAfterWrite time.Duration
	// RegisterProviders registers the subscription with a resource
	// provider when ARM answers MissingSubscriptionRegistration (POST
	// /subscriptions/{id}/providers/{namespace}/register, as the portal
	// does), then retries. Defaults to false: the condition says how to
	// register.
	RegisterProviders bool
	// StateKey is the key of the HMACs that bind the records the
	// reconciler reads back from an object (the operation in flight, the
	// ARM id it created) to that object (seal.go). Operators that serve the
	// same objects, one after the other, need the same key. Defaults to a
	// random key of the process: an earlier process's records are then
	// refused (an operation is re-observed by GET; a resource created by
	// it without a recorded write is AzureResourceExists).
	StateKey []byte
	// MaxWritesPerGeneration is how many writes to ARM one generation of
	// an object may make without the object becoming Ready; past it the
	// object is Ready=False, reason WriteLoop, ActionRequired, and nothing
	// more is sent until the spec changes. Defaults to 5.
	MaxWritesPerGeneration int
}

// Backoff is a wait that doubles with each consecutive failure.
type Backoff struct {
	// Initial is the first wait.
	Initial time.Duration
	// Max caps the wait.
	Max time.Duration
}

// After is the wait after the n-th consecutive failure (n ≥ 1).
func (b Backoff) After(n int) time.Duration {
	d := b.Initial
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

func (b Backoff) orDefault(initial, maxWait time.Duration) Backoff {
	if b.Initial <= 0 {
		b.Initial = initial
	}
	if b.Max <= 0 {
		b.Max = max(maxWait, b.Initial)
	}
	return b
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
	c.RetryBackoff = c.RetryBackoff.orDefault(time.Second, 5*time.Minute)
	c.WorldBackoff = c.WorldBackoff.orDefault(time.Minute, 30*time.Minute)
	c.NameTakenBackoff = c.NameTakenBackoff.orDefault(5*time.Minute, time.Hour)
	if c.ReadAfterWrite <= 0 {
		c.ReadAfterWrite = time.Minute
	}
	if c.MaxWritesPerGeneration <= 0 {
		c.MaxWritesPerGeneration = 5
	}
	return c
}
