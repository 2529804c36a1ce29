package v1alpha1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
)

func TestDeepCopyIsDeep(t *testing.T) {
	now := metav1.Now()
	a := &v1alpha1.Action{
		ObjectMeta: metav1.ObjectMeta{Name: "rotate", Namespace: "team-a"},
		Spec: v1alpha1.ActionSpec{
			Target:           v1alpha1.ActionTarget{Kind: "StorageAccount", Name: "media"},
			Action:           "regenerateKey",
			Parameters:       &apiextensionsv1.JSON{Raw: []byte(`{"keyName":"key1"}`)},
			Query:            map[string]string{"a": "b"},
			SecretParameters: []v1alpha1.SecretParameter{{Path: "p", SecretKeyRef: v1alpha1.SecretKeySelector{Name: "s", Key: "k"}}},
			ResultSecret:     &v1alpha1.ResultReference{Name: "media-keys"},
		},
		Status: v1alpha1.ActionStatus{Phase: v1alpha1.PhaseRunning, SentAt: &now, Operation: &v1alpha1.ActionOperation{ResumeToken: "t"},
			Conditions: []metav1.Condition{{Type: "Ready"}}, SecretKeys: []string{"keys.0.value"}},
	}
	want := a.DeepCopy()
	var obj runtime.Object = a.DeepCopyObject()
	c := obj.(*v1alpha1.Action)
	c.Spec.Parameters.Raw[2] = 'X'
	c.Spec.Query["a"] = "changed"
	c.Spec.SecretParameters[0].Path = "changed"
	c.Spec.ResultSecret.Name = "changed"
	c.Status.Operation.ResumeToken = "changed"
	c.Status.Conditions[0].Type = "changed"
	c.Status.SecretKeys[0] = "changed"
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}
	list := &v1alpha1.ActionList{Items: []v1alpha1.Action{*a}}
	lc := list.DeepCopyObject().(*v1alpha1.ActionList)
	lc.Items[0].Spec.Action = "changed"
	if list.Items[0].Spec.Action != "regenerateKey" {
		t.Error("ActionList copies are deep")
	}
}

func TestSchemeRegistration(t *testing.T) {
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gvks, _, err := s.ObjectKinds(&v1alpha1.Action{})
	if err != nil || len(gvks) != 1 || gvks[0].String() != "actions.azure.armature.dev/v1alpha1, Kind=Action" {
		t.Errorf("ObjectKinds = %v, %v", gvks, err)
	}
}
