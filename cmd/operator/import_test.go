package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
)

func TestImportCommand(t *testing.T) {
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	rg := "/subscriptions/s1/resourceGroups/Apps"
	for _, p := range [][3]string{
		{rg, "2024-03-01", `{"location":"westeurope"}`},
		{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/web", "2023-01-31", `{"location":"westeurope"}`},
	} {
		if _, err := c.Put(context.Background(), p[0], p[1], []byte(p[2])); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	fa.ResetJournal()
	common := []string{"--arm-endpoint", fa.URL, "--arm-ca-file", ca, "--subscription", "s1"}
	out := filepath.Join(dir, "apps")
	var stdout, stderr bytes.Buffer
	if err := importGroup(append(common, "-g", "Apps", "--policy", "skip", "-o", out, "-n", "apps"), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"Imported 2 resources of 2 kinds from " + rg, "  UserAssignedIdentity 1", "Wrote 3 files to " + out} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "found UserAssignedIdentity "+rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/web") {
		t.Errorf("progress (not a terminal: plain lines):\n%s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "managedidentity_userassignedidentity_web.yaml"))
	if err != nil || !strings.Contains(string(b), "armature.dev/reconcile-policy: skip") {
		t.Errorf("the identity's file (%v):\n%s", err, b)
	}
	if n := fa.Count("PUT") + fa.Count("PATCH") + fa.Count("DELETE") + fa.Count("POST"); n != 0 {
		t.Errorf("import wrote to ARM %d times", n)
	}

	for args, want := range map[string]string{
		"--policy plan -g Apps": `--policy "plan"`,
		"--subscription s1":     "--resource-group is required",
		"-g Nope":               "resource group Nope does not exist (/subscriptions/s1/resourceGroups/Nope)",
	} {
		err := importGroup(append(append([]string{}, common...), strings.Fields(args)...), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
}
