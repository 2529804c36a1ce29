package descriptor

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestRequiredMissing(t *testing.T) {
	d := &Descriptor{Properties: []Property{
		{Path: P("location"), Class: CreateOnly, Required: true},
		{Path: P("properties"), Class: Writable, Required: true},
		{Path: P("properties", "principalId"), Class: CreateOnly, Required: true},
		{Path: P("properties", "rules"), Class: Writable},
		{Path: P("properties", "rules", Items), Class: Writable},
		{Path: P("properties", "rules", Items, "name"), Class: Writable, Required: true},
		{Path: P("properties", "opt"), Class: Writable},
		{Path: P("properties", "opt", "mode"), Class: Writable, Required: true},
		{Path: P("tags", Values), Class: Writable},
		{Path: P("properties", "byKey", Values, "id"), Class: Writable, Required: true},
	}}
	cases := map[string]struct {
		body string
		want string
	}{
		"AllSet":         {body: `{"location":"x","properties":{"principalId":"p"}}`, want: "[]"},
		"TopLevel":       {body: `{"properties":{"principalId":"p"}}`, want: "[location]"},
		"HolderMissing":  {body: `{"location":"x"}`, want: "[properties]"},
		"Null":           {body: `{"location":null,"properties":{"principalId":null}}`, want: "[location properties.principalId]"},
		"OptionalHolder": {body: `{"location":"x","properties":{"principalId":"p","opt":{}}}`, want: "[properties.opt.mode]"},
		"ArrayItems":     {body: `{"location":"x","properties":{"principalId":"p","rules":[{"name":"a"},{}]}}`, want: "[properties.rules[1].name]"},
		"MapValues":      {body: `{"location":"x","properties":{"principalId":"p","byKey":{"b":{},"a":{"id":"i"}}}}`, want: "[properties.byKey.b.id]"},
		"EmptyBody":      {body: `{}`, want: "[location properties]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var body map[string]any
			if err := json.Unmarshal([]byte(tc.body), &body); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(d.RequiredMissing(body)); got != tc.want {
				t.Errorf("RequiredMissing(%s) = %s, want %s", tc.body, got, tc.want)
			}
		})
	}
}
