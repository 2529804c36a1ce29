package credentials

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

// Binding is the ARM client and subscription an object is reconciled with.
type Binding struct {
	// Client talks to ARM with the credential.
	Client arm.Client
	// SubscriptionID is the credential's subscription: kinds the
	// subscription owns (resource groups) are created in it.
	SubscriptionID string
	// Name says where the credential comes from, for messages: "default"
	// or "Secret <namespace>/<name>".
	Name string
}

// NewClientFunc builds the ARM client of a credential Secret's service
// principal.
type NewClientFunc func(arm.ServicePrincipal) (arm.Client, error)

// Credentials picks an object's credential — the Secret its
// armature.dev/credential annotation names, else its namespace's
// armature-credential Secret, else the operator's default, but only in the
// namespaces an administrator opted in (WithDefaultNamespaces) — and keeps
// one ARM client per credential Secret (so one rate budget per
// credential), rebuilt when the Secret's resourceVersion changes. It reads
// Secrets only in the object's own namespace.
type Credentials struct {
	secrets client.Reader
	def     Binding
	build   NewClientFunc
	// defaultAll and defaultIn are the namespaces the default serves.
	defaultAll bool
	defaultIn  map[string]bool

	mu    sync.Mutex
	cache map[types.NamespacedName]*credEntry
}

type credEntry struct {
	version string
	binding Binding
	err     error
}

// Option configures New.
type Option func(*Credentials)

// WithDefaultNamespaces lets the objects of these namespaces that have no
// credential Secret use the operator's default credential; "*" stands for
// every namespace. Without it, no namespace may: an object without a
// credential Secret is CredentialNotFound and nothing is sent to ARM.
func WithDefaultNamespaces(namespaces ...string) Option {
	return func(c *Credentials) {
		for _, ns := range namespaces {
			if ns == "*" {
				c.defaultAll = true
			}
			c.defaultIn[ns] = true
		}
	}
}

// New returns Credentials reading Secrets through secrets (the
// manager's client), with def for objects without a credential Secret in
// the namespaces WithDefaultNamespaces opts in, and build for the Secrets'
// service principals.
func New(secrets client.Reader, def Binding, build NewClientFunc, opts ...Option) *Credentials {
	if def.Name == "" {
		def.Name = "default"
	}
	c := &Credentials{secrets: secrets, def: def, build: build, cache: map[types.NamespacedName]*credEntry{}, defaultIn: map[string]bool{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// DefaultServes reports whether the operator's default credential serves
// the objects of namespace ns that have no credential Secret.
func (c *Credentials) DefaultServes(ns string) bool { return c.defaultAll || c.defaultIn[ns] }

// Problem is a credential problem: the condition reason and message, and
// whether only a change of the object cures it (Terminal) or a change of
// a Secret does (retried slowly).
type Problem struct {
	Reason, Message string
	Terminal        bool
}

func (p *Problem) Error() string { return p.Reason + ": " + p.Message }

// AsProblem returns the Problem of an error of For; ok is false for errors
// that are not a credential's (the apiserver's).
func AsProblem(err error) (*Problem, bool) {
	var p *Problem
	ok := errors.As(err, &p)
	return p, ok
}

func terminal(reason, message string) error {
	return &Problem{Reason: reason, Message: message, Terminal: true}
}

func waitWorld(reason, message string) error { return &Problem{Reason: reason, Message: message} }

// Default returns the operator's default binding.
func (c *Credentials) Default() Binding { return c.def }

// For returns the binding of obj. A credential's problem is a *Problem
// with a reason saying what is wrong.
func (c *Credentials) For(ctx context.Context, obj client.Object) (Binding, error) {
	name, named := obj.GetAnnotations()[core.AnnotationCredential]
	if named {
		if errs := validation.IsDNS1123Subdomain(name); strings.Contains(name, "/") || len(errs) > 0 {
			return Binding{}, terminal(core.ReasonCredentialRefused, fmt.Sprintf("annotation %s=%q must name a Secret in the object's namespace %q (a name, not namespace/name): a Secret of another namespace is never read", core.AnnotationCredential, name, obj.GetNamespace()))
		}
	} else {
		name = core.CredentialSecret
	}
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}
	var s corev1.Secret
	if err := c.secrets.Get(ctx, key, &s); err != nil {
		switch {
		case apierrors.IsNotFound(err) && !named && c.DefaultServes(obj.GetNamespace()):
			return c.def, nil
		case apierrors.IsNotFound(err) && !named:
			return Binding{}, waitWorld(core.ReasonCredentialNotFound, fmt.Sprintf("namespace %q has no credential: create the Secret %s there, or name one with the annotation %s. The operator's own identity serves only the namespaces an administrator opted in (--default-credential-namespaces); nothing is sent to Azure until then", obj.GetNamespace(), core.CredentialSecret, core.AnnotationCredential))
		case apierrors.IsNotFound(err):
			return Binding{}, waitWorld(core.ReasonCredentialNotFound, fmt.Sprintf("Secret %s (annotation %s) does not exist", key, core.AnnotationCredential))
		}
		return Binding{}, fmt.Errorf("read credential Secret %s: %w", key, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cache[key]; ok && e.version == s.ResourceVersion {
		return e.binding, e.err
	}
	b, err := c.bind(key, &s)
	c.cache[key] = &credEntry{version: s.ResourceVersion, binding: b, err: err}
	return b, err
}

// bind builds the client of a credential Secret. The Secret's values are
// never put in a message.
func (c *Credentials) bind(key types.NamespacedName, s *corev1.Secret) (Binding, error) {
	get := func(k string) string { return strings.TrimSpace(string(s.Data[k])) }
	sp := arm.ServicePrincipal{TenantID: get(core.KeyTenantID), ClientID: get(core.KeyClientID), ClientSecret: get(core.KeyClientSecret), FederatedTokenFile: get(core.KeyFederatedTokenFile), Cloud: get(core.KeyCloud)}
	sub := get(core.KeySubscriptionID)
	var missing []string
	for _, k := range []struct{ key, val string }{{core.KeyTenantID, sp.TenantID}, {core.KeyClientID, sp.ClientID}, {core.KeySubscriptionID, sub}} {
		if k.val == "" {
			missing = append(missing, k.key)
		}
	}
	if sp.ClientSecret == "" && sp.FederatedTokenFile == "" {
		missing = append(missing, core.KeyClientSecret+" or "+core.KeyFederatedTokenFile)
	}
	if len(missing) > 0 {
		return Binding{}, waitWorld(core.ReasonCredentialInvalid, fmt.Sprintf("credential Secret %s lacks %s", key, strings.Join(missing, ", ")))
	}
	if c.build == nil {
		return Binding{}, waitWorld(core.ReasonCredentialInvalid, fmt.Sprintf("credential Secret %s: this operator serves no credential Secrets", key))
	}
	client, err := c.build(sp)
	if err != nil {
		return Binding{}, waitWorld(core.ReasonCredentialInvalid, fmt.Sprintf("credential Secret %s: %v", key, err))
	}
	return Binding{Client: client, SubscriptionID: sub, Name: "Secret " + key.String()}, nil
}
