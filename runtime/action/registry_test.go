package action_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/action"
	"github.com/armature-dev/armature/runtime/descriptor"
)

const account = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/media01"

func params(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

func TestValidate(t *testing.T) {
	reg := action.NewRegistry(apis.Descriptors())
	sa := v1alpha1.ActionTarget{Kind: "StorageAccount", Name: "media"}
	cases := map[string]struct {
		reason string
		spec   v1alpha1.ActionSpec
		want   []string
	}{
		"Valid": {reason: "regenerateKey with its body",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "regenerateKey", Parameters: params(`{"keyName":"key1"}`)}},
		"ValidARMID": {reason: "a target by ARM id; a query parameter in its enum",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{ARMID: account}, Action: "failover", Query: map[string]string{"failoverType": "Planned"}}},
		"UnknownAction": {reason: "the valid actions are listed",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "rotate"},
			want: []string{`spec.action: Unsupported value: "rotate": supported values: "ListAccountSas", "ListServiceSas", "aborthnsonmigration", "failover", "hnsonmigration", "listKeys", "regenerateKey", "restoreBlobRanges", "revokeUserDelegationKeys", "startAccountMigration"`}},
		"MissingBody": {reason: "a required body",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "regenerateKey"},
			want: []string{"spec.parameters: Required value: regenerateKey needs a request body (StorageAccountRegenerateKeyParameters)"}},
		"MissingMember": {reason: "a required member, named by its path",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "regenerateKey", Parameters: params(`{}`)},
			want: []string{"spec.parameters.keyName: Required value"}},
		"EnumAndUnknown": {reason: "a value outside a closed enum, and a member the schema does not have",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{Kind: "Redis", Name: "cache"}, Action: "regenerateKey", Parameters: params(`{"keyType":"Tertiary","force":true}`)},
			want: []string{
				`spec.parameters.force: Forbidden: unknown field: the request body of regenerateKey (RedisRegenerateKeyParameters) has no such member`,
				`spec.parameters.keyType: Unsupported value: "Tertiary": supported values: "Primary", "Secondary"`,
			}},
		"NestedType": {reason: "array items are named by index",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "restoreBlobRanges", Parameters: params(`{"timeToRestore":"2025-01-01T00:00:00Z","blobRanges":[{"startRange":"a","endRange":5}]}`)},
			want: []string{`spec.parameters.blobRanges[0].endRange: Invalid value: 5: must be of type string`}},
		"NoBodyAction": {reason: "an action without a request body",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "listKeys", Parameters: params(`{"a":1}`)},
			want: []string{"spec.parameters: Forbidden: listKeys of StorageAccount takes no request body"}},
		"Query": {reason: "query parameters are checked by name",
			spec: v1alpha1.ActionSpec{Target: sa, Action: "failover", Query: map[string]string{"failoverType": "Forced", "x": "1"}},
			want: []string{
				`spec.query[failoverType]: Unsupported value: "Forced": supported values: "Planned"`,
				`spec.query[x]: Forbidden: unknown query parameter of failover (it has: failoverType)`,
			}},
		"UnknownKind": {reason: "a kind that is not generated",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{Kind: "Bucket", Name: "b"}, Action: "regenerateKey"},
			want: []string{`spec.target.kind: Invalid value: "Bucket": is not a kind this operator runs (armature inspect lists the generated kinds)`}},
		"WrongGroup": {reason: "a group that does not have the kind",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{Group: "cache.azure.armature.dev", Kind: "StorageAccount", Name: "b"}, Action: "listKeys"},
			want: []string{`spec.target.group: Unsupported value: "cache.azure.armature.dev": supported values: "storage.azure.armature.dev"`}},
		"UnknownARMType": {reason: "an ARM id of a type that is not generated",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Batch/batchAccounts/w"}, Action: "restart"},
			want: []string{`spec.target.armId: Invalid value: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Batch/batchAccounts/w": names no resource type this operator runs (the id must have the shape of a generated kind's ARM path)`}},
		"SecretInPlain": {reason: "a secret request value must come from a Secret",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{Kind: "VirtualMachine", Name: "vm"}, Action: "reimage", Parameters: params(`{"osProfile":{"adminPassword":"hunter2"}}`)},
			want: []string{"spec.parameters.osProfile.adminPassword: Forbidden: is a secret: give it in spec.secretParameters as a Secret key reference, not in the Action (the value given is not shown)"}},
		"SecretParameter": {reason: "a secret parameter at a path of the body is fine; one elsewhere is not",
			spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{Kind: "VirtualMachine", Name: "vm"}, Action: "reimage", SecretParameters: []v1alpha1.SecretParameter{
				{Path: "osProfile.adminPassword", SecretKeyRef: v1alpha1.SecretKeySelector{Name: "s", Key: "k"}},
				{Path: "osProfile.nope", SecretKeyRef: v1alpha1.SecretKeySelector{Name: "s", Key: "k"}},
			}},
			want: []string{
				`spec.secretParameters[1].path: Invalid value: "osProfile.nope": is not a member of the request body of reimage`,
				`spec.parameters.osProfile.nope: Forbidden: unknown field: the request body of reimage (VirtualMachineReimageParameters) has no such member`,
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, errs := reg.Validate(&tc.spec)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
			if strings.Contains(strings.Join(got, " "), "hunter2") {
				t.Error("a secret value is never shown")
			}
		})
	}
}

func TestPlanFor(t *testing.T) {
	reg := action.NewRegistry(apis.Descriptors())
	a := &v1alpha1.Action{Spec: v1alpha1.ActionSpec{Target: v1alpha1.ActionTarget{Kind: "VirtualMachine", Name: "vm"}, Action: "reimage",
		Parameters:       params(`{"tempDisk":true}`),
		SecretParameters: []v1alpha1.SecretParameter{{Path: "osProfile.adminPassword", SecretKeyRef: v1alpha1.SecretKeySelector{Name: "vm-admin", Key: "password"}}}}}
	a.Namespace = "team-a"
	p, errs := reg.PlanFor(a, "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := &action.Plan{Method: "POST", Path: "{status.id of VirtualMachine team-a/vm}/reimage", APIVersion: "2024-03-01", LongRunning: true,
		Body: map[string]any{"tempDisk": true, "osProfile": map[string]any{"adminPassword": "<from Secret vm-admin, key password>"}}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p, _ = reg.PlanFor(a, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm")
	if got := p.URL(); got != "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm/reimage?api-version=2024-03-01" {
		t.Errorf("URL = %s", got)
	}
	a.Spec.Action = "nope"
	if _, errs := reg.PlanFor(a, ""); len(errs) != 1 {
		t.Errorf("a plan checks the spec first: %v", errs)
	}
}

func TestRegistryPrefersTheStorageVersion(t *testing.T) {
	ds := apis.Descriptors()
	// Put every non-storage version first: the registry still picks the
	// storage version of each kind.
	var reordered = append([]*descriptor.Descriptor(nil), ds...)
	sort.SliceStable(reordered, func(i, j int) bool { return !reordered[i].IsStorage() && reordered[j].IsStorage() })
	reg := action.NewRegistry(reordered)
	multi := false
	for _, d := range ds {
		multi = multi || !d.IsStorage()
	}
	if !multi {
		t.Skip("no kind is generated at several versions")
	}
	kinds := map[string]bool{}
	for _, d := range reg.Descriptors() {
		if !d.IsStorage() {
			t.Errorf("%s %s: not the storage version %s", d.Kind, d.Version, d.StorageVersion)
		}
		if kinds[d.Group+"/"+d.Kind] {
			t.Errorf("%s twice", d.Kind)
		}
		kinds[d.Group+"/"+d.Kind] = true
	}
	d, ferr := reg.ForTarget(v1alpha1.ActionTarget{ARMID: account})
	if ferr != nil || !d.IsStorage() {
		t.Errorf("by ARM id: %v %v", d, ferr)
	}
}
