package reconciler_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
)

// BenchmarkUnrelatedSecrets: the operator (its own process, every
// namespace) before and after 120 Secrets of 900 KiB that no object
// references appear in another namespace. Prints its resident memory at
// both times (make bench-secrets). With ARMATURE_BENCH_OPERATOR_BIN (and
// ARMATURE_BENCH_LEGACY_FLAGS=1 for a binary from before
// --default-credential-namespaces) it measures another build.
func BenchmarkUnrelatedSecrets(b *testing.B) {
	dir := b.TempDir()
	bin := os.Getenv("ARMATURE_BENCH_OPERATOR_BIN")
	if bin == "" {
		bin = buildOperator(b, dir)
	}
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1}})
	if err != nil {
		b.Fatal(err)
	}
	defer fa.Close()
	ns := benchNamespace(b, "secrets-bench")
	op := startOperatorProcess(b, bin, dir, fa, "", "--subscription-id", subscription)
	// One object converged: the operator's informers and its reads of
	// credential Secrets are running.
	rg := resourceGroup(ns, "secrets-bench")
	if err := k8s.Create(context.Background(), rg); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(rg.GroupVersionKind())
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(rg), cur); err == nil {
			if s, _, _ := readyReason(cur); s == "True" {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the resource group is not Ready; operator log:\n%s", op.tail())
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(5 * time.Second)
	before := op.rss()
	other := benchNamespace(b, "unrelated-secrets")
	payload := []byte(strings.Repeat("x", 900<<10))
	for i := range 120 {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: fmt.Sprintf("blob-%03d", i)}, Data: map[string][]byte{"blob": payload}}
		if err := k8s.Create(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(15 * time.Second)
	after, peak := op.rss(), op.peakRSS()
	fmt.Printf("unrelated-secrets: 120 Secrets of 900 KiB; operator RSS %.0f MiB before, %.0f MiB after (+%.0f MiB), peak %.0f MiB\n", before, after, after-before, peak)
	b.ReportMetric(before, "RSS-before-MiB")
	b.ReportMetric(after, "RSS-after-MiB")
}
