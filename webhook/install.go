package webhook

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InstallConfigurations creates the given webhook configurations (built by
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration), or
// replaces the ones of the same name. It is for local and development
// servers; in a cluster the configurations are deployed with the operator.
func InstallConfigurations(ctx context.Context, c client.Client, objs ...client.Object) error {
	for _, obj := range objs {
		existing, ok := obj.DeepCopyObject().(client.Object)
		if !ok {
			return fmt.Errorf("install %T: not a client.Object", obj)
		}
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing)
		switch {
		case apierrors.IsNotFound(err):
			if err := c.Create(ctx, obj); err != nil {
				return fmt.Errorf("create %s: %w", obj.GetName(), err)
			}
		case err != nil:
			return fmt.Errorf("get %s: %w", obj.GetName(), err)
		default:
			obj.SetResourceVersion(existing.GetResourceVersion())
			if err := c.Update(ctx, obj); err != nil {
				return fmt.Errorf("update %s: %w", obj.GetName(), err)
			}
		}
	}
	return nil
}
