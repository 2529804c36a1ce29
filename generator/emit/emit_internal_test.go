package emit

import (
	"errors"
	"testing"

	"github.com/armature-dev/armature/generator/model"
)

// TestWriteOutKeepsProblems: the CRDs compile could not write reach the
// caller (they were dropped when the result was reset for the counts).
func TestWriteOutKeepsProblems(t *testing.T) {
	tooLarge := &CRDError{File: "big.yaml", Err: errors.New("too large")}
	res := &Result{Notes: []string{"a note"}, Problems: []error{tooLarge}}
	got, err := writeOut(t.TempDir(), map[string][]byte{"apis/x.go": []byte("package x\n")}, nil, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Problems) != 1 || !errors.Is(got.Problems[0], tooLarge) || len(got.Notes) != 1 || got.Written != 1 {
		t.Errorf("result %+v: want the problem, the note and 1 file written", got)
	}
}

// TestResourceMarker: every kind is in the categories azure and its
// group's; a kind named like a core kind gets a short name kubectl
// resolves to it, not to the core kind.
func TestResourceMarker(t *testing.T) {
	p := &model.Package{Short: "servicebus"}
	if got, want := resourceMarker(p, &model.Kind{Name: "Namespace"}), "+kubebuilder:resource:categories=azure;servicebus,shortName=servicebusnamespace"; got != want {
		t.Errorf("Namespace: %s, want %s", got, want)
	}
	if got, want := resourceMarker(p, &model.Kind{Name: "NamespacesQueue"}), "+kubebuilder:resource:categories=azure;servicebus"; got != want {
		t.Errorf("NamespacesQueue: %s, want %s", got, want)
	}
}
