package fakearm

import (
	"testing"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestCleanMatchesARM: member names match the table without regard to
// case, envelope members a type lacks are ignored, other unknown members
// are refused and readOnly ones dropped.
func TestCleanMatchesARM(t *testing.T) {
	d := &descriptor.Descriptor{ARMType: "Microsoft.Fabrikam/things", Properties: []descriptor.Property{
		{Path: descriptor.Path{"properties"}, Class: descriptor.Writable, Type: "object"},
		{Path: descriptor.Path{"properties", "minimumTtl"}, Class: descriptor.Writable, Type: "integer"},
		{Path: descriptor.Path{"properties", "state"}, Class: descriptor.ReadOnly, Type: "string"},
	}}
	body := map[string]any{"location": "westus2", "name": "x", "properties": map[string]any{"minimumTTL": 300.0, "state": "Ready"}}
	if err := clean(d, body); err != nil {
		t.Fatalf("clean: %v", err)
	}
	props := body["properties"].(map[string]any)
	if props["minimumTtl"] != 300.0 || props["minimumTTL"] != nil {
		t.Errorf("minimumTTL is not renamed to the table's minimumTtl: %v", props)
	}
	if _, ok := props["state"]; ok {
		t.Errorf("readOnly state kept: %v", props)
	}
	if _, ok := body["location"]; ok {
		t.Errorf("location, which the type lacks, kept: %v", body)
	}
	if err := clean(d, map[string]any{"properties": map[string]any{"colour": "red"}}); err == nil {
		t.Error("an unknown member is accepted")
	}
}
