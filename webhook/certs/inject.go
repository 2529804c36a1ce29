package certs

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The kinds whose caBundle is managed.
var (
	validatingGVK = schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}
	mutatingGVK   = schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"}
	crdGVK        = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
)

// fieldOwner is the field manager of every write here.
const fieldOwner = "armature-webhook-certs"

// inject sets bundle as the caBundle of the webhook configurations and of
// the labelled CRDs converting through a webhook, writing only what
// differs. A configuration that does not exist is skipped (the operator
// may run without one); every other failure is returned, after trying the
// rest. It reports how many objects it updated.
func (m *Manager) inject(ctx context.Context, bundle []byte) (int, error) {
	updated := 0
	var errs []error
	write := func(gvk schema.GroupVersionKind, name string, set func(*unstructured.Unstructured, []byte) (bool, error)) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := m.reader.Get(ctx, client.ObjectKey{Name: name}, u); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("get %s %s: %w", gvk.Kind, name, err))
			}
			return
		}
		changed, err := set(u, bundle)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", gvk.Kind, name, err))
			return
		}
		if !changed {
			return
		}
		if err := m.client.Update(ctx, u, client.FieldOwner(fieldOwner)); err != nil {
			errs = append(errs, fmt.Errorf("set the caBundle of %s %s: %w", gvk.Kind, name, err))
			return
		}
		updated++
	}
	for _, c := range []struct {
		gvk  schema.GroupVersionKind
		name string
	}{{validatingGVK, m.opts.ValidatingConfiguration}, {mutatingGVK, m.opts.MutatingConfiguration}} {
		write(c.gvk, c.name, setWebhooksCABundle)
	}
	crds := &metav1.PartialObjectMetadataList{}
	crds.SetGroupVersionKind(crdGVK.GroupVersion().WithKind(crdGVK.Kind + "List"))
	if err := m.cache.List(ctx, crds); err != nil {
		errs = append(errs, fmt.Errorf("list the CRDs labelled %s=%s: %w", ConversionLabel, ConversionLabelValue, err))
	}
	for _, crd := range crds.Items {
		write(crdGVK, crd.Name, setConversionCABundle)
	}
	return updated, errors.Join(errs...)
}

// setWebhooksCABundle sets caBundle on every webhook of a validating or
// mutating webhook configuration, reporting whether anything changed.
func setWebhooksCABundle(u *unstructured.Unstructured, bundle []byte) (bool, error) {
	hooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
	if err != nil {
		return false, err
	}
	changed := false
	for i, h := range hooks {
		hook, ok := h.(map[string]any)
		if !ok {
			return false, fmt.Errorf("webhooks[%d] is not an object", i)
		}
		c, err := setCABundle(hook, bundle, "clientConfig")
		if err != nil {
			return false, fmt.Errorf("webhooks[%d]: %w", i, err)
		}
		changed = changed || c
	}
	if !changed {
		return false, nil
	}
	return true, unstructured.SetNestedSlice(u.Object, hooks, "webhooks")
}

// setConversionCABundle sets the caBundle of a CRD's conversion webhook.
// A CRD that does not convert through a webhook is left alone: the CA
// cannot be set without the webhook.
func setConversionCABundle(u *unstructured.Unstructured, bundle []byte) (bool, error) {
	if s, _, _ := unstructured.NestedString(u.Object, "spec", "conversion", "strategy"); s != "Webhook" {
		return false, nil
	}
	return setCABundle(u.Object, bundle, "spec", "conversion", "webhook", "clientConfig")
}

// setCABundle sets caBundle (base64, as JSON holds bytes) in the client
// config at path under obj, which must exist.
func setCABundle(obj map[string]any, bundle []byte, path ...string) (bool, error) {
	cc, found, err := unstructured.NestedMap(obj, path...)
	if err != nil {
		return false, err
	}
	if !found {
		return false, fmt.Errorf("no %v", path)
	}
	cur, _ := cc["caBundle"].(string)
	if old, err := base64.StdEncoding.DecodeString(cur); err == nil && bytes.Equal(old, bundle) {
		return false, nil
	}
	return true, unstructured.SetNestedField(obj, base64.StdEncoding.EncodeToString(bundle), append(path, "caBundle")...)
}
