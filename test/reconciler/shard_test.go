package reconciler_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
	op "github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestShards: two operators split one namespace by the armature.dev/shard
// label, each against an emulator of its own: each creates exactly its
// shard's resources. A third, with --shard=-, takes the unlabelled ones.
func TestShards(t *testing.T) {
	ns := namespace(t)
	arms := map[string]*fakearm.Running{}
	for _, shard := range []string{"a", "b", "-"} {
		fa := startARM(t, 1)
		arms[shard] = fa
		ca := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(ca, fa.CertPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			defer func() {
				if err := <-done; err != nil {
					t.Errorf("shard %s: %v", shard, err)
				}
				done <- nil
			}()
			done <- op.Run(ctx, restCfg, op.Config{
				Reconciler:  reconciler.Config{SubscriptionID: subscription, PollInterval: 50 * time.Millisecond},
				ARMEndpoint: fa.URL, ARMCAFile: ca, ARMToken: "t", WatchNamespaces: []string{ns},
				MetricsAddr: "0", ProbeAddr: "0", Shard: shard, SkipNameValidation: true,
				DefaultCredentialNamespaces: []string{ns},
			})
		}()
		t.Cleanup(func() { cancel(); <-done })
	}
	label := func(o interface{ SetLabels(map[string]string) }, shard string) {
		if shard != "-" {
			o.SetLabels(map[string]string{op.ShardLabel: shard})
		}
	}
	for _, shard := range []string{"a", "b", "-"} {
		g := "shard" + strings.Trim(shard, "-")
		if shard == "-" {
			g = "shardnone"
		}
		rg := resourceGroup(ns, g)
		label(rg, shard)
		sa := storageAccount(ns, g+"sa", g)
		label(sa, shard)
		create(t, rg, sa)
		waitReady(t, rg, sa)
	}
	for shard, fa := range arms {
		var ids []string
		for _, id := range fa.ResourceIDs() {
			ids = append(ids, id[strings.LastIndex(id, "/")+1:])
		}
		want := map[string]string{"a": "sharda,shardasa", "b": "shardb,shardbsa", "-": "shardnone,shardnonesa"}[shard]
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("shard %s created %s in its Azure, want %s", shard, got, want)
		}
	}
}
