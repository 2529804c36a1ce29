package importer

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// maxListed is how many paths a note lists before "and N more".
const maxListed = 8

// build names the found resources and makes the custom resources of the
// selected ones.
func build(res *Result, o Options) {
	name(res.Objects)
	var out []*Object
	for _, obj := range res.Objects {
		if !obj.selected {
			continue
		}
		makeResource(obj, o)
		for _, n := range obj.Notes {
			if strings.HasPrefix(n, defaultNote) {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s %s: %s", obj.Kind(), obj.Name(), n))
			}
		}
		out = append(out, obj)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if a.Desc.Group+a.Desc.Kind != b.Desc.Group+b.Desc.Kind {
			return a.Desc.Group+a.Desc.Kind < b.Desc.Group+b.Desc.Kind
		}
		return a.Name() < b.Name()
	})
	res.Objects = out
}

// name gives every found resource its Kubernetes name, depth by depth (a
// child's name starts with its parent's):
//
//	resource group, top-level resource  its Azure name, sanitised
//	child                               <parent>-<Azure name>
//	singleton child (blobServices/default) <parent>-<type> (media01-blobservices)
//
// Names that collide within a kind are told apart by assign.
func name(objs []*Object) {
	byDepth := map[int][]*Object{}
	maxDepth := 0
	for _, o := range objs {
		byDepth[o.depth] = append(byDepth[o.depth], o)
		maxDepth = max(maxDepth, o.depth)
	}
	names := map[*Object]string{}
	for depth := 0; depth <= maxDepth; depth++ {
		var cands []*candidate
		level := byDepth[depth]
		for _, o := range level {
			part, exact := sanitize(o.azName), false
			if o.Desc.Singleton != "" && o.parent != nil {
				t := o.Desc.ARMType
				part = sanitize(t[strings.LastIndexByte(t, '/')+1:])
			} else {
				exact = part == o.azName
			}
			want := part
			if o.parent != nil && o.depth > 1 {
				want = names[o.parent] + "-" + part
			}
			cands = append(cands, &candidate{key: o.Desc.Group + "/" + o.Desc.Kind, want: fit(want, o.ID), exact: exact, id: o.ID})
		}
		assign(cands)
		for i, o := range level {
			names[o] = cands[i].got
		}
	}
	for _, o := range objs {
		o.Resource = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": o.Desc.Group + "/" + o.Desc.Version,
			"kind":       o.Desc.Kind,
			"metadata":   map[string]any{"name": names[o]},
		}}
	}
}

// defaultNote starts the note about a webhook default Azure has no value for.
const defaultNote = "Azure has no value at "

// makeResource fills in the spec, annotations, Secret stub and notes.
func makeResource(obj *Object, o Options) {
	d := obj.Desc
	kindLower := strings.ToLower(d.Kind)
	secretName := fit(obj.Name()+"-"+kindLower+"-secrets", obj.ID)
	b := specOf(d, obj.body, secretName)
	spec := b.spec
	spec["resourceID"] = obj.ID
	if d.Singleton == "" || !strings.EqualFold(obj.azName, d.Singleton) {
		if obj.azName != obj.Name() {
			spec["azureName"] = obj.azName
		}
	}
	switch p := obj.parent; {
	case p == nil:
	case p.selected:
		spec["owner"] = map[string]any{"name": p.Name()}
	default:
		spec["owner"] = map[string]any{"armId": p.ID}
	}
	obj.Resource.Object["spec"] = spec
	if o.Policy != "" && o.Policy != core.PolicyManage {
		obj.Resource.SetAnnotations(map[string]string{core.AnnotationPolicy: string(o.Policy)})
	}
	obj.Notes = append(obj.Notes, fmt.Sprintf("Imported by `operator import` from %s (%s, api-version %s).", obj.ID, d.ARMType, d.APIVersion))
	if len(b.secrets) > 0 {
		obj.Secret = &SecretStub{Name: secretName}
		for _, p := range b.secrets {
			obj.Secret.Keys = append(obj.Secret.Keys, keyOf(p))
			obj.Notes = append(obj.Notes, fmt.Sprintf("spec.%s is secret: ARM never returns it, so it references key %q of Secret %s; fill that in (an empty value is never sent; a value is sent to Azure by the next reconcile).", p, keyOf(p), secretName))
		}
	}
	for _, p := range b.unreferenced {
		obj.Notes = append(obj.Notes, fmt.Sprintf("spec.%s is secret and inside a list or map: not referenced; add Secret references by hand.", p))
	}
	if wo := writeOnly(d, obj.body); len(wo) > 0 {
		obj.Notes = append(obj.Notes, "Write-only (ARM never returns them, so not imported): "+listed(wo)+".")
	}
	if len(b.dropped) > 0 {
		obj.Notes = append(obj.Notes, "Not imported (the CRD has no field for them): "+listed(b.dropped)+".")
	}
	for _, p := range defaultsMissing(o, d, spec) {
		obj.Notes = append(obj.Notes, defaultNote+p+": with the defaulting webhook, the first reconcile writes the default to Azure.")
	}
	if o.Policy == core.PolicySkip {
		obj.Notes = append(obj.Notes, "Policy skip: the operator only reads this resource into status, writes and deletes nothing.")
	}
}

// writeOnly lists the kind's writeOnly properties (not those inside
// another writeOnly one or a list) whose holder the GET body has.
func writeOnly(d *descriptor.Descriptor, body map[string]any) []string {
	var out []string
	for _, p := range d.Properties {
		if p.Class != descriptor.WriteOnly || slices.ContainsFunc(p.Path, descriptor.IsWildcard) || strings.Contains(p.Rule, hiddenRule) {
			continue
		}
		if c, ok := d.ClassOf(p.Path.Parent()); ok && c == descriptor.WriteOnly {
			continue
		}
		if _, ok := p.Path.Parent().Get(body); ok || len(p.Path) == 1 {
			out = append(out, p.Path.String())
		}
	}
	return out
}

// defaultsMissing lists the webhook defaults of the kind whose path the
// spec leaves out, as "spec.path (default value)".
func defaultsMissing(o Options, d *descriptor.Descriptor, spec map[string]any) []string {
	var out []string
	defs := o.Defaults[d.GroupVersionKind()]
	keys := make([]string, 0, len(defs))
	for k := range defs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, err := descriptor.ParsePath(k)
		if err != nil {
			continue
		}
		if _, ok := p.Get(spec); ok {
			continue
		}
		v, _ := json.Marshal(defs[k])
		out = append(out, fmt.Sprintf("spec.%s (default %s)", k, v))
	}
	return out
}

func listed(paths []string) string {
	if len(paths) <= maxListed {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:maxListed], ", "), len(paths)-maxListed)
}
