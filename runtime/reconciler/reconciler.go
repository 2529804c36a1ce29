package reconciler

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reconciler makes one kind's Azure resources match their custom resources.
type Reconciler struct {
	// Client reads and writes custom resources.
	Client client.Client
	// ARM talks to Azure with the default credential.
	ARM arm.Client
	// Credentials, when set, picks each object's credential (a credential
	// Secret of its namespace, or the default). Nil: ARM and
	// Config.SubscriptionID for every object.
	Credentials *credentials.Credentials
	// Desc describes the kind.
	Desc *descriptor.Descriptor
	// OwnerVersion is the served version of the owner kind, when the owner
	// is generated.
	OwnerVersion string
	// Secrets reads the Secrets a spec references. Defaults to Client;
	// SetupAll gives every reconciler one SecretReader (metadata watched,
	// data read when it changes).
	Secrets client.Reader
	// APIReader reads from the apiserver, not the cache: before a write to
	// ARM the reconciler checks that its cached copy is not stale (a stale
	// copy without the last operation would send it twice).
	APIReader client.Reader
	// Recorder records events.
	Recorder record.EventRecorder
	// Config holds the settings; Default() is applied by New.
	Config Config
	// Hooks customise the kind (SetupAll: WithHooks).
	Hooks Hooks

	// versions are the reconcilers of the kind's other served versions
	// (set on the storage version's reconciler by SetupAll): an object the
	// user writes in another version is reconciled in that version.
	versions map[string]*Reconciler

	// mem is what this process remembers of each object between
	// reconciles (memory.go). The reconcilers of a kind's versions share
	// it.
	mem *memory
	// started is when the reconciler was built: an object created after it
	// was written by no earlier operator (see stale).
	started time.Time
	// lists are the kind's list operations, parsed: a settled object of a
	// listable collection is observed by the drift observer's LIST, not by
	// its own GET.
	lists []descriptor.Template
	// providers remembers provider registrations asked for (shared by the
	// kinds SetupAll builds).
	providers *registrations
	// kinds are the storage versions of the kinds served now (Serving),
	// shared: an extension kind's owner can be any of them, and nothing
	// lists or watches a kind that is not served. Nil (a reconciler built
	// alone): no other kind.
	kinds *kindSet
	// seal binds the records the reconciler reads back to their objects
	// (Config.StateKey).
	seal sealer
	// claimKind is the kind whose informer holds the claim index (the
	// storage version's; zero before SetupWithManager): a create first
	// checks that no other object claims its ARM id.
	claimKind schema.GroupVersionKind
	// referring are the kinds (storage versions) whose objects may
	// reference others: a deletion waits for their referrers.
	referring []schema.GroupVersionKind
	// children are the kinds (storage versions) this kind owns: deleted
	// together, an owner waits for its children.
	childKinds []schema.GroupVersionKind
	// extensionKinds are the extension kinds (role assignments, locks):
	// any object may own one, by spec.owner group, kind and name.
	extensionKinds []schema.GroupVersionKind
	// tracker: the valuesFrom sources of the kind's objects are tracked
	// (sources.go); nil on the reconcilers of versions other than the
	// storage one.
	tracker *sourceTracker
}

// New returns a reconciler for one kind.
func New(c client.Client, armClient arm.Client, d *descriptor.Descriptor, ownerVersion string, rec record.EventRecorder, cfg Config) *Reconciler {
	r := &Reconciler{Client: c, ARM: armClient, Desc: d, OwnerVersion: ownerVersion, Recorder: rec, Config: cfg.Default(), mem: newMemory(), providers: &registrations{}, started: time.Now()}
	r.seal = newSealer(r.Config.StateKey)
	registerSecretPaths(d)
	registerRefPaths(d)
	if _, ok := armClient.(arm.Lister); ok && !r.Config.DriftByGET {
		for _, p := range d.ListPaths {
			r.lists = append(r.lists, descriptor.ParseTemplate(p))
		}
	}
	return r
}

// hasLists reports whether the kind, in any of its versions, is watched by
// a drift observer.
func (r *Reconciler) hasLists() bool {
	if len(r.lists) > 0 {
		return true
	}
	for _, v := range r.versions {
		if len(v.lists) > 0 {
			return true
		}
	}
	return false
}

// listed reports whether the resource with ARM id id is observed by the
// drift observer's LIST of its collection.
func (r *Reconciler) listed(id string) bool {
	if id == "" || len(r.lists) == 0 {
		return false
	}
	coll := collectionOf(id)
	for _, t := range r.lists {
		if m, ok := t.Match(coll); ok && !m.Collection {
			return true
		}
	}
	return false
}

func (r *Reconciler) gvk() schema.GroupVersionKind { return r.Desc.GroupVersionKind() }

func (r *Reconciler) ownerGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Desc.OwnerGroup, Version: r.OwnerVersion, Kind: r.Desc.OwnerKind}
}

// startSkew is how much later than the reconciler's start an object's
// creation (the apiserver's clock) must be for bornHere.
const startSkew = 2 * time.Second

// bornHere reports whether obj was created after this reconciler started:
// then every reconciler write to it is this process's, which written
// records, and the stale check needs no read. (An operator before this one
// stopped before it started: its writes are in the cache's first list. Two
// operators serving one object at once are a misconfiguration that no check
// before a write makes safe.)
func (r *Reconciler) bornHere(obj *unstructured.Unstructured) bool {
	return !r.started.IsZero() && obj.GetCreationTimestamp().Time.After(r.started.Add(startSkew))
}

// behind reports, without a read, whether the cached obj is older than
// this reconciler's last write to it.
func (r *Reconciler) behind(obj *unstructured.Unstructured) bool {
	behind, _ := r.ownWrite(obj)
	return behind
}

// ownWrite compares the cached obj with this reconciler's last write to it;
// known is false when it wrote none (or the resourceVersion does not parse).
func (r *Reconciler) ownWrite(obj *unstructured.Unstructured) (behind, known bool) {
	v, ok := r.mem.lastWritten(obj.GetUID())
	if !ok {
		return false, false
	}
	cur, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return false, false
	}
	return cur < v, true
}

var _ reconcile.Reconciler = (*Reconciler)(nil)
