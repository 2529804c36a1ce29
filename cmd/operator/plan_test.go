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

func TestPlanAction(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sample := filepath.Join("..", "..", "api", "actions", "samples", "regeneratekey.yaml")
	failover := write("failover.yaml", `apiVersion: actions.azure.armature.dev/v1alpha1
kind: Action
metadata: {name: fo, namespace: team-a}
spec:
  target: {armId: /subscriptions/s1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media01}
  action: failover
  query: {failoverType: Planned}
`)
	bad := write("bad.yaml", `apiVersion: actions.azure.armature.dev/v1alpha1
kind: Action
metadata: {name: bad, namespace: team-a}
spec:
  target: {kind: StorageAccount, name: media}
  action: regenerateKey
  parameters: {keyName: 1}
`)
	cases := map[string]struct {
		args    []string
		want    []string
		wantErr string
	}{
		"Sample": {args: []string{"-f", sample, "--target-id", "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media01"},
			want: []string{"Action/media-rotate-key1-2025-06: POST /subscriptions/s1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media01/regenerateKey?api-version=2023-05-01", `"keyName": "key1"`}},
		"Placeholder": {args: []string{"-f", sample}, want: []string{"POST {status.id of StorageAccount team-a/media}/regenerateKey?api-version=2023-05-01"}},
		"LongRunning": {args: []string{"-f", failover},
			want: []string{"Action/fo: POST /subscriptions/s1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media01/failover?api-version=2023-05-01&failoverType=Planned (long-running: polled to its end)", "(no body)"}},
		"Invalid": {args: []string{"-f", bad}, wantErr: "spec.parameters.keyName: Invalid value: 1: must be of type string"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := plan(append(tc.args, "--arm-endpoint", "https://127.0.0.1:1"), &out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestPlanDelete: plan --delete prints the DELETE order of a file's
// objects deleted together, with the generated kinds' references and
// owners, reading nothing (no ARM flags).
func TestPlanDelete(t *testing.T) {
	cr := filepath.Join(t.TempDir(), "stack.yaml")
	if err := os.WriteFile(cr, []byte(`apiVersion: network.azure.armature.dev/v20240101
kind: VirtualNetwork
metadata: {name: vnet}
spec: {owner: {name: rg}, location: westeurope}
---
apiVersion: network.azure.armature.dev/v20240101
kind: VirtualNetworksSubnet
metadata: {name: app}
spec: {owner: {name: vnet}, properties: {addressPrefix: 10.0.0.0/24}}
---
apiVersion: network.azure.armature.dev/v20240101
kind: NetworkInterface
metadata: {name: nic}
spec:
  owner: {name: rg}
  location: westeurope
  properties:
    ipConfigurations:
      - name: primary
        properties: {subnet: {idRef: {kind: VirtualNetworksSubnet, name: app}}}
---
apiVersion: resources.azure.armature.dev/v20240301
kind: ResourceGroup
metadata: {name: rg}
spec: {location: westeurope}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := plan([]string{"-f", cr, "--delete"}, &out); err != nil {
		t.Fatal(err)
	}
	want := `1. NetworkInterface/nic
2. VirtualNetworksSubnet/app (after NetworkInterface nic)
3. VirtualNetwork/vnet (after VirtualNetworksSubnet app)
4. ResourceGroup/rg (after NetworkInterface nic, VirtualNetwork vnet)
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
