package webhook

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// outcome is what a test compares of a response.
type outcome struct {
	Allowed bool
	Code    int32
	Message string
}

func outcomeOf(r admission.Response) outcome {
	o := outcome{Allowed: r.Allowed}
	if r.Result != nil {
		o.Code, o.Message = r.Result.Code, r.Result.Message
	}
	return o
}

// TestHandlersRequests covers what both handlers do before any check:
// operations they ignore, bodies that do not decode, kinds not served.
func TestHandlersRequests(t *testing.T) {
	reg := New(allDescriptors())
	unknown := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	sa := object(t, storageAccountJSON)
	cases := map[string]struct {
		reason string
		req    func(t *testing.T) admission.Request
		want   outcome
	}{
		"Delete": {
			reason: "deletes are not checked",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Delete, storageAccountGVK, nil, sa)
			},
			want: outcome{Allowed: true, Code: 200},
		},
		"BadJSON": {
			reason: "a body that does not decode is a 400",
			req: func(t *testing.T) admission.Request {
				r := request(t, admissionv1.Create, storageAccountGVK, sa, nil)
				r.Object.Raw = []byte(`{"spec":`)
				return r
			},
			want: outcome{Code: 400, Message: "object: decode JSON: unexpected EOF"},
		},
		"NotAnObject": {
			reason: "a body that is not an object is a 400",
			req: func(t *testing.T) admission.Request {
				r := request(t, admissionv1.Create, storageAccountGVK, sa, nil)
				r.Object.Raw = []byte(`[1]`)
				return r
			},
			want: outcome{Code: 400, Message: "object: object is not a JSON object"},
		},
		"BadOldObject": {
			reason: "an old object that does not decode is a 400",
			req: func(t *testing.T) admission.Request {
				r := request(t, admissionv1.Update, storageAccountGVK, sa, sa)
				r.OldObject.Raw = []byte(`{} {}`)
				return r
			},
			want: outcome{Code: 400, Message: "oldObject: decode JSON: data after the value"},
		},
		"NotServed": {
			reason: "a kind without a Descriptor is refused, loudly",
			req: func(t *testing.T) admission.Request {
				return request(t, admissionv1.Create, unknown, sa, nil)
			},
			want: outcome{Code: 403, Message: "kind example.com/v1, Kind=Widget is not served by the armature webhook: its webhook configuration and the served kinds disagree"},
		},
	}
	for name, tc := range cases {
		for hname, h := range map[string]admission.Handler{"validate": reg.ValidatingHandler(), "default": reg.DefaultingHandler()} {
			t.Run(name+"/"+hname, func(t *testing.T) {
				got := outcomeOf(h.Handle(context.Background(), tc.req(t)))
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
				}
			})
		}
	}
}

// TestCustomValidator registers a rule on a Registry and on the default
// registry; the rule sees the request's attributes and its errors are
// refused alongside the Descriptor's.
func TestCustomValidator(t *testing.T) {
	d := &descriptor.Descriptor{Group: "custom.armature.dev", Version: "v1", Kind: "Thing", ARMType: "Test.RP/things",
		Properties: []descriptor.Property{{Path: descriptor.MustParsePath("location"), Class: descriptor.CreateOnly}}}
	type seen struct {
		Operation admissionv1.Operation
		Kind      string
		HasOld    bool
		DryRun    bool
	}
	var calls []seen
	rule := func(_ context.Context, a Attributes) field.ErrorList {
		calls = append(calls, seen{a.Operation, a.Descriptor.Kind, a.OldObject != nil, a.DryRun})
		if a.Object.GetLabels()["tier"] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "labels").Key("tier"), "every Thing needs a tier")}
		}
		return nil
	}
	RegisterValidator(d.GroupVersionKind(), rule)
	Register(d)
	regs := map[string]*Registry{"method": New([]*descriptor.Descriptor{d}), "package": DefaultRegistry()}
	regs["method"].RegisterValidator(d.GroupVersionKind(), rule)

	for name, reg := range regs {
		t.Run(name, func(t *testing.T) {
			calls = nil
			old := object(t, `{"metadata":{"name":"a","labels":{"tier":"gold"}},"spec":{"location":"x"}}`)
			obj := object(t, `{"metadata":{"name":"a"},"spec":{"location":"y"}}`)
			req := request(t, admissionv1.Update, d.GroupVersionKind(), obj, old)
			dry := true
			req.DryRun = &dry
			got := verdict(t, reg.ValidatingHandler().Handle(context.Background(), req))
			want := []string{
				createOnlyErr("spec.location", `"x"`, `"y"`),
				"metadata.labels[tier]: Required value: every Thing needs a tier",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
			if diff := cmp.Diff([]seen{{admissionv1.Update, "Thing", true, true}}, calls); diff != "" {
				t.Errorf("the rule saw -want +got:\n%s", diff)
			}
		})
	}
}

// TestSetupNilManager is the one error of Setup.
func TestSetupNilManager(t *testing.T) {
	if err := Setup(nil, nil); err == nil {
		t.Error("Setup(nil, nil) = nil, want an error")
	}
}

// TestDescriptorsSorted lists the served kinds in a stable order.
func TestDescriptorsSorted(t *testing.T) {
	reg := New(allDescriptors())
	var got []string
	for _, d := range reg.Descriptors()[:3] {
		got = append(got, d.GroupVersionKind().String())
	}
	want := []string{
		"appconfiguration.azure.armature.dev/v20230301, Kind=ConfigurationStore",
		"authorization.azure.armature.dev/v20220401, Kind=RoleAssignment",
		"authorization.azure.armature.dev/v20220401, Kind=RoleDefinition",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
}
