package arm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
)

func account(t *testing.T, c arm.Client) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Put(ctx, rg, rgV, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Put(ctx, sa, saV, []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`))
	for err == nil && !res.Done() {
		res, err = c.Poll(ctx, res.Token)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestPost(t *testing.T) {
	fa, c := setup(t, fakearm.Options{LROPolls: 1}, nil)
	account(t, c)
	p, ok := c.(arm.Poster)
	if !ok {
		t.Fatal("the client of NewClient is a Poster")
	}
	ctx := context.Background()

	// A synchronous action with a body and a response.
	res, err := p.Post(ctx, sa, saV, arm.PostRequest{Action: "regenerateKey", Body: []byte(`{"keyName":"key2"}`)})
	if err != nil || !res.Done() || res.Status != 200 {
		t.Fatalf("regenerateKey: %+v, %v", res, err)
	}
	if keys, _ := res.Body["keys"].([]any); len(keys) != 2 {
		t.Errorf("regenerateKey answers the keys: %v", res.Body)
	}

	// A long-running action with a query parameter: a token, then polls.
	fa.ResetJournal()
	res, err = p.Post(ctx, sa, saV, arm.PostRequest{Action: "failover", Query: map[string]string{"failoverType": "Planned"}, FinalStateVia: "location"})
	if err != nil || res.Done() {
		t.Fatalf("failover starts an operation: %+v, %v", res, err)
	}
	polls := 0
	for !res.Done() {
		polls++
		if res, err = c.Poll(ctx, res.Token); err != nil {
			t.Fatal(err)
		}
	}
	j := fa.Journal()
	if polls != 2 || len(j) != 3 || j[0].Method != "POST" || j[0].Query != "api-version=2023-05-01&failoverType=Planned" {
		t.Errorf("one POST with the query, then %d polls: %+v", polls, j)
	}

	// ARM's error answer, naming the property.
	_, err = p.Post(ctx, sa, saV, arm.PostRequest{Action: "regenerateKey", Body: []byte(`{}`)})
	var ae *arm.Error
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Target != "keyName" || !arm.IsTerminal(err) {
		t.Errorf("a missing keyName: %v", err)
	}
	if _, err := p.Post(ctx, sa, saV, arm.PostRequest{}); err == nil {
		t.Error("an action name is required")
	}
}
