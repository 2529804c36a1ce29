package operator

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generated/apis"
)

func TestBindFlagsDefaultsAndEnvironment(t *testing.T) {
	t.Setenv("ARMATURE_ARM_ENDPOINT", "https://127.0.0.1:8443")
	t.Setenv("ARMATURE_WATCH_NAMESPACES", "team-a, team-b")
	var c Config
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--sync-period=5m"}); err != nil {
		t.Fatal(err)
	}
	if c.ARMEndpoint != "https://127.0.0.1:8443" || c.Reconciler.SyncPeriod != 5*time.Minute || c.Reconciler.WorkersPerKind != 4 {
		t.Errorf("config %+v", c)
	}
	if diff := cmp.Diff([]string{"team-a", "team-b"}, c.WatchNamespaces); diff != "" {
		t.Errorf("namespaces (-want +got):\n%s", diff)
	}
}

func TestSelected(t *testing.T) {
	c := Config{Kinds: "storage.*/StorageAccount, resources.*/*"}
	got, err := c.Selected(apis.Descriptors())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range got {
		kinds = append(kinds, d.Kind+"/"+d.Version)
	}
	// Every served version of a selected kind is selected.
	if diff := cmp.Diff([]string{"Deployment/v20240301", "ResourceGroup/v20240301", "StorageAccount/v20230501", "StorageAccount/v20230101"}, kinds); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := (&Config{Kinds: "["}).Selected(apis.Descriptors()); err == nil {
		t.Error("a bad pattern is an error")
	}
}

func TestPreferredVersionsFlag(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--preferred-versions", "storage.azure.armature.dev=v20230101, keyvault.azure.armature.dev=v20230701"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"storage.azure.armature.dev": "v20230101", "keyvault.azure.armature.dev": "v20230701"}
	if diff := cmp.Diff(want, c.Reconciler.PreferredVersions); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := fs.Parse([]string{"--preferred-versions", "storage"}); err == nil || !strings.Contains(err.Error(), "is not group=version") {
		t.Errorf("a value without = must be refused: %v", err)
	}
}
