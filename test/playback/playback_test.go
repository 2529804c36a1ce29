package playback_test

import (
	"context"
	"encoding/json"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/test/envtestutil"
)

// recordings lists the cassettes of test/recordings and, when present,
// ../shared/recordings (a file of the same name is played once).
func recordings(t *testing.T) []string {
	t.Helper()
	root := envtestutil.RepoRoot()
	dirs := []string{filepath.Join(root, "test", "recordings")}
	if shared := filepath.Join(root, "..", "shared", "recordings"); dirExists(shared) {
		dirs = append(dirs, shared)
	} else {
		t.Log("../shared/recordings is absent: test/recordings only")
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			if !seen[filepath.Base(f)] {
				seen[filepath.Base(f)] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// TestPlayback reconciles, against each recording whose types are all
// generated, the objects built from its first PUT bodies (see the package
// doc).
func TestPlayback(t *testing.T) {
	descs := apis.Descriptors()
	played := 0
	for _, file := range recordings(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			c, err := recording.LoadCassette(file)
			if err != nil {
				t.Fatal(err)
			}
			p := fakearm.NewPlayback(c, descs)
			if unknown := p.Unknown(); len(unknown) > 0 {
				t.Skipf("types not generated: %s", strings.Join(firstTypes(unknown), ", "))
			}
			played++
			play(t, p, descs)
		})
	}
	if played == 0 {
		t.Error("no recording has only generated types")
	}
}

// firstTypes names the ARM types of unknown requests, once each.
func firstTypes(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		_, path, _ := strings.Cut(r, " ")
		typ, err := descriptor.TypeOf(path)
		if err != nil {
			typ = path
		}
		if !contains(out, typ) {
			out = append(out, typ)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

// object is a custom resource of the recording, with what is expected.
type object struct {
	u    *unstructured.Unstructured
	res  fakearm.Resource
	path string
}

func play(t *testing.T, p *fakearm.Playback, descs []*descriptor.Descriptor) {
	p.RetryAfter = "0"
	ep, err := fakearm.Serve(p, fakearm.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ep.Close() })
	ns := namespace(t)
	objs := objects(t, p, descs, ns)
	startOperator(t, ep, ns)
	for _, o := range objs {
		if err := k8s.Create(context.Background(), o.u); err != nil {
			t.Fatalf("create %s %s: %v", o.u.GetKind(), o.u.GetName(), err)
		}
	}
	defer func() {
		t.Logf("%d requests; answered from the recording:\n%s", len(p.Requests()), journal(p))
		var un, extra []string
		for _, r := range p.Unanswered() {
			if statusRead(descs, r) {
				extra = append(extra, r)
			} else {
				un = append(un, r)
			}
		}
		if len(extra) > 0 {
			t.Logf("status reads the recorded client never made (the reconciler leaves a failed one out of status):\n  %s", strings.Join(extra, "\n  "))
		}
		if len(un) > 0 {
			t.Errorf("requests without a recorded answer:\n  %s", strings.Join(un, "\n  "))
		}
	}()
	for _, o := range objs {
		want := "True " + core.ReasonSucceeded
		if o.res.Refused != "" {
			want = "False " + o.res.Refused
		}
		if !eventually(t, 60*time.Second, o.u.GetKind()+" "+o.u.GetName()+": Ready "+want, func() (bool, string) {
			cur := current(t, o.u)
			if cur == nil {
				return false, "gone"
			}
			s, r, m := readyOf(cur)
			return s+" "+r == want, s + " " + r + " " + m
		}) {
			return
		}
	}
	// Delete in the order the recording deletes; then the objects it never
	// deletes (detached).
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i].res.Deleted, objs[j].res.Deleted
		return a >= 0 && (b < 0 || a < b)
	})
	// An object whose DELETE ARM refuses until its children are gone (a
	// Private DNS zone and its links: 409 CannotDeleteResource) waits for
	// the deletions after it, as it would for a user who deletes them all.
	gone := func(o object) (bool, string) {
		cur := current(t, o.u)
		if cur == nil {
			return true, ""
		}
		s, r, m := readyOf(cur)
		return false, s + " " + r + " " + m
	}
	var blocked []object
	for _, o := range objs {
		if err := k8s.Delete(context.Background(), o.u); err != nil {
			t.Fatalf("delete %s %s: %v", o.u.GetKind(), o.u.GetName(), err)
		}
		waiting := false
		if !eventually(t, 60*time.Second, o.u.GetKind()+" "+o.u.GetName()+": deletion completes", func() (bool, string) {
			done, state := gone(o)
			waiting = strings.Contains(state, " CannotDeleteResource ")
			return done || waiting, state
		}) {
			return
		}
		if waiting {
			blocked = append(blocked, o)
		}
	}
	for _, o := range blocked {
		if !eventually(t, 60*time.Second, o.u.GetKind()+" "+o.u.GetName()+": deletion completes once its children are gone", func() (bool, string) { return gone(o) }) {
			return
		}
	}
}

// objects builds a custom resource per resource of the recording from its
// first PUT body: the ARM body is the spec (name, id and type dropped),
// with azureName and the owner (the object of the parent resource).
func objects(t *testing.T, p *fakearm.Playback, descs []*descriptor.Descriptor, ns string) []object {
	t.Helper()
	var out []object
	type ownerRef struct{ group, kind, name string }
	names := map[string]ownerRef{} // lower-case resource path → its object
	for _, res := range p.Resources() {
		if res.FirstPUT == "" {
			continue
		}
		d, m, ok := descriptor.Find(descs, res.Path)
		if !ok {
			t.Fatalf("no kind for %s", res.Path)
		}
		d = storageVersion(descs, d)
		var spec map[string]any
		if err := json.Unmarshal([]byte(res.FirstPUT), &spec); err != nil {
			t.Fatalf("first PUT body of %s: %v", res.Path, err)
		}
		delete(spec, "name")
		delete(spec, "id")
		delete(spec, "type")
		spec["azureName"] = m.Names[len(m.Names)-1]
		if res.Existed {
			// The recording read it before writing it: it existed, and
			// the operator writes only what it created or adopted.
			spec["resourceID"] = m.ID
		}
		switch parent := d.ParentID(m.ID); {
		case d.Scope == descriptor.ScopeExtension:
			// The owner is the scope: its object by group, kind and
			// name, or its id when it has none (a subscription).
			scope := m.ID[:strings.LastIndex(strings.ToLower(m.ID), "/providers/")]
			if o, ok := names[strings.ToLower(scope)]; ok {
				spec["owner"] = map[string]any{"group": o.group, "kind": o.kind, "name": o.name}
			} else {
				spec["owner"] = map[string]any{"armId": scope}
			}
		case parent != "":
			owner, ok := names[strings.ToLower(parent)]
			if !ok {
				t.Fatalf("%s: its parent %s has no object", res.Path, parent)
			}
			spec["owner"] = map[string]any{"name": owner.name}
		}
		name := objectName(m.ID)
		names[strings.ToLower(m.ID)] = ownerRef{group: d.Group, kind: d.Kind, name: name}
		secretRefs(t, d, spec, ns, name)
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind,
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     spec,
		}}
		if res.Deleted < 0 {
			// The recording never deletes it: it goes with its parent.
			u.SetAnnotations(map[string]string{core.AnnotationPolicy: string(core.PolicyDetachOnDelete)})
		}
		out = append(out, object{u: u, res: res, path: m.ID})
	}
	return out
}

// storageVersion returns the descriptor of the kind's stored version.
func storageVersion(descs []*descriptor.Descriptor, d *descriptor.Descriptor) *descriptor.Descriptor {
	for _, o := range descs {
		if o.Group == d.Group && o.Kind == d.Kind && o.IsStorage() {
			return o
		}
	}
	return d
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// objectName names an object after the names in its id below the
// subscription (resource group, then each type's name).
func objectName(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	var names []string
	for i := 0; i+1 < len(segs); i += 2 {
		switch {
		case strings.EqualFold(segs[i], "providers"): // the namespace follows
		case !strings.EqualFold(segs[i], "subscriptions"):
			names = append(names, segs[i+1])
		}
	}
	n := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(strings.Join(names, "-")), "-"), "-")
	if len(n) > 63 {
		n = strings.Trim(n[len(n)-63:], "-")
	}
	if n == "" {
		n = "x"
	}
	return n
}

// journal prints the requests and their recorded answers.
func journal(p *fakearm.Playback) string {
	var b strings.Builder
	for _, r := range p.Requests() {
		mark := ""
		switch {
		case r.Interaction < 0 && r.Derived:
			mark = "  (a list of the recorded resources)"
		case r.Interaction < 0:
			mark = "  (no recorded answer)"
		case r.Derived:
			mark = "  (derived from the recorded state)"
		}
		b.WriteString("  " + r.Method + " " + r.Path + " → " + strconv.Itoa(r.Status) + " #" + strconv.Itoa(r.Interaction) + mark + "\n")
	}
	return b.String()
}

// statusRead reports whether "METHOD path" is a GET of one of a kind's
// extra status reads (Descriptor.StatusGETs, such as an App Service plan's
// skus): reads the reconciler joins into status when ARM answers them.
func statusRead(descs []*descriptor.Descriptor, req string) bool {
	method, path, _ := strings.Cut(req, " ")
	if method != http.MethodGet {
		return false
	}
	for _, d := range descs {
		for _, g := range d.StatusGETs {
			owner, ok := strings.CutSuffix(path, "/"+g.Name)
			if !ok {
				continue
			}
			if _, _, ok := descriptor.Find([]*descriptor.Descriptor{d}, owner); ok {
				return true
			}
		}
	}
	return false
}

// secretRefs moves the recorded values of a kind's secret properties
// (a SQL server's administratorLoginPassword, redacted by the recorder)
// into a Secret and puts a reference to it in their place, as a user
// writes them.
func secretRefs(t *testing.T, d *descriptor.Descriptor, spec map[string]any, ns, name string) {
	t.Helper()
	data := map[string][]byte{}
	secret := name + "-" + strings.ToLower(d.Kind) // singletons of several kinds share a name
	for _, path := range d.SecretPaths {
		parent := spec
		for _, k := range path[:len(path)-1] {
			if parent, _ = parent[k].(map[string]any); parent == nil {
				break
			}
		}
		v, ok := parent[path.Last()].(string)
		if parent == nil || !ok {
			continue
		}
		key := strings.ReplaceAll(path.String(), "[*]", "")
		data[key] = []byte(v)
		parent[path.Last()] = map[string]any{"name": secret, "key": key}
	}
	if len(data) == 0 {
		return
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: ns}, Data: data}
	if err := k8s.Create(context.Background(), sec); err != nil {
		t.Fatalf("secret of %s: %v", name, err)
	}
}
