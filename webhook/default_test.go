package webhook

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	storage "github.com/armature-dev/armature/generated/apis/storage/v20230501"
)

// TestDefault runs the defaulting handler and compares its JSON patch.
func TestDefault(t *testing.T) {
	blobService := storage.StorageAccountsBlobServiceDescriptor.GroupVersionKind()
	// Every create gets the reconciler's finalizer when its policy needs one.
	fin := jsonpatch.JsonPatchOperation{Operation: "add", Path: "/metadata/finalizers", Value: []any{"armature.dev/finalizer"}}
	type args struct {
		gvk     schema.GroupVersionKind
		fixture string
		// old, when set, makes the request an update from old to fixture.
		old  string
		opts []Option
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []jsonpatch.JsonPatchOperation
	}{
		"AzureNameFromMetadataName": {
			reason: "a create without azureName gets metadata.name",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"media"},"spec":{"location":"westeurope"}}`},
			want:   []jsonpatch.JsonPatchOperation{fin, {Operation: "add", Path: "/spec/azureName", Value: "media"}},
		},
		"AzureNameKept": {
			reason: "a given azureName is not touched",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"media"},"spec":{"azureName":"mediaprod01"}}`},
			want:   []jsonpatch.JsonPatchOperation{fin},
		},
		"FinalizerAppended": {
			reason: "the finalizer is appended to the object's own",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"m","finalizers":["team/keep"]},"spec":{"azureName":"m"}}`},
			want:   []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/metadata/finalizers/-", Value: "armature.dev/finalizer"}},
		},
		"FinalizerPresent": {
			reason: "an object that has the finalizer gets none",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"m","finalizers":["armature.dev/finalizer"]},"spec":{"azureName":"m"}}`},
		},
		"FinalizerDetachOnDelete": {
			reason: "detach-on-delete writes to Azure: it needs the finalizer",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"m","annotations":{"armature.dev/reconcile-policy":"detach-on-delete"}},"spec":{"azureName":"m"}}`},
			want:   []jsonpatch.JsonPatchOperation{fin},
		},
		"NoFinalizerSkip": {
			reason: "the skip policy never writes to Azure: no finalizer",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"m","annotations":{"armature.dev/reconcile-policy":"skip"}},"spec":{"azureName":"m"}}`},
		},
		"NoFinalizerUnknownPolicy": {
			reason: "an unknown policy never means manage: no finalizer",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"m","annotations":{"armature.dev/reconcile-policy":"Manage"}},"spec":{"azureName":"m"}}`},
		},
		"NoSpec": {
			reason: "an object without spec gets one holding azureName",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"media"}}`},
			want:   []jsonpatch.JsonPatchOperation{fin, {Operation: "add", Path: "/spec", Value: map[string]any{"azureName": "media"}}},
		},
		"Singleton": {
			reason: "a singleton is always named by its fixed name",
			args:   args{gvk: blobService, fixture: `{"metadata":{"name":"media-blobs"},"spec":{"owner":{"name":"media"}}}`},
			want:   []jsonpatch.JsonPatchOperation{fin, {Operation: "add", Path: "/spec/azureName", Value: "default"}},
		},
		"UpdateKeepsStoredName": {
			reason: "an update that drops azureName keeps the stored one, not metadata.name",
			args: args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"media"},"spec":{"location":"westeurope"}}`,
				old: `{"metadata":{"name":"media"},"spec":{"azureName":"mediaprod01","location":"westeurope"}}`},
			want: []jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/azureName", Value: "mediaprod01"}},
		},
		"NumbersUntouched": {
			reason: "numbers survive decoding and encoding exactly: no spurious patch",
			args:   args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"m"},"spec":{"azureName":"m","x":{"big":9007199254740993,"f":1.50,"e":1e3}}}`},
			want:   []jsonpatch.JsonPatchOperation{fin},
		},
		"ConfiguredDefaults": {
			reason: "configured defaults fill absent paths, create parents, apply to every array item and leave set values",
			args: args{gvk: storageAccountGVK,
				fixture: `{"metadata":{"name":"m"},"spec":{"azureName":"m","kind":"BlobStorage","properties":{"networkAcls":{"ipRules":[{"value":"a"},{"value":"b","action":"Deny"}]}}}}`,
				opts: []Option{WithDefaults(storageAccountGVK, map[string]any{
					"kind":                                     "StorageV2",
					"properties.minimumTlsVersion":             "TLS1_2",
					"properties.encryption.keySource":          "Microsoft.Storage",
					"properties.networkAcls.ipRules[*].action": "Allow",
				})}},
			want: []jsonpatch.JsonPatchOperation{
				fin,
				{Operation: "add", Path: "/spec/properties/encryption", Value: map[string]any{"keySource": "Microsoft.Storage"}},
				{Operation: "add", Path: "/spec/properties/minimumTlsVersion", Value: "TLS1_2"},
				{Operation: "add", Path: "/spec/properties/networkAcls/ipRules/0/action", Value: "Allow"},
			},
		},
		"CustomHook": {
			reason: "a registered defaulter runs after azureName is set",
			args: args{gvk: storageAccountGVK, fixture: `{"metadata":{"name":"media"},"spec":{}}`,
				opts: []Option{WithDefaulter(storageAccountGVK, func(_ context.Context, a Attributes) error {
					name, _, _ := unstructuredString(a.Object.Object, "spec", "azureName")
					a.Object.Object["spec"].(map[string]any)["tags"] = map[string]any{"azureName": name}
					return nil
				})}},
			want: []jsonpatch.JsonPatchOperation{
				fin,
				{Operation: "add", Path: "/spec/azureName", Value: "media"},
				{Operation: "add", Path: "/spec/tags", Value: map[string]any{"azureName": "media"}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reg := New(allDescriptors(), tc.args.opts...)
			op := admissionv1.Create
			var old map[string]any
			if tc.args.old != "" {
				op, old = admissionv1.Update, object(t, tc.args.old)
			}
			req := request(t, op, tc.args.gvk, nil, old)
			req.Object.Raw = []byte(tc.args.fixture) // as sent: the patch must be against these bytes
			resp := reg.DefaultingHandler().Handle(context.Background(), req)
			if !resp.Allowed {
				t.Fatalf("%s: refused: %+v", tc.reason, resp.Result)
			}
			var got []jsonpatch.JsonPatchOperation
			got = append(got, resp.Patches...)
			sort.Slice(got, func(i, j int) bool { return got[i].Path < got[j].Path })
			if diff := cmp.Diff(jsonNormal(t, tc.want), jsonNormal(t, got)); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDefaulterError refuses the request when a hook fails.
func TestDefaulterError(t *testing.T) {
	reg := New(allDescriptors(), WithDefaulter(storageAccountGVK, func(context.Context, Attributes) error { return errors.New("boom") }))
	resp := reg.DefaultingHandler().Handle(context.Background(), request(t, admissionv1.Create, storageAccountGVK, object(t, storageAccountJSON), nil))
	got := struct {
		Allowed bool
		Code    int32
		Message string
	}{resp.Allowed, resp.Result.Code, resp.Result.Message}
	want := struct {
		Allowed bool
		Code    int32
		Message string
	}{false, http.StatusInternalServerError, "defaulting StorageAccount: boom"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}

// unstructuredString reads a nested string.
func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	var cur any = obj
	for _, p := range path {
		cur, _ = lookup(cur, p)
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// jsonNormal decodes v's JSON as the handlers do, so patch values compare
// by meaning.
func jsonNormal(t testing.TB, v any) any {
	t.Helper()
	out, err := normalise(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
