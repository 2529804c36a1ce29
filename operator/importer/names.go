package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// maxName is the longest Kubernetes object name (a DNS-1123 subdomain).
const maxName = 253

// sanitize turns an Azure name into a DNS-1123 name: lower case, every
// run of characters other than a-z and 0-9 becomes one '-', no '-' at
// either end. An Azure name with nothing left gives "".
func sanitize(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}

// idHash is a short stable hash of an ARM id (ids compare without case).
func idHash(id string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(id)))
	return hex.EncodeToString(sum[:3])
}

// withHash appends the id's hash to a name, shortening the name to fit.
func withHash(name, id string) string {
	h := idHash(id)
	if len(name)+1+len(h) > maxName {
		name = strings.TrimRight(name[:maxName-1-len(h)], "-")
	}
	if name == "" {
		return "x-" + h
	}
	return name + "-" + h
}

// fit shortens a name longer than maxName, keeping it unique with the
// id's hash.
func fit(name, id string) string {
	if name != "" && len(name) <= maxName {
		return name
	}
	return withHash(name, id)
}

// candidate is one object's wish for a name.
type candidate struct {
	// key groups the names that must differ: the kind.
	key string
	// want is the name wanted; exact is true when want says the Azure
	// name as it is (no character was changed).
	want  string
	exact bool
	// id is the ARM id.
	id string
	// got is the name given.
	got string
}

// assign gives every candidate a name unique within its key. Names that
// collide are decided without regard to discovery order: the one
// candidate that says its Azure name exactly keeps the name, every other
// one gets the hash of its ARM id appended (so a name, once given, does
// not change when other resources appear, unless they say the same name
// exactly).
func assign(cands []*candidate) {
	groups := map[string][]*candidate{}
	for _, c := range cands {
		k := c.key + "\x00" + c.want
		groups[k] = append(groups[k], c)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		exact := 0
		for _, c := range g {
			if c.exact {
				exact++
			}
		}
		for _, c := range g {
			c.got = c.want
			if len(g) > 1 && !(c.exact && exact == 1) {
				c.got = withHash(c.want, c.id)
			}
		}
	}
	// A hashed name that meets a wanted one (vanishingly rare): hash again.
	for _, c := range cands {
		if c.got != c.want && groups[c.key+"\x00"+c.got] != nil {
			c.got = withHash(c.got, c.id)
		}
	}
}
