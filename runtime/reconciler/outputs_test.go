package reconciler

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// poster is the scripted ARM with POST: each listKeys answers the keys.
type poster struct {
	arm.ClientFuncs
	posts *int
	key   *string
}

func (p poster) Post(_ context.Context, id, _ string, req arm.PostRequest) (*arm.Result, error) {
	*p.posts++
	return ok(map[string]any{"keys": []any{map[string]any{"keyName": "key1", "value": *p.key}}}), nil
}

func TestOutputsWrittenOnce(t *testing.T) {
	d := gadget()
	d.Actions = []descriptor.Action{{Name: "listKeys"}, {Name: "regenerateKey"}}
	obj := gadgetObject(mName)
	obj.Object["spec"].(map[string]any)["operatorSpec"] = map[string]any{
		"configMaps": []any{
			map[string]any{"name": "app", "key": "id", "value": "status.id"},
			map[string]any{"name": "app", "key": "tier", "value": "status.properties.tier"},
		},
		"secrets": []any{map[string]any{"name": "app-keys", "key": "key", "value": "listKeys.keys[0].value"}},
	}
	m := newMachine(t, d, machineConfig(), false, obj)
	posts, key := 0, "s3cret"
	m.r = New(m.c, poster{ClientFuncs: m.armClient().(arm.ClientFuncs), posts: &posts, key: &key}, d, "", m.rec, m.cfg)
	body := live("properties.tier", "Hot")
	m.created(body)
	var cm corev1.ConfigMap
	if err := m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "app"}, &cm); err != nil {
		t.Fatalf("ConfigMap app: %v", err)
	}
	if cm.Data["id"] != mID || cm.Data["tier"] != "Hot" {
		t.Errorf("ConfigMap data %v, want id %s and tier Hot", cm.Data, mID)
	}
	if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].Name != mName {
		t.Errorf("ConfigMap owners %v, want the object", cm.OwnerReferences)
	}
	var s corev1.Secret
	if err := m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "app-keys"}, &s); err != nil {
		t.Fatalf("Secret app-keys: %v", err)
	}
	if string(s.Data["key"]) != "s3cret" {
		t.Errorf("Secret data %q, want the key", s.Data["key"])
	}
	// A resync with the same values writes nothing (the key is read).
	rv := cm.ResourceVersion
	if _, err := m.run(get(ok(body), nil)); err != nil {
		t.Fatal(err)
	}
	m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "app"}, &cm)
	if cm.ResourceVersion != rv || posts != 2 {
		t.Errorf("resync: ConfigMap resourceVersion %s → %s, %d POSTs; want no write and one listKeys per observe", rv, cm.ResourceVersion, posts)
	}
	// A rotated key reaches the Secret.
	key = "rotated"
	if _, err := m.run(get(ok(body), nil)); err != nil {
		t.Fatal(err)
	}
	m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "app-keys"}, &s)
	if string(s.Data["key"]) != "rotated" {
		t.Errorf("after rotation Secret data %q", s.Data["key"])
	}
}

func TestOutputsRefused(t *testing.T) {
	for name, c := range map[string]struct {
		outputs map[string]any
		want    string
	}{
		"SecretInConfigMap": {
			map[string]any{"configMaps": []any{map[string]any{"name": "app", "key": "k", "value": "listKeys.keys[0].value"}}},
			"listKeys answers secrets; write it to a Secret",
		},
		"SpecValue": {
			map[string]any{"secrets": []any{map[string]any{"name": "app", "key": "k", "value": "spec.location"}}},
			`value "spec.location" is not status.… or a list action's answer`,
		},
		"CredentialSecret": {
			map[string]any{"secrets": []any{map[string]any{"name": "armature-credential", "key": "clientSecret", "value": "listKeys.keys[0].value"}}},
			"is a credential Secret; outputs never write one",
		},
		"KeyTwice": {
			map[string]any{"configMaps": []any{
				map[string]any{"name": "app", "key": "k", "value": "status.id"},
				map[string]any{"name": "app", "key": "k", "value": "status.name"},
			}},
			"written twice",
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := gadget()
			d.Actions = []descriptor.Action{{Name: "listKeys"}}
			obj := gadgetObject(mName)
			obj.Object["spec"].(map[string]any)["operatorSpec"] = c.outputs
			m := newMachine(t, d, machineConfig(), false, obj)
			if _, err := m.run(get(nil, notFound), put("", ok(live()), nil), get(ok(live()), nil)); err == nil {
				t.Fatal("no error")
			}
			r := condOf(m.get(), tReady)
			if r["reason"] != "InvalidOutputs" || !strings.Contains(r["message"].(string), c.want) {
				t.Errorf("Ready = %v, want InvalidOutputs: %s", r, c.want)
			}
		})
	}
}

// A ConfigMap someone else made is never written to.
func TestOutputsNeverTouchForeignObjects(t *testing.T) {
	obj := gadgetObject(mName)
	obj.Object["spec"].(map[string]any)["operatorSpec"] = map[string]any{
		"configMaps": []any{map[string]any{"name": "app-config", "key": "id", "value": "status.id"}},
	}
	m := newMachine(t, gadget(), machineConfig(), false, obj)
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app-config"}, Data: map[string]string{"mode": "prod"}}
	if err := m.c.Create(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	m.run(get(nil, notFound), put("", ok(live()), nil), get(ok(live()), nil))
	if r := condOf(m.get(), tReady); r["reason"] != "OutputConflict" || !strings.Contains(r["message"].(string), "exists and was not made by outputs") {
		t.Errorf("Ready = %v, want OutputConflict", r)
	}
	var cm corev1.ConfigMap
	if err := m.c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "app-config"}, &cm); err != nil || len(cm.Data) != 1 {
		t.Errorf("the foreign ConfigMap changed: %v %v", cm.Data, err)
	}
}
