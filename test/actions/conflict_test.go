package actions_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/action"
	"github.com/armature-dev/armature/runtime/arm"
)

// interfering is the apiserver client with a user who labels the Action
// just before the reconciler records a success: the recording conflicts.
type interfering struct {
	client.Client
	touched bool
}

func (c *interfering) Status() client.SubResourceWriter {
	return &interferingStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type interferingStatus struct {
	client.SubResourceWriter
	c *interfering
}

func (s *interferingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if a, ok := obj.(*actionsv1alpha1.Action); ok && a.Status.Phase == actionsv1alpha1.PhaseSucceeded && !s.c.touched {
		s.c.touched = true
		cur := &actionsv1alpha1.Action{}
		if err := s.c.Get(ctx, client.ObjectKeyFromObject(a), cur); err != nil {
			return err
		}
		base := cur.DeepCopy()
		cur.Labels = map[string]string{"touched": "yes"}
		if err := s.c.Client.Patch(ctx, cur, client.MergeFrom(base)); err != nil {
			return err
		}
	}
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// A change of the Action by someone else while the answer of a sent action
// is recorded does not lose the answer (nor make its outcome unknown).
func TestAnswerSurvivesAConcurrentChange(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	op := startOperator(t, fa, ns)
	account(t, ns, "media")
	op.stop(t)

	create(t, newAction(ns, "rotate", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key1"}`),
		ResultSecret: &actionsv1alpha1.ResultReference{Name: "media-keys"}}))
	armClient, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	c := &interfering{Client: k8s}
	r, err := action.New(c, armClient, action.NewRegistry(apis.Descriptors()))
	if err != nil {
		t.Fatal(err)
	}
	req := reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "rotate"}}
	for i := 0; i < 5; i++ {
		res, err := r.Reconcile(context.Background(), req)
		if err != nil {
			t.Fatalf("reconcile %d: %v", i, err)
		}
		if !res.Requeue && res.RequeueAfter == 0 {
			break
		}
	}
	a := getAction(t, ns, "rotate")
	if !c.touched || a.Labels["touched"] != "yes" {
		t.Fatal("the concurrent change did not happen")
	}
	if a.Status.Phase != actionsv1alpha1.PhaseSucceeded {
		t.Errorf("phase %s, conditions %+v", a.Status.Phase, a.Status.Conditions)
	}
	if n := posts(fa, "/regenerateKey"); n != 1 {
		t.Errorf("one POST, got %d", n)
	}
}
