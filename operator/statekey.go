package operator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultStateKeySecret is the Secret, in the operator's namespace, that
// holds the key binding the reconciler's records to their objects
// (reconciler.Config.StateKey).
const DefaultStateKeySecret = "armature-state-key"

// stateKeyData is the Secret's key holding the state key.
const stateKeyData = "key"

const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// stateKeySecret is where the state key lives: the flag's namespace/name,
// a name in the operator's namespace, or DefaultStateKeySecret there; ok is
// false when the operator runs outside a pod and no namespace is given.
func stateKeySecret(flag string) (types.NamespacedName, bool) {
	if ns, name, found := strings.Cut(flag, "/"); found {
		return types.NamespacedName{Namespace: ns, Name: name}, ns != "" && name != ""
	}
	name := flag
	if name == "" {
		name = DefaultStateKeySecret
	}
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		if b, err := os.ReadFile(serviceAccountNamespaceFile); err == nil {
			ns = strings.TrimSpace(string(b))
		}
	}
	return types.NamespacedName{Namespace: ns, Name: name}, ns != ""
}

// loadStateKey reads the state key from its Secret, creating the Secret
// with a random key when it does not exist (the first start; replicas that
// race create it once and read the winner's).
func loadStateKey(ctx context.Context, restCfg *rest.Config, key types.NamespacedName) ([]byte, error) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		return nil, err
	}
	c, err := client.New(restCfg, client.Options{Scheme: s})
	if err != nil {
		return nil, err
	}
	for range 3 {
		var sec corev1.Secret
		err := c.Get(ctx, key, &sec)
		if err == nil {
			k := sec.Data[stateKeyData]
			if len(k) < 32 {
				return nil, fmt.Errorf("state key Secret %s: key %q has %d bytes, want at least 32 (delete the Secret to have a new one made; operations in flight are then re-observed)", key, stateKeyData, len(k))
			}
			return k, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("state key Secret %s: %w", key, err)
		}
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			return nil, err
		}
		sec = corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: map[string]string{"app.kubernetes.io/name": "armature"}},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{stateKeyData: k},
		}
		err = c.Create(ctx, &sec)
		if err == nil {
			return k, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create the state key Secret %s: %w", key, err)
		}
	}
	return nil, errors.New("state key Secret " + key.String() + ": created and deleted concurrently; try again")
}
