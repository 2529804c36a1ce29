package sweep

import (
	"strings"
	"testing"
)

func TestCheckCRD(t *testing.T) {
	cases := map[string]struct {
		reason, file, want string
	}{
		"Good": {reason: "a create-only rule on a typed field compiles", file: "testdata/crds/good.yaml"},
		"RuleOnOpenField": {reason: "a rule on a free-form field (no type, unknown fields kept: a policy assignment's metadata) does not compile: CEL does not know it",
			file: "testdata/crds/open.yaml", want: "the apiserver refuses the CRD: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: a CEL rule does not compile: ERROR: <input>:1:9: undefined field 'settings'"},
		"Missing": {reason: "a file that is not there", file: "testdata/crds/absent.yaml", want: "no such file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := checkCRD(tc.file); err != nil {
				got = err.Error()
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("%s: checkCRD = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
