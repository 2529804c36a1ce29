package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator/facts"
)

func TestAgreement(t *testing.T) {
	ft := &facts.Table{}
	if err := ft.Add(&facts.File{Resources: []facts.Resource{{
		Resource: "azurerm_widget", ARMType: "Microsoft.Shop/widgets", File: "w.go",
		Facts: []facts.Fact{
			{Attribute: "location", Path: "location", Fact: facts.ForceNew, Line: 1},
			{Attribute: "size", Path: "properties.size", Fact: facts.ForceNew, Line: 2},
			{Attribute: "tags", Path: "tags", Fact: facts.Updatable, Line: 3},
		},
	}}}); err != nil {
		t.Fatal(err)
	}
	rep := &Report{Resources: []Resource{{ARMType: "Microsoft.Shop/widgets", Properties: map[string]string{
		"location": "createOnly", "properties.size": "writable", "tags": "writable",
	}}}}
	var b bytes.Buffer
	if err := Agreement(&b, ft, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Microsoft.Shop       3      2  66.7",
		"Microsoft.Shop/widgets properties.size: writable, facts say createOnly: azurerm_widget.size ForceNew (w.go:2)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
