package profile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
)

// widgets.json: a tracked resource with a GET and a PUT, each with an
// example.
const widgetsSwagger = `{
  "swagger": "2.0",
  "info": {"title": "widgets", "version": "2020-01-01"},
  "paths": {
    "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}": {
      "get": {"operationId": "Widgets_Get", "parameters": [{"name": "widgetName", "in": "path", "required": true, "type": "string"}],
        "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Widget"}}},
        "x-ms-examples": {"Get": {"$ref": "./examples/get.json"}}},
      "put": {"operationId": "Widgets_Create", "parameters": [{"name": "widgetName", "in": "path", "required": true, "type": "string"},
          {"name": "widget", "in": "body", "required": true, "schema": {"$ref": "#/definitions/Widget"}}],
        "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Widget"}}},
        "x-ms-examples": {"Create": {"$ref": "./examples/create.json"}}}
    }
  },
  "definitions": {
    "Widget": {"x-ms-azure-resource": true, "properties": {
      "id": {"type": "string", "readOnly": true}, "name": {"type": "string", "readOnly": true},
      "location": {"type": "string"}, "tags": {"type": "object", "additionalProperties": {"type": "string"}},
      "properties": {"$ref": "#/definitions/WidgetProperties"}}},
    "WidgetProperties": {"properties": {
      "color": {"type": "string"},
      "tier": {"type": "string", "enum": ["Basic", "Premium"]},
      "forwardTo": {"type": "string"},
      "sizes": {"type": "array", "items": {"type": "integer"}},
      "enabled": {"type": "boolean"},
      "serial": {"type": "string", "readOnly": true}}}
  }
}`

const widgetsCreate = `{"parameters": {"widgetName": "w1", "widget": {"location": "westus", "properties": {"color": "blue"}}},
  "responses": {"200": {"body": {"id": "/x/w1", "name": "w1", "location": "westus",
    "properties": {"color": "blue", "tier": "Basic", "enabled": true, "serial": "s-1"}}}}}`

const widgetsGet = `{"parameters": {"widgetName": "w1"},
  "responses": {"200": {"body": {"id": "/x/w1", "name": "w1", "location": "westus", "tags": {"team": "a"},
    "properties": {"color": "red", "tier": "Premium", "forwardTo": "topic-3065", "sizes": [1, 2], "enabled": true}}}}}`

// TestExampleDefaults (issue 28.2): members the examples' GET and PUT
// responses show and no request sends are defaults, with the examples'
// own data emptied; a member a request sends is the caller's choice.
func TestExampleDefaults(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{"widgets.json": widgetsSwagger, "examples/create.json": widgetsCreate, "examples/get.json": widgetsGet} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := load.New(root)
	d, err := l.Load("widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := tree.Build(l, []*load.Document{d})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := tr.Resource("Microsoft.Contoso/widgets")
	tb, err := classify.Classify(l, r)
	if err != nil {
		t.Fatal(err)
	}
	tier := &model.Enum{Name: "Tier", Values: []model.EnumValue{{Value: "Basic"}, {Value: "Premium"}}}
	props := &model.Struct{Name: "WidgetProperties", Fields: []*model.Field{
		{JSONName: "tier", Type: &model.TypeRef{Kind: model.EnumRef, Enum: tier}},
		{JSONName: "forwardTo", Type: &model.TypeRef{Kind: model.String}},
	}}
	k := &model.Kind{Resource: r, Table: tb, Spec: &model.Struct{Name: "WidgetSpec", Fields: []*model.Field{
		{JSONName: "properties", Type: &model.TypeRef{Kind: model.StructRef, Struct: props}},
	}}}
	got := map[string]string{}
	for _, def := range (&learner{root: root}).exampleDefaults(k) {
		got[def.Path] = string(def.Value)
	}
	want := map[string]string{
		"properties.enabled":   `true`,
		"properties.forwardTo": `""`,      // a free string is the example's own
		"properties.sizes":     `[]`,      // so are an array's items
		"properties.tier":      `"Basic"`, // an enum value is ARM's; the PUT that left it out wins
		"tags":                 `{}`,      // a map's entries are the example's own
	}
	// Not: properties.color (the request sends it), properties.serial
	// (readOnly: the emulator's placeholder), location (sent).
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("example defaults (-want +got):\n%s", diff)
	}
}
