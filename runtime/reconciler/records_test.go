package reconciler

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

func TestStoredApplied(t *testing.T) {
	random := func(n int) string {
		b := make([]byte, n/2)
		_, _ = rand.Read(b)
		return hex.EncodeToString(b)
	}
	cases := map[string]struct {
		body   string
		prefix string
	}{
		"Small":          {`{"location":"westeurope"}`, "{"},
		"Compressible":   {`{"template":"` + strings.Repeat("resource ", 40000) + `"}`, gzipPrefix},
		"Incompressible": {`{"template":"` + random(300<<10) + `"}`, digestPrefix},
	}
	for name, c := range cases {
		stored := storeApplied(c.body)
		if !strings.HasPrefix(stored, c.prefix) {
			t.Errorf("%s: stored as %.20q…, want the prefix %q", name, stored, c.prefix)
		}
		if len(stored) >= digestFrom {
			t.Errorf("%s: stored in %d bytes: too large for an annotation", name, len(stored))
		}
		body, digest := loadApplied(stored)
		switch {
		case c.prefix == digestPrefix && (body != "" || digest != appliedDigest(c.body)):
			t.Errorf("%s: loaded %d bytes, digest %q", name, len(body), digest)
		case c.prefix != digestPrefix && (body != c.body || digest != ""):
			t.Errorf("%s: the body does not round-trip", name)
		}
	}
}
