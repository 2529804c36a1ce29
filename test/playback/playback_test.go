package playback_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/cassette"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
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

// knownGaps are the recordings whose types became generated with issue 15
// (Network, Web, role assignments) and that do not play back yet, each with
// what goes wrong. They are skipped, not hidden: remove an entry when its
// cause is fixed; the recordings that play back must keep doing so.
var knownGaps = map[string]string{
	"Test_Authorization_RoleAssignment_OnResourceGroup_CRUD":          "the objects built from the recording give an extension kind no spec.owner (its scope's group/kind/name or armId)",
	"Test_Authorization_RoleAssignment_OnStorageAccount_CRUD":         "the objects built from the recording give an extension kind no spec.owner (its scope's group/kind/name or armId)",
	"Test_Networking_LoadBalancer_CRUD":                               "the operator's PUT body differs from the recorded one (no recorded answer for it)",
	"Test_Networking_RouteTable_CRUD":                                 "a second PUT of the route table that the recording has no answer for",
	"Test_Networking_VirtualNetwork_CRUD":                             "the operator's PUT body differs from the recorded one (no recorded answer for it)",
	"Test_Networking_PrivateDnsZone_CRUD":                             "the zone's DELETE is answered 409 CannotDeleteResource until its links are gone; the recorded order does not follow",
	"Test_Networking_PublicIP_CRUD":                                   "the deletion does not complete against the recorded answers",
	"Test_Networking_Subnet_CreatedThenVNETUpdated_SubnetStillExists": "the subnet's deletion does not complete against the recorded answers",
	"Test_Networking_VirtualNetworkPeering_CRUD":                      "the peering's deletion does not complete against the recorded answers",
	"Test_Web_ServerFarm_CRUD":                                        "fails within a second of the start: not investigated yet",
	"Test_Web_Site_CRUD":                                              "fails within a second of the start: not investigated yet",
	// Issue 16's second round: recordings whose types became generated
	// (the emulator serves every type the recordings touch).
	"Test_Authorization_RoleDefinitionResourceGroupScope_CRUD": "the objects built from the recording give an extension kind no spec.owner (OwnerRequired)",
	"Test_Authorization_RoleDefinitionSubscriptionScope_CRUD":  "a definition at subscription scope: its parent, the subscription, has no object to own it",
	"Test_CDN_Profile_CRUD":                                    "the playback finds no recorded answer for the operator's DELETE of the endpoint in the endpoint's state (the recording has one DELETE, answered 202; not investigated further)",
	"Test_Cache_RedisEnterprise_CRUD":                          "the database (singleton default) is deleted with its cluster in the recording; the operator's own DELETE of it never completes",
	"Test_Compute_DiskEncryptionSet_CRUD":                      "the key's GET after its PUT has no recorded answer in the key's state (Key Vault keys are created synchronously)",
	"Test_Compute_Image_CRUD":                                  "the image's deletion does not complete against the recorded answers",
	"Test_Networking_NetworkSecurityGroup_CRUD":                "the security rule's deletion does not complete against the recorded answers (an embedded child deleted with its group)",
	"Test_Networking_PrivateEndpoint_CRUD":                     "the recording's DNS zone group DELETE lost a race with the endpoint's (400 ReferencedResourceNotProvisioned); the operator's retry has no answer",
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
			c, err := cassette.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			p := fakearm.NewPlayback(c, descs)
			if unknown := p.Unknown(); len(unknown) > 0 {
				t.Skipf("types not generated: %s", strings.Join(firstTypes(unknown), ", "))
			}
			if why, ok := knownGaps[name]; ok {
				t.Skipf("known gap: %s", why)
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
		if un := p.Unanswered(); len(un) > 0 {
			t.Errorf("requests without a recorded answer:\n  %s", strings.Join(un, "\n  "))
		}
	}()
	for _, o := range objs {
		want := "True " + reconciler.ReasonSucceeded
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
	for _, o := range objs {
		if err := k8s.Delete(context.Background(), o.u); err != nil {
			t.Fatalf("delete %s %s: %v", o.u.GetKind(), o.u.GetName(), err)
		}
		if !eventually(t, 60*time.Second, o.u.GetKind()+" "+o.u.GetName()+": deletion completes", func() (bool, string) {
			cur := current(t, o.u)
			if cur == nil {
				return true, ""
			}
			s, r, m := readyOf(cur)
			return false, s + " " + r + " " + m
		}) {
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
	names := map[string]string{} // lower-case resource path → object name
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
		if parent := d.ParentID(m.ID); parent != "" {
			owner, ok := names[strings.ToLower(parent)]
			if !ok {
				t.Fatalf("%s: its parent %s has no object", res.Path, parent)
			}
			spec["owner"] = map[string]any{"name": owner}
		}
		name := objectName(m.ID)
		names[strings.ToLower(m.ID)] = name
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": d.Group + "/" + d.Version, "kind": d.Kind,
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     spec,
		}}
		if res.Deleted < 0 {
			// The recording never deletes it: it goes with its parent.
			u.SetAnnotations(map[string]string{reconciler.AnnotationPolicy: string(reconciler.PolicyDetachOnDelete)})
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
		case r.Interaction < 0:
			mark = "  (no recorded answer)"
		case r.Derived:
			mark = "  (operation, from the resource's recorded state)"
		}
		b.WriteString("  " + r.Method + " " + r.Path + " → " + strconv.Itoa(r.Status) + " #" + strconv.Itoa(r.Interaction) + mark + "\n")
	}
	return b.String()
}
