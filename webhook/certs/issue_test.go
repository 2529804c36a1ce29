package certs

import (
	"crypto/x509"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func testOptions(t *testing.T) Options {
	t.Helper()
	o, err := Options{SecretName: "cert", Namespace: "ops", Validity: 90 * time.Hour, now: func() time.Time { return t0 }}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func mustIssue(t *testing.T, o Options, prev *keyPair, at time.Time) *keyPair {
	t.Helper()
	p, err := o.issue(prev, at)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIssue(t *testing.T) {
	o := testOptions(t)
	p := mustIssue(t, o, nil, t0)
	if got, want := p.leaf.DNSNames, []string{"armature-webhook.ops.svc", "armature-webhook.ops.svc.cluster.local"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("DNS names %q, want %q", got, want)
	}
	if !p.leaf.NotAfter.Equal(t0.Add(90*time.Hour)) || !p.cas[0].NotAfter.Equal(p.leaf.NotAfter) {
		t.Errorf("leaf until %s, CA until %s: want both %s", p.leaf.NotAfter, p.cas[0].NotAfter, t0.Add(90*time.Hour))
	}
	if len(p.cas) != 1 || !p.cas[0].IsCA {
		t.Fatalf("first issue: bundle of %d, want the one new CA", len(p.cas))
	}
	// A rotation keeps the previous CA in the bundle while it is valid, and
	// only that one.
	next := mustIssue(t, o, p, t0.Add(61*time.Hour))
	if len(next.cas) != 2 || !next.cas[1].Equal(p.cas[0]) || next.cas[0].Equal(p.cas[0]) {
		t.Fatalf("rotation: bundle %d certificates, want [new CA, previous CA]", len(next.cas))
	}
	pool := x509.NewCertPool()
	for _, ca := range next.cas {
		pool.AddCert(ca)
	}
	for _, leaf := range []*x509.Certificate{p.leaf, next.leaf} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "armature-webhook.ops.svc", CurrentTime: t0.Add(62 * time.Hour)}); err != nil {
			t.Errorf("the bundle after a rotation must verify the old and the new certificate: %v", err)
		}
	}
	third := mustIssue(t, o, next, t0.Add(122*time.Hour))
	if len(third.cas) != 2 || !third.cas[1].Equal(next.cas[0]) {
		t.Errorf("second rotation: want [new CA, previous CA], the one before dropped; got %d", len(third.cas))
	}
	if late := mustIssue(t, o, p, t0.Add(91*time.Hour)); len(late.cas) != 1 {
		t.Errorf("an expired previous CA is dropped from the bundle; got %d", len(late.cas))
	}
}

func TestRenewal(t *testing.T) {
	o := testOptions(t)
	good := mustIssue(t, o, nil, t0)
	otherNS := testOptions(t)
	otherNS.Namespace = "elsewhere"
	foreign := mustIssue(t, otherNS, nil, t0)
	stranger := mustIssue(t, o, nil, t0)
	cases := map[string]struct {
		reason string
		data   map[string][]byte
		at     time.Time
		want   string // substring of the reason; "" for none
	}{
		"Fresh": {
			reason: "issued now, valid 90h, renewed 30h before expiry",
			data:   good.data(), at: t0.Add(time.Hour),
		},
		"JustBeforeRenewal": {
			reason: "60h in: not yet",
			data:   good.data(), at: t0.Add(60*time.Hour - time.Second),
		},
		"RenewalDue": {
			reason: "60h in: the last third of its life",
			data:   good.data(), at: t0.Add(60 * time.Hour), want: "expires at",
		},
		"Empty": {
			reason: "the Secret as shipped: no data",
			data:   nil, at: t0, want: "no certificate yet",
		},
		"KeyMismatch": {
			reason: "tls.key of another certificate",
			data:   map[string][]byte{CertFile: good.certPEM, KeyFile: stranger.keyPEM, CAFile: good.caPEM},
			at:     t0, want: "tls.crt and tls.key",
		},
		"WrongCA": {
			reason: "ca.crt did not sign tls.crt",
			data:   map[string][]byte{CertFile: good.certPEM, KeyFile: good.keyPEM, CAFile: stranger.caPEM},
			at:     t0, want: "does not verify",
		},
		"OtherService": {
			reason: "a certificate for another namespace's Service",
			data:   foreign.data(), at: t0, want: "does not verify for armature-webhook.ops.svc",
		},
		"NoCA": {
			reason: "ca.crt missing",
			data:   map[string][]byte{CertFile: good.certPEM, KeyFile: good.keyPEM},
			at:     t0, want: "ca.crt holds no certificate",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := parse(tc.data)
			got, at := o.renewal(p, err, tc.at)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("%s: reason %q, want one with %q", tc.reason, got, tc.want)
			}
			if tc.want == "" && !at.Equal(t0.Add(60*time.Hour)) {
				t.Errorf("%s: renewal at %s, want %s", tc.reason, at, t0.Add(60*time.Hour))
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "from-env")
	o, err := Options{SecretName: "s"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Namespace != "from-env" || o.Service != DefaultServiceName || o.ValidatingConfiguration != ValidatingConfigurationName ||
		o.MutatingConfiguration != MutatingConfigurationName || o.Validity != DefaultValidity || o.RenewBefore != DefaultValidity/3 || o.Resync != DefaultResync {
		t.Errorf("defaults: %+v", o)
	}
	for name, bad := range map[string]Options{
		"NoSecret":          {Namespace: "x"},
		"RenewAfterExpiry":  {SecretName: "s", Namespace: "x", Validity: time.Hour, RenewBefore: time.Hour},
		"NegativeValidity":  {SecretName: "s", Namespace: "x", Validity: -time.Hour},
		"NegativeRenewal":   {SecretName: "s", Namespace: "x", RenewBefore: -time.Hour},
		"RenewLongerThanIt": {SecretName: "s", Namespace: "x", Validity: time.Minute, RenewBefore: time.Hour},
	} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%s: %+v accepted", name, bad)
		}
	}
}
