package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of Action.
	GroupVersion = schema.GroupVersion{Group: "actions.azure.armature.dev", Version: "v1alpha1"}

	// SchemeBuilder registers Action and ActionList.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(&Action{}, &ActionList{})
}
