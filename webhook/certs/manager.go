package certs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// ReadyzName is the name of the readiness check SetupWithManager adds.
const ReadyzName = "webhook-cert"

// controllerName names the leader's controller (and its log).
const controllerName = "webhook-certs"

// errNotServing is GetCertificate's and Ready's answer before a
// certificate was read from the Secret.
var errNotServing = errors.New("no serving certificate yet")

// Manager manages the webhook serving certificate in a Secret: the leader
// issues, injects and rotates (Reconcile), every replica serves it
// (GetCertificate). Build it with New, give ConfigureTLS to the webhook
// server, then call SetupWithManager.
type Manager struct {
	opts   Options
	key    types.NamespacedName
	log    logr.Logger
	cache  cache.Cache
	reader client.Reader
	client client.Client
	// serving is the certificate every replica serves.
	serving atomic.Pointer[tls.Certificate]
}

var _ reconcile.Reconciler = (*Manager)(nil)

// New checks o and fills its defaults.
func New(o Options) (*Manager, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Manager{
		opts: o,
		key:  types.NamespacedName{Namespace: o.Namespace, Name: o.SecretName},
		log:  ctrllog.Log.WithName(controllerName),
	}, nil
}

// Namespace is the operator's namespace (Options.Namespace or its default).
func (m *Manager) Namespace() string { return m.opts.Namespace }

// ConfigureTLS makes a webhook server serve the certificate from the
// Secret (controller-runtime webhook.Options.TLSOpts): the server then
// reads no certificate files. It also sets the project's TLS floor
// (HardenTLS).
func (m *Manager) ConfigureTLS(c *tls.Config) {
	HardenTLS(c)
	c.GetCertificate = m.GetCertificate
}

// GetCertificate returns the certificate read from the Secret last.
func (m *Manager) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := m.serving.Load(); c != nil {
		return c, nil
	}
	return nil, errNotServing
}

// Ready is the readiness check: nil once a certificate valid now was read
// from the Secret.
func (m *Manager) Ready(*http.Request) error {
	c := m.serving.Load()
	if c == nil {
		return fmt.Errorf("%w: waiting for the leader to write Secret %s", errNotServing, m.key)
	}
	if now := m.opts.now(); now.After(c.Leaf.NotAfter) {
		return fmt.Errorf("the serving certificate in Secret %s expired at %s", m.key, c.Leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	return nil
}

// SetupWithManager adds to mgr: a cache of the Secret, the webhook
// configurations and the labelled CRDs' metadata (started on every
// replica), the Secret's handler that every replica serves from, the
// leader's controller, and the readiness check ReadyzName. mgr's scheme
// must know core/v1.
func (m *Manager) SetupWithManager(mgr manager.Manager) error {
	byName := func(name string) fields.Selector { return fields.OneTermEqualSelector("metadata.name", name) }
	byObject := map[client.Object]cache.ByObject{
		&corev1.Secret{}:          {Namespaces: map[string]cache.Config{m.key.Namespace: {}}, Field: byName(m.key.Name)},
		metadataOf(validatingGVK): {Field: byName(m.opts.ValidatingConfiguration)},
		metadataOf(mutatingGVK):   {Field: byName(m.opts.MutatingConfiguration)},
		metadataOf(crdGVK):        {Label: conversionSelector()},
	}
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		Scheme:           mgr.GetScheme(),
		Mapper:           mgr.GetRESTMapper(),
		ByObject:         byObject,
		DefaultTransform: cache.TransformStripManagedFields(),
	})
	if err != nil {
		return fmt.Errorf("webhook certificates: cache: %w", err)
	}
	m.cache, m.reader, m.client = c, mgr.GetAPIReader(), mgr.GetClient()
	if err := mgr.Add(cacheRunnable{c}); err != nil {
		return err
	}
	inf, err := c.GetInformer(context.Background(), &corev1.Secret{})
	if err != nil {
		return fmt.Errorf("webhook certificates: Secret informer: %w", err)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.load(obj) },
		UpdateFunc: func(_, obj any) { m.load(obj) },
	}); err != nil {
		return err
	}
	ctl, err := controller.New(controllerName, mgr, controller.Options{Reconciler: m, MaxConcurrentReconciles: 1})
	if err != nil {
		return err
	}
	one := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: m.key}}
	})
	for obj := range byObject {
		if err := ctl.Watch(source.Kind(c, obj, one)); err != nil {
			return err
		}
	}
	return mgr.AddReadyzCheck(ReadyzName, m.Ready)
}

// metadataOf is an object of gvk watched by metadata only.
func metadataOf(gvk schema.GroupVersionKind) client.Object {
	o := &metav1.PartialObjectMetadata{}
	o.SetGroupVersionKind(gvk)
	return o
}

// cacheRunnable starts the cache with the manager's caches, on every
// replica and before the leader's controllers (a bare cache.Cache would be
// started as a leader-only runnable).
type cacheRunnable struct{ cache.Cache }

func (c cacheRunnable) GetCache() cache.Cache { return c.Cache }

// load serves the certificate of the Secret the informer delivers.
func (m *Manager) load(obj any) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return
	}
	p, err := parse(s.Data)
	switch {
	case errors.Is(err, errEmpty):
		m.log.Info("waiting for the leader to issue the serving certificate", "secret", m.key)
		return
	case err != nil:
		m.log.Error(err, "the Secret holds no usable certificate; serving the previous one", "secret", m.key)
		return
	}
	cert := &p.pair
	if old := m.serving.Swap(cert); old == nil || !old.Leaf.Equal(p.leaf) {
		m.log.Info("serving the certificate from the Secret", "secret", m.key, "serial", p.leaf.SerialNumber.Text(16), "notAfter", p.leaf.NotAfter.UTC())
	}
}

// Reconcile runs on the leader: it issues a certificate when the Secret's
// must be replaced, puts the CA bundle into the webhook configurations and
// converting CRDs, and only then writes the Secret.
func (m *Manager) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	// Read from the apiserver, not the cache: a Secret this reconcile's
	// predecessor just wrote may not be in the cache yet, and a stale one
	// would make it rotate again.
	secret := &corev1.Secret{}
	if err := m.reader.Get(ctx, m.key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, fmt.Errorf("the Secret %s does not exist: it is part of the install (config/default), re-apply it: %w", m.key, err)
		}
		return reconcile.Result{}, err
	}
	now := m.opts.now()
	cur, parseErr := parse(secret.Data)
	reason, renewAt := m.opts.renewal(cur, parseErr, now)
	if reason == "" {
		n, err := m.inject(ctx, cur.caPEM)
		if n > 0 {
			m.log.Info("set the CA bundle", "objects", n)
		}
		return m.requeue(now, renewAt), err
	}
	next, err := m.opts.issue(cur, now)
	if err != nil {
		return reconcile.Result{}, err
	}
	n, err := m.inject(ctx, next.caPEM)
	if err != nil {
		// The Secret is left as it was: no replica serves a certificate
		// the apiserver may not trust.
		return reconcile.Result{}, fmt.Errorf("inject the new CA bundle (%d objects done): %w", n, err)
	}
	secret.Data = next.data()
	if err := m.client.Update(ctx, secret, client.FieldOwner(fieldOwner)); err != nil {
		return reconcile.Result{}, fmt.Errorf("write the certificate to Secret %s: %w", m.key, err)
	}
	m.log.Info("issued the webhook serving certificate", "reason", reason, "serial", next.leaf.SerialNumber.Text(16),
		"notAfter", next.leaf.NotAfter.UTC(), "bundle", len(next.cas), "injected", n)
	_, renewAt = m.opts.renewal(next, nil, now)
	return m.requeue(now, renewAt), nil
}

// requeue checks again at the renewal time, or after Resync if sooner.
func (m *Manager) requeue(now, renewAt time.Time) reconcile.Result {
	return reconcile.Result{RequeueAfter: max(min(renewAt.Sub(now), m.opts.Resync), time.Second)}
}
