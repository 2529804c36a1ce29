package actions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/actions"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// swagger is a resource with one action per construct the flattening
// handles.
const swagger = `{
  "swagger": "2.0",
  "info": {"title": "t", "version": "2024-01-01"},
  "paths": {
    "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/{name}": {
      "put": {"parameters": [{"name": "b", "in": "body", "required": true, "schema": {"$ref": "#/definitions/Thing"}}], "responses": {"200": {"description": "", "schema": {"$ref": "#/definitions/Thing"}}}},
      "get": {"parameters": [], "responses": {"200": {"description": "", "schema": {"$ref": "#/definitions/Thing"}}}}
    },
    "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/{thingName}/regenerateKey": {
      "post": {"parameters": [{"name": "api-version", "in": "query", "required": true, "type": "string"}, {"name": "p", "in": "body", "required": true, "schema": {"$ref": "#/definitions/Regen"}}],
        "responses": {"200": {"description": "", "schema": {"$ref": "#/definitions/Keys"}}}}
    },
    "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/{name}/restart": {
      "post": {"x-ms-long-running-operation": true, "x-ms-long-running-operation-options": {"final-state-via": "location"},
        "parameters": [{"name": "mode", "in": "query", "required": false, "type": "string", "enum": ["Soft", "Hard"], "x-ms-enum": {"name": "Mode", "modelAsString": true}}],
        "responses": {"202": {"description": ""}}}
    },
    "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/{name}/tree": {
      "post": {"parameters": [{"name": "n", "in": "body", "schema": {"$ref": "#/definitions/Node"}}], "responses": {"200": {"description": ""}}}
    },
    "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/{name}/diagnostics": {
      "post": {"parameters": [{"name": "sasExpiryMinutes", "in": "query", "type": "integer"}], "responses": {"200": {"description": "", "schema": {"$ref": "#/definitions/Diag"}}}}
    },
    "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/{name}/broken": {
      "post": {"parameters": [{"name": "b", "in": "body", "schema": {"$ref": "#/definitions/Missing"}}], "responses": {"200": {"description": ""}}}
    }
  },
  "definitions": {
    "Thing": {"properties": {"id": {"type": "string", "readOnly": true}}},
    "Regen": {"required": ["keyName"], "properties": {
      "keyName": {"type": "string", "enum": ["key2", "key1"]},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "extra": {"type": "object"},
      "adminPassword": {"type": "string", "x-ms-secret": true},
      "shape": {"$ref": "#/definitions/Shape"}}},
    "Shape": {"discriminator": "kind", "required": ["kind"], "properties": {"kind": {"type": "string"}}},
    "Circle": {"x-ms-discriminator-value": "circle", "allOf": [{"$ref": "#/definitions/Shape"}], "required": ["radius"], "properties": {"radius": {"type": "integer"}}},
    "Keys": {"properties": {
      "keys": {"type": "array", "readOnly": true, "items": {"$ref": "#/definitions/Key"}},
      "primaryKey": {"type": "string", "readOnly": true},
      "connectionStrings": {"type": "array", "items": {"type": "string"}},
      "keyCount": {"type": "integer"}}},
    "Key": {"properties": {"keyName": {"type": "string"}, "value": {"type": "string"}, "created": {"type": "string", "format": "date-time"}}},
    "Node": {"properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}}},
    "Diag": {"properties": {"screenshotBlobUri": {"type": "string"}, "status": {"type": "string"}}}
  }
}`

func describe(t *testing.T) (map[string]descriptor.Action, map[string][]error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(swagger), 0o644); err != nil {
		t.Fatal(err)
	}
	l := load.New(dir)
	doc, err := l.Load("t.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := tree.Build(l, []*load.Document{doc})
	if len(errs) > 0 {
		t.Fatalf("tree: %v", errs)
	}
	r := tr.Resource("Microsoft.T/things")
	if r == nil {
		t.Fatal("no Microsoft.T/things")
	}
	out, outErrs := map[string]descriptor.Action{}, map[string][]error{}
	for _, a := range r.Actions {
		out[a.Name], outErrs[a.Name] = actions.Describe(l, a)
	}
	return out, outErrs
}

func TestDescribe(t *testing.T) {
	got, errs := describe(t)
	const prefix = "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.T/things/"
	cases := map[string]struct {
		reason string
		want   descriptor.Action
	}{
		"regenerateKey": {
			reason: "a required body with an enum (sorted), a map, a free-form object, a secret, a discriminated subtype's members (never required); a response with key-like names; api-version is not a query parameter",
			want: descriptor.Action{Name: "regenerateKey", Path: prefix + "{thingName}/regenerateKey",
				Request: &descriptor.Body{Required: true, Schema: "t.json#/definitions/Regen", Fields: []descriptor.Field{
					{Type: "object"},
					{Path: descriptor.MustParsePath("adminPassword"), Type: "string", Secret: true},
					{Path: descriptor.MustParsePath("extra"), Type: "object", Open: true},
					{Path: descriptor.MustParsePath("keyName"), Type: "string", Required: true, Enum: []string{"key1", "key2"}},
					{Path: descriptor.MustParsePath("labels"), Type: "object"},
					{Path: descriptor.MustParsePath("labels.*"), Type: "string"},
					{Path: descriptor.MustParsePath("shape"), Type: "object"},
					{Path: descriptor.MustParsePath("shape.kind"), Type: "string", Required: true},
					{Path: descriptor.MustParsePath("shape.radius"), Type: "integer"},
				}},
				Response: &descriptor.Body{Schema: "t.json#/definitions/Keys", Fields: []descriptor.Field{
					{Type: "object"},
					{Path: descriptor.MustParsePath("connectionStrings"), Type: "array"},
					{Path: descriptor.MustParsePath("connectionStrings[*]"), Type: "string", Secret: true},
					{Path: descriptor.MustParsePath("keyCount"), Type: "integer"},
					{Path: descriptor.MustParsePath("keys"), Type: "array", ReadOnly: true},
					{Path: descriptor.MustParsePath("keys[*]"), Type: "object"},
					{Path: descriptor.MustParsePath("keys[*].created"), Type: "string", Format: "date-time"},
					{Path: descriptor.MustParsePath("keys[*].keyName"), Type: "string"},
					{Path: descriptor.MustParsePath("keys[*].value"), Type: "string", Secret: true},
					{Path: descriptor.MustParsePath("primaryKey"), Type: "string", ReadOnly: true, Secret: true},
				}}},
		},
		"restart": {
			reason: "an LRO without bodies, with an open-enum query parameter",
			want: descriptor.Action{Name: "restart", Path: prefix + "{name}/restart", LongRunning: true, FinalStateVia: "location",
				Query: []descriptor.Field{{Path: descriptor.MustParsePath("mode"), Type: "string", Enum: []string{"Hard", "Soft"}, EnumOpen: true}}},
		},
		"tree": {
			reason: "a recursive schema is cut, Open, where it repeats; an optional body",
			want: descriptor.Action{Name: "tree", Path: prefix + "{name}/tree",
				Request: &descriptor.Body{Schema: "t.json#/definitions/Node", Fields: []descriptor.Field{
					{Type: "object"},
					{Path: descriptor.MustParsePath("children"), Type: "array"},
					{Path: descriptor.MustParsePath("children[*]"), Type: "object", Open: true},
					{Path: descriptor.MustParsePath("name"), Type: "string"},
				}}},
		},
		"diagnostics": {
			reason: "a query about SAS makes the URIs of the response secret",
			want: descriptor.Action{Name: "diagnostics", Path: prefix + "{name}/diagnostics",
				Query: []descriptor.Field{{Path: descriptor.MustParsePath("sasExpiryMinutes"), Type: "integer"}},
				Response: &descriptor.Body{Schema: "t.json#/definitions/Diag", Fields: []descriptor.Field{
					{Type: "object"},
					{Path: descriptor.MustParsePath("screenshotBlobUri"), Type: "string", Secret: true},
					{Path: descriptor.MustParsePath("status"), Type: "string"},
				}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if len(errs[name]) > 0 {
				t.Fatalf("errors: %v", errs[name])
			}
			if diff := cmp.Diff(tc.want, got[name]); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDescribeDanglingRef(t *testing.T) {
	got, errs := describe(t)
	if len(errs["broken"]) != 1 || !strings.Contains(errs["broken"][0].Error(), "t.json#/paths") || !strings.Contains(errs["broken"][0].Error(), "Missing") {
		t.Fatalf("want one located error naming the $ref, got %v", errs["broken"])
	}
	if root := got["broken"].Request.Root(); !root.Open {
		t.Errorf("an unreadable body is Open, so nothing is refused by a schema the generator could not read: %+v", root)
	}
}
