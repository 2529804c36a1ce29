package importer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSanitize(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"Plain":      {"media01", "media01"},
		"Case":       {"Team-A", "team-a"},
		"Underscore": {"Build_Agent", "build-agent"},
		"Runs":       {"a__b..c  d", "a-b-c-d"},
		"Ends":       {"_x_", "x"},
		"Nothing":    {"___", ""},
		"Unicode":    {"café", "caf"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := sanitize(tc.in); got != tc.want {
				t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestAssign(t *testing.T) {
	const a, b, c = "/s/x/Build_Agent", "/s/x/build-agent", "/s/x/BUILD.AGENT"
	cases := map[string]struct {
		reason string
		cands  []*candidate
		want   []string
	}{
		"NoCollision": {
			reason: "distinct names stay as they are",
			cands:  []*candidate{{key: "k", want: "one", exact: true, id: "/1"}, {key: "k", want: "two", id: "/2"}},
			want:   []string{"one", "two"},
		},
		"OtherKind": {
			reason: "names only need to differ within a kind",
			cands:  []*candidate{{key: "k1", want: "x", id: "/1"}, {key: "k2", want: "x", id: "/2"}},
			want:   []string{"x", "x"},
		},
		"ExactKeeps": {
			reason: "the resource whose Azure name the name is keeps it; the others get their id's hash",
			cands:  []*candidate{{key: "k", want: "build-agent", id: a}, {key: "k", want: "build-agent", exact: true, id: b}, {key: "k", want: "build-agent", id: c}},
			want:   []string{"build-agent-" + idHash(a), "build-agent", "build-agent-" + idHash(c)},
		},
		"NoneExact": {
			reason: "without an exact one every colliding name gets its hash, whatever the order",
			cands:  []*candidate{{key: "k", want: "build-agent", id: c}, {key: "k", want: "build-agent", id: a}},
			want:   []string{"build-agent-" + idHash(c), "build-agent-" + idHash(a)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assign(tc.cands)
			var got []string
			for _, c := range tc.cands {
				got = append(got, c.got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestFit(t *testing.T) {
	long := strings.Repeat("a", 300)
	got := fit(long, "/id")
	if len(got) != maxName || !strings.HasSuffix(got, "-"+idHash("/id")) {
		t.Errorf("fit of 300 characters: %d characters %q", len(got), got[len(got)-10:])
	}
	if got := fit("", "/id"); got != "x-"+idHash("/id") {
		t.Errorf("fit of nothing: %q", got)
	}
	if idHash("/S/A") != idHash("/s/a") {
		t.Error("ARM ids compare without case: so must their hashes")
	}
}
