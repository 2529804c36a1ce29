package sweep

import (
	"context"
	"fmt"
	"os"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

// checkCRD validates a CRD file as the apiserver validates a CRD it is
// asked to create (apiextensions' ValidateCustomResourceDefinition, after
// the create strategy's storedVersions): structural schema, CEL rules
// compiled and costed, names. It returns the first error, or nil.
func checkCRD(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var v1 apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &v1); err != nil {
		return err
	}
	var crd apiextensions.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		return err
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = []string{v.Name}
		}
	}
	errs := validation.ValidateCustomResourceDefinition(context.Background(), &crd)
	if len(errs) == 0 {
		return nil
	}
	first := errs[0].Error()
	if i := strings.Index(first, "compilation failed: "); i >= 0 {
		// The rule is long; its field and the compiler's first error say it.
		msg, _, _ := strings.Cut(first[i+len("compilation failed: "):], "\n")
		first = errs[0].Field + ": a CEL rule does not compile: " + msg
	}
	if len(errs) > 1 {
		first += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	return fmt.Errorf("the apiserver refuses the CRD: %s", first)
}
