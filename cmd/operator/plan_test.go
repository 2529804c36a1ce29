package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
)

func TestPlanCommand(t *testing.T) {
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cr := filepath.Join(dir, "cr.yaml")
	if err := os.WriteFile(cr, []byte(`apiVersion: resources.azure.armature.dev/v20240301
kind: ResourceGroup
metadata: {name: team-a}
spec: {location: westeurope}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = plan([]string{"-f", cr, "--arm-endpoint", fa.URL, "--arm-ca-file", ca, "--scope", "/subscriptions/s1"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ResourceGroup/team-a: create (PUT /subscriptions/s1/resourceGroups/team-a)") || !strings.Contains(out.String(), `"location": "westeurope"`) {
		t.Errorf("output:\n%s", out.String())
	}
	if fa.Count("PUT") != 0 {
		t.Error("plan must not write")
	}
}
