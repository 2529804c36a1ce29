package descriptor_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/descriptor"
)

var regen = &descriptor.Body{Required: true, Fields: []descriptor.Field{
	{Type: "object"},
	{Path: descriptor.MustParsePath("expiry"), Type: "string", Format: "date-time"},
	{Path: descriptor.MustParsePath("extra"), Type: "object", Open: true},
	{Path: descriptor.MustParsePath("id"), Type: "string", ReadOnly: true},
	{Path: descriptor.MustParsePath("keyName"), Type: "string", Required: true, Enum: []string{"key1", "key2"}},
	{Path: descriptor.MustParsePath("labels"), Type: "object"},
	{Path: descriptor.MustParsePath("labels.*"), Type: "integer"},
	{Path: descriptor.MustParsePath("mode"), Type: "string", Enum: []string{"Soft"}, EnumOpen: true},
	{Path: descriptor.MustParsePath("ranges"), Type: "array"},
	{Path: descriptor.MustParsePath("ranges[*]"), Type: "object"},
	{Path: descriptor.MustParsePath("ranges[*].end"), Type: "string", Required: true},
	{Path: descriptor.MustParsePath("ranges[*].start"), Type: "string"},
	{Path: descriptor.MustParsePath("size"), Type: "number"},
}}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		body   *descriptor.Body
		json   string // "" for no body
		want   []string
	}{
		"Valid": {reason: "every member fits; an open object and an open enum take anything; a null member is left out",
			body: regen, json: `{"keyName":"key1","extra":{"a":[1]},"mode":"Hard","labels":{"a":1,"b":2},"ranges":[{"end":"z","start":null}],"size":1.5,"expiry":"2025-01-02T03:04:05Z"}`},
		"NoBody":   {reason: "a required body", body: regen, want: []string{"(body): required"}},
		"Required": {reason: "a missing required member, also inside array items", body: regen, json: `{"ranges":[{"start":"a"},{"end":"b"}]}`, want: []string{"keyName: required", "ranges[0].end: required"}},
		"Enum":     {reason: "a closed enum", body: regen, json: `{"keyName":"key3"}`, want: []string{"keyName: unsupported value key3: supported values: key1, key2"}},
		"Types": {reason: "wrong JSON types, a map value, a non-integer, a bad date-time",
			body: regen, json: `{"keyName":1,"labels":{"a":"x","b":1.5},"ranges":{},"size":"big","expiry":"tomorrow"}`,
			want: []string{"expiry: must be of type string (RFC 3339 date-time)", "keyName: must be of type string", "labels.a: must be of type integer", "labels.b: must be of type integer", "ranges: must be of type array", "size: must be of type number"}},
		"Unknown":   {reason: "a member the schema does not list", body: regen, json: `{"keyName":"key1","keyname":"x"}`, want: []string{"keyname: not a member of the schema"}},
		"ReadOnly":  {reason: "a value the service sets", body: regen, json: `{"keyName":"key1","id":"x"}`, want: []string{"id: read-only, set by Azure"}},
		"NilBody":   {reason: "an action without a body schema takes no body", json: `{}`, want: []string{"(body): not a member of the schema"}},
		"NilNoBody": {reason: "and no body is fine", json: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var v any
			if tc.json != "" {
				if err := json.Unmarshal([]byte(tc.json), &v); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, p := range tc.body.Validate(v) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestValidateQuery(t *testing.T) {
	fields := []descriptor.Field{
		{Path: descriptor.MustParsePath("failoverType"), Type: "string", Enum: []string{"Planned"}},
		{Path: descriptor.MustParsePath("minutes"), Type: "integer", Required: true},
		{Path: descriptor.MustParsePath("skip"), Type: "boolean"},
	}
	cases := map[string]struct {
		q    map[string]string
		want []string
	}{
		"Valid":   {q: map[string]string{"minutes": "5", "skip": "true", "failoverType": "Planned"}},
		"Missing": {q: map[string]string{}, want: []string{"minutes: required"}},
		"Bad": {q: map[string]string{"minutes": "1.5", "skip": "maybe", "failoverType": "Unplanned", "other": "x"},
			want: []string{"failoverType: unsupported value Unplanned: supported values: Planned", "minutes: must be of type integer", "other: not a member of the schema", "skip: must be of type boolean"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range descriptor.ValidateQuery(fields, tc.q) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
