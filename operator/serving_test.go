package operator

import (
	"crypto/tls"
	"errors"
	"flag"
	"testing"
)

// TestMetricsSecureByDefault: metrics are served over HTTPS with
// authentication and authorization unless --metrics-secure=false (or
// ARMATURE_METRICS_SECURE=false); a Config built in code is secure.
func TestMetricsSecureByDefault(t *testing.T) {
	cases := map[string]struct {
		env        string
		args       []string
		wantSecure bool
		wantAddr   string
	}{
		"Default":        {"", nil, true, ":8443"},
		"FlagOff":        {"", []string{"--metrics-secure=false", "--metrics-bind-address=:8080"}, false, ":8080"},
		"EnvOff":         {"false", nil, false, ":8443"},
		"FlagOverEnv":    {"false", []string{"--metrics-secure"}, true, ":8443"},
		"ExplicitlyTrue": {"", []string{"--metrics-secure=true"}, true, ":8443"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("ARMATURE_METRICS_SECURE", tc.env)
			var c Config
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			c.BindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			o := c.metricsOptions()
			if o.SecureServing != tc.wantSecure || (o.FilterProvider != nil) != tc.wantSecure || o.BindAddress != tc.wantAddr {
				t.Errorf("secure %v, filter %v, address %q; want secure %v at %q", o.SecureServing, o.FilterProvider != nil, o.BindAddress, tc.wantSecure, tc.wantAddr)
			}
			if tc.wantSecure && hardened(o.TLSOpts) != nil {
				t.Error(hardened(o.TLSOpts))
			}
		})
	}
	if o := (&Config{}).metricsOptions(); !o.SecureServing || o.FilterProvider == nil {
		t.Error("a Config built in code serves metrics insecurely")
	}
}

// TestWebhookOptionsHardened: the webhook server's TLS options set the
// project's floor.
func TestWebhookOptionsHardened(t *testing.T) {
	if err := hardened(webhookOptions(Config{WebhookPort: 9443}).TLSOpts); err != nil {
		t.Error(err)
	}
}

// hardened applies opts to an empty TLS config and says what is missing
// of the floor.
func hardened(opts []func(*tls.Config)) error {
	c := &tls.Config{}
	for _, o := range opts {
		o(c)
	}
	if c.MinVersion < tls.VersionTLS12 || len(c.CipherSuites) == 0 {
		return errNotHardened
	}
	return nil
}

var errNotHardened = errors.New("no TLS floor: MinVersion below 1.2 or Go's default suites")
