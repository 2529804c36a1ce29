package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/internal/stack"
)

// startARM starts the ARM emulator, its CA in the temporary folder where
// the operator reads it (--arm-ca-file).
func startARM() (*stack.ARM, error) {
	ca := filepath.Join(os.TempDir(), fmt.Sprintf("armature-demo-ca-%d.pem", os.Getpid()))
	return stack.StartARM(fakearm.Options{LROPolls: 2, RetryAfter: -1}, ca)
}

// newClient is a client of the demo's kinds; it creates namespace ns.
func newClient(ctx context.Context, restCfg *rest.Config, ns string) (client.Client, error) {
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = apis.AddToScheme(scheme)
	k8s, err := client.New(restCfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return nil, err
	}
	return k8s, nil
}
