package descriptor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	cache "github.com/armature-dev/armature/generated/apis/cache/v20240301"
	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/runtime/descriptor"
)

func TestGeneratedActions(t *testing.T) {
	d := &storage.StorageAccountDescriptor
	regen, ok := d.Action("regenerateKey")
	if !ok {
		t.Fatalf("no regenerateKey in %v", d.ActionNames())
	}
	if regen.LongRunning || regen.Request == nil || !regen.Request.Required {
		t.Errorf("regenerateKey: a synchronous action with a required body, got %+v", regen)
	}
	if f, ok := regen.Request.Field(descriptor.MustParsePath("keyName")); !ok || !f.Required || f.Type != "string" {
		t.Errorf("keyName = %+v, %v", f, ok)
	}
	if diff := cmp.Diff([]descriptor.Path{descriptor.MustParsePath("keys[*].value")}, regen.Response.SecretPaths()); diff != "" {
		t.Errorf("secret response paths (-want +got):\n%s", diff)
	}
	if a, ok := d.Action("LISTKEYS"); !ok || a.Name != "listKeys" {
		t.Errorf("Action ignores case when no name matches exactly: %v %v", a, ok)
	}
	if _, ok := d.Action("noSuchAction"); ok {
		t.Error("unknown action found")
	}
	fo, _ := d.Action("failover")
	if !fo.LongRunning || fo.Request != nil || len(fo.Query) != 1 || fo.Query[0].Name() != "failoverType" {
		t.Errorf("failover: an LRO without body, with a failoverType query parameter: %+v", fo)
	}
	r, _ := cache.RedisDescriptor.Action("regenerateKey")
	if f, _ := r.Request.Field(descriptor.MustParsePath("keyType")); !cmp.Equal(f.Enum, []string{"Primary", "Secondary"}) || f.EnumOpen {
		t.Errorf("Redis keyType is a closed enum Primary/Secondary: %+v", f)
	}
}

func TestBodyLookups(t *testing.T) {
	b := &descriptor.Body{Fields: []descriptor.Field{
		{Type: "object"},
		{Path: descriptor.MustParsePath("a"), Type: "object"},
		{Path: descriptor.MustParsePath("a.b"), Type: "string"},
		{Path: descriptor.MustParsePath("a.m"), Type: "object"},
		{Path: descriptor.MustParsePath("a.m.*"), Type: "integer"},
		{Path: descriptor.MustParsePath("list"), Type: "array"},
		{Path: descriptor.MustParsePath("list[*]"), Type: "object"},
		{Path: descriptor.MustParsePath("list[*].x"), Type: "string", Secret: true},
		{Path: descriptor.MustParsePath("z"), Type: "boolean"},
	}}
	cases := map[string]struct {
		path string
		want []string
	}{
		"Root":      {path: "", want: []string{"a", "list", "z"}},
		"Nested":    {path: "a", want: []string{"b", "m"}},
		"Map":       {path: "a.m", want: []string{"*"}},
		"ArrayItem": {path: "list[*]", want: []string{"x"}},
		"Leaf":      {path: "z", want: nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for k := range b.Children(descriptor.MustParsePath(tc.path)) {
				got = append(got, k)
			}
			if diff := cmp.Diff(tc.want, got, cmpSorted); diff != "" {
				t.Errorf("Children(%q) (-want +got):\n%s", tc.path, diff)
			}
		})
	}
	if f, ok := b.Field(descriptor.MustParsePath("a.m.*")); !ok || f.Type != "integer" {
		t.Errorf("Field(a.m.*) = %+v, %v", f, ok)
	}
	if _, ok := b.Field(descriptor.MustParsePath("a.c")); ok {
		t.Error("Field(a.c) found")
	}
	if r := b.Root(); r.Type != "object" {
		t.Errorf("Root = %+v", r)
	}
	var none *descriptor.Body
	if !none.Root().Open || none.SecretPaths() != nil {
		t.Error("a nil body is open and has no secrets")
	}
}

var cmpSorted = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
})
