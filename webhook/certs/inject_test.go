package certs

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSetCABundle(t *testing.T) {
	bundle := []byte("PEM")
	enc := base64.StdEncoding.EncodeToString(bundle)
	hook := func(ca string) map[string]any {
		cc := map[string]any{"service": map[string]any{"name": "armature-webhook"}}
		if ca != "" {
			cc["caBundle"] = ca
		}
		return map[string]any{"name": "h", "clientConfig": cc}
	}
	crd := func(strategy, ca string) map[string]any {
		conv := map[string]any{"strategy": strategy}
		if strategy == "Webhook" {
			cc := map[string]any{"service": map[string]any{"name": "armature-webhook", "path": "/convert"}}
			if ca != "" {
				cc["caBundle"] = ca
			}
			conv["webhook"] = map[string]any{"clientConfig": cc}
		}
		return map[string]any{"spec": map[string]any{"conversion": conv}}
	}
	cases := map[string]struct {
		reason  string
		set     func(*unstructured.Unstructured, []byte) (bool, error)
		in      map[string]any
		want    map[string]any
		changed bool
	}{
		"EveryWebhook": {
			reason: "every webhook of a configuration gets the bundle",
			set:    setWebhooksCABundle,
			in:     map[string]any{"webhooks": []any{hook(""), hook("T0xE")}},
			want:   map[string]any{"webhooks": []any{hook(enc), hook(enc)}}, changed: true,
		},
		"WebhooksInPlace": {
			reason: "nothing to write when every webhook has it",
			set:    setWebhooksCABundle,
			in:     map[string]any{"webhooks": []any{hook(enc)}},
			want:   map[string]any{"webhooks": []any{hook(enc)}},
		},
		"ConvertingCRD": {
			reason: "a CRD converting through the webhook gets the bundle",
			set:    setConversionCABundle,
			in:     crd("Webhook", ""), want: crd("Webhook", enc), changed: true,
		},
		"CRDInPlace": {
			reason: "nothing to write when the CRD has it",
			set:    setConversionCABundle,
			in:     crd("Webhook", enc), want: crd("Webhook", enc),
		},
		"NoneStrategy": {
			reason: "a labelled CRD converting with None is left alone (a caBundle without webhook is invalid)",
			set:    setConversionCABundle,
			in:     crd("None", ""), want: crd("None", ""),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tc.in}
			changed, err := tc.set(u, bundle)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed {
				t.Errorf("%s: changed = %v", tc.reason, changed)
			}
			if diff := cmp.Diff(tc.want, u.Object); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
	bad := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"conversion": map[string]any{"strategy": "Webhook"}}}}
	if _, err := setConversionCABundle(bad, bundle); err == nil {
		t.Error("a Webhook strategy without a client config is an error")
	}
}

func TestServing(t *testing.T) {
	o := testOptions(t)
	now := t0
	o.now = func() time.Time { return now }
	m := &Manager{opts: o}
	if _, err := m.GetCertificate(nil); !errors.Is(err, errNotServing) {
		t.Errorf("before the Secret: GetCertificate error %v, want errNotServing", err)
	}
	if err := m.Ready(nil); err == nil {
		t.Error("ready before the Secret holds a certificate")
	}
	m.load(&corev1.Secret{})
	if err := m.Ready(nil); err == nil {
		t.Error("ready on the empty Secret")
	}
	first := mustIssue(t, o, nil, t0)
	m.load(&corev1.Secret{Data: first.data()})
	if err := m.Ready(nil); err != nil {
		t.Errorf("not ready with a valid certificate: %v", err)
	}
	served := func() *tls.Certificate {
		c, err := m.GetCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if !served().Leaf.Equal(first.leaf) {
		t.Error("does not serve the Secret's certificate")
	}
	next := mustIssue(t, o, first, t0.Add(time.Hour))
	m.load(&corev1.Secret{Data: next.data()})
	if !served().Leaf.Equal(next.leaf) {
		t.Error("a rotation in the Secret is not served")
	}
	m.load(&corev1.Secret{Data: map[string][]byte{"tls.crt": []byte("junk"), "tls.key": []byte("junk")}})
	if !served().Leaf.Equal(next.leaf) {
		t.Error("an unusable Secret must leave the last good certificate served")
	}
	now = next.leaf.NotAfter.Add(time.Second)
	if err := m.Ready(nil); err == nil {
		t.Error("ready with an expired certificate")
	}
}
