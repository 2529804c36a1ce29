package webhook_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
	"github.com/armature-dev/armature/webhook"
)

// A registry built from generated Descriptors refuses a change of a
// create-only field; a custom rule adds its own errors.
func Example() {
	reg := webhook.New(storage.Descriptors())
	gvk := storage.StorageAccountDescriptor.GroupVersionKind()
	reg.RegisterValidator(gvk, func(_ context.Context, a webhook.Attributes) field.ErrorList {
		if a.Object.GetNamespace() == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "StorageAccounts live in a namespace")}
		}
		return nil
	})

	old := `{"metadata":{"name":"media","namespace":"team-a"},"spec":{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}}`
	cur := `{"metadata":{"name":"media","namespace":"team-a"},"spec":{"location":"northeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}}`
	resp := reg.ValidatingHandler().Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Kind:      metav1.GroupVersionKind(gvk),
		Operation: admissionv1.Update,
		Object:    runtime.RawExtension{Raw: []byte(cur)},
		OldObject: runtime.RawExtension{Raw: []byte(old)},
	}})
	fmt.Println(resp.Allowed)
	fmt.Println(resp.Result.Message)
	// Output:
	// false
	// spec.location: Forbidden: field is create-only (was "westeurope", now "northeurope"); delete and recreate the resource to change it
}
