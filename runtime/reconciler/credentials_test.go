package reconciler

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

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
	full := map[string]string{KeyTenantID: "t", KeyClientID: "c", KeySubscriptionID: "sub-a", KeyClientSecret: "hunter2"}
	c := fake.NewClientBuilder().WithObjects(
		secret("team-a", CredentialSecret, full),
		secret("team-a", "payments", map[string]string{KeyTenantID: "t", KeyClientID: "p", KeySubscriptionID: "sub-p", KeyClientSecret: "hunter3"}),
		secret("team-b", CredentialSecret, map[string]string{KeyTenantID: "t", KeyClientSecret: "hunter4"}),
		secret("team-x", "payments", full),
	).Build()
	var built []string
	def := Binding{Client: arm.Client(nil), SubscriptionID: "sub-default"}
	creds := NewCredentials(c, def, func(sp arm.ServicePrincipal) (arm.Client, error) {
		built = append(built, sp.ClientID)
		return nil, nil
	}, WithDefaultNamespaces("team-c"))
	obj := func(ns, annotation string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace(ns)
		u.SetName("x")
		if annotation != "" {
			u.SetAnnotations(map[string]string{AnnotationCredential: annotation})
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
		"DefaultNotOptedIn": {obj: obj("team-d", ""), reason: ReasonCredentialNotFound},
		"OtherNamespace":    {obj: obj("team-c", "team-x/payments"), reason: ReasonCredentialRefused},
		"NotAName":          {obj: obj("team-c", "Payments!"), reason: ReasonCredentialRefused},
		"MissingSecret":     {obj: obj("team-a", "nowhere"), reason: ReasonCredentialNotFound},
		"MissingKeys":       {obj: obj("team-b", ""), reason: ReasonCredentialInvalid},
		"NamespaceInvalid":  {obj: obj("team-b", "x"), reason: ReasonCredentialNotFound},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := creds.For(context.Background(), tc.obj)
			var te *terminalError
			var we *worldError
			switch {
			case tc.reason == "" && err != nil:
				t.Fatal(err)
			case tc.reason != "" && !(errors.As(err, &te) && te.reason == tc.reason || errors.As(err, &we) && we.reason == tc.reason):
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
	_ = c.Get(context.Background(), keyOf("team-a", CredentialSecret), s)
	s.Data[KeyClientID] = []byte("c2")
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
		opts []CredentialsOption
		ok   bool
	}{
		"None":  {nil, false},
		"Other": {[]CredentialsOption{WithDefaultNamespaces("team-b")}, false},
		"Named": {[]CredentialsOption{WithDefaultNamespaces("team-b", "team-a")}, true},
		"All":   {[]CredentialsOption{WithDefaultNamespaces("*")}, true},
	} {
		creds := NewCredentials(c, Binding{SubscriptionID: "sub"}, nil, tc.opts...)
		b, err := creds.For(context.Background(), obj)
		if tc.ok != (err == nil) {
			t.Errorf("%s: binding %+v, err %v; want served=%v", name, b, err, tc.ok)
		}
		if reason, _, isCred := CredentialProblem(err); err != nil && (!isCred || reason != ReasonCredentialNotFound) {
			t.Errorf("%s: %v is not CredentialNotFound", name, err)
		}
	}
}

func TestBackoff(t *testing.T) {
	b := Backoff{Initial: time.Second, Max: 5 * time.Second}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, b.After(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got\n%s", diff)
	}
}

func keyOf(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }
