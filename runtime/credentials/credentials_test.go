package credentials

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

func TestCredentialsFor(t *testing.T) {
	secret := func(ns, name string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	full := map[string]string{core.KeyTenantID: "t", core.KeyClientID: "c", core.KeySubscriptionID: "sub-a", core.KeyClientSecret: "hunter2"}
	c := fake.NewClientBuilder().WithObjects(
		secret("team-a", core.CredentialSecret, full),
		secret("team-a", "payments", map[string]string{core.KeyTenantID: "t", core.KeyClientID: "p", core.KeySubscriptionID: "sub-p", core.KeyClientSecret: "hunter3"}),
		secret("team-b", core.CredentialSecret, map[string]string{core.KeyTenantID: "t", core.KeyClientSecret: "hunter4"}),
		secret("team-x", "payments", full),
	).Build()
	var built []string
	def := Binding{Client: arm.Client(nil), SubscriptionID: "sub-default"}
	creds := New(c, def, func(sp arm.ServicePrincipal) (arm.Client, error) {
		built = append(built, sp.ClientID)
		return nil, nil
	}, WithDefaultNamespaces("team-c"))
	obj := func(ns, annotation string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace(ns)
		u.SetName("x")
		if annotation != "" {
			u.SetAnnotations(map[string]string{core.AnnotationCredential: annotation})
		}
		return u
	}
	cases := map[string]struct {
		obj    *unstructured.Unstructured
		sub    string
		name   string
		reason string // of the error, if any
	}{
		"NamespaceSecret":   {obj: obj("team-a", ""), sub: "sub-a", name: "Secret team-a/armature-credential"},
		"Annotation":        {obj: obj("team-a", "payments"), sub: "sub-p", name: "Secret team-a/payments"},
		"Default":           {obj: obj("team-c", ""), sub: "sub-default", name: "default"},
		"DefaultNotOptedIn": {obj: obj("team-d", ""), reason: core.ReasonCredentialNotFound},
		"OtherNamespace":    {obj: obj("team-c", "team-x/payments"), reason: core.ReasonCredentialRefused},
		"NotAName":          {obj: obj("team-c", "Payments!"), reason: core.ReasonCredentialRefused},
		"MissingSecret":     {obj: obj("team-a", "nowhere"), reason: core.ReasonCredentialNotFound},
		"MissingKeys":       {obj: obj("team-b", ""), reason: core.ReasonCredentialInvalid},
		"NamespaceInvalid":  {obj: obj("team-b", "x"), reason: core.ReasonCredentialNotFound},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := creds.For(context.Background(), tc.obj)
			p, _ := AsProblem(err)
			switch {
			case tc.reason == "" && err != nil:
				t.Fatal(err)
			case tc.reason != "" && (p == nil || p.Reason != tc.reason || p.Terminal != (tc.reason == core.ReasonCredentialRefused)):
				t.Fatalf("err = %v, want reason %s", err, tc.reason)
			case err != nil && strings.Contains(err.Error(), "hunter"):
				t.Fatalf("a secret value in the error: %v", err)
			case err != nil:
				return
			}
			if b.SubscriptionID != tc.sub || b.Name != tc.name {
				t.Errorf("binding %s %s, want %s %s", b.SubscriptionID, b.Name, tc.sub, tc.name)
			}
		})
	}
	// One client per credential Secret: built once, rebuilt on a change.
	built = nil
	for i := 0; i < 3; i++ {
		if _, err := creds.For(context.Background(), obj("team-a", "")); err != nil {
			t.Fatal(err)
		}
	}
	s := &corev1.Secret{}
	_ = c.Get(context.Background(), keyOf("team-a", core.CredentialSecret), s)
	s.Data[core.KeyClientID] = []byte("c2")
	if err := c.Update(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := creds.For(context.Background(), obj("team-a", "")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c2"}, built); diff != "" {
		t.Errorf("clients built (-want +got):\n%s", diff)
	}
}

// TestDefaultNamespaces: the operator's own credential serves only the
// namespaces opted in; "*" is every one; none without the option.
func TestDefaultNamespaces(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	obj := &unstructured.Unstructured{}
	obj.SetNamespace("team-a")
	for name, tc := range map[string]struct {
		opts []Option
		ok   bool
	}{
		"None":  {nil, false},
		"Other": {[]Option{WithDefaultNamespaces("team-b")}, false},
		"Named": {[]Option{WithDefaultNamespaces("team-b", "team-a")}, true},
		"All":   {[]Option{WithDefaultNamespaces("*")}, true},
	} {
		creds := New(c, Binding{SubscriptionID: "sub"}, nil, tc.opts...)
		b, err := creds.For(context.Background(), obj)
		if tc.ok != (err == nil) {
			t.Errorf("%s: binding %+v, err %v; want served=%v", name, b, err, tc.ok)
		}
		if reason, _, isCred := problemOf(err); err != nil && (!isCred || reason != core.ReasonCredentialNotFound) {
			t.Errorf("%s: %v is not CredentialNotFound", name, err)
		}
	}
}

func keyOf(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

func problemOf(err error) (string, string, bool) {
	p, ok := AsProblem(err)
	if !ok {
		return "", "", false
	}
	return p.Reason, p.Message, true
}
