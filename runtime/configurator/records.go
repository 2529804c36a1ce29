package configurator

import (
	"encoding/json"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// RecordsPath is where the operator mounts Handler.
const RecordsPath = "/debug/records"

// Records is the KEP's managed data structure: kind ("Kind.group") → name
// ("namespace/name") → Record. It is JSON-serialisable.
type Records map[string]map[string]Record

// Record is what the registry knows of one rendered resource.
type Record struct {
	// Input identifies the version of the resource last selected.
	Input Input `json:"input"`
	// Selected is the last Select: what it read and returned.
	Selected SelectedRecord `json:"selected"`
	// Rendered is what the last Render wrote.
	Rendered RenderedRecord `json:"rendered"`

	rendered       bool // Selected.Output was rendered and fully written
	resourcesKnown bool // Rendered.Resources was written by this process
	statusKnown    bool // Rendered.Status was written (or found equal) by this process
	annotated      []Child
	annotatedKnown bool
}

// Input identifies a version of a resource.
type Input struct {
	UID             types.UID `json:"uid"`
	Generation      int64     `json:"generation,omitempty"`
	ResourceVersion string    `json:"resourceVersion"`
}

// SelectedRecord is the last Select of a resource.
type SelectedRecord struct {
	// Tracked is kind → name → what was read.
	Tracked map[string]map[string]TrackedRead `json:"tracked"`
	// Output is the last output Select returned without error.
	Output Selected `json:"output"`
	// Error is the last Select error, if the last Select failed.
	Error string `json:"error,omitempty"`
}

// RenderedRecord is what Render produced and the registry wrote.
type RenderedRecord struct {
	// Status is the status as last written (JSON-normal).
	Status Status `json:"status,omitempty"`
	// Resources are the declared resources that exist, with the digest of
	// what was applied (empty when learned from the annotation at restart).
	Resources []Child `json:"resources,omitempty"`
	// Error is the last Render or write error, if the last one failed.
	Error string `json:"error,omitempty"`
}

// Child is one declared resource, in the rendered resource's namespace.
type Child struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Digest     string `json:"digest,omitempty"`
}

// key identifies a child across versions of its kind.
func (c Child) key() string {
	gv, _ := schema.ParseGroupVersion(c.APIVersion)
	return c.Kind + "." + gv.Group + "/" + c.Name
}

func groupTracked(reads map[Ref]TrackedRead) map[string]map[string]TrackedRead {
	out := map[string]map[string]TrackedRead{}
	for ref, rd := range reads {
		k := kindKey(ref.GroupVersionKind)
		if out[k] == nil {
			out[k] = map[string]TrackedRead{}
		}
		out[k][ref.nameKey()] = rd
	}
	return out
}

// Records returns a snapshot of the records. Output values that do not
// serialise to JSON are replaced by a note of their type.
func (r *Registry) Records() Records {
	r.recMu.RLock()
	defer r.recMu.RUnlock()
	out := Records{}
	for ref, rec := range r.records {
		k := kindKey(ref.GroupVersionKind)
		if out[k] == nil {
			out[k] = map[string]Record{}
		}
		c := *rec
		c.Selected.Output = jsonSafe(rec.Selected.Output)
		out[k][ref.nameKey()] = c
	}
	return out
}

func jsonSafe(s Selected) Selected {
	if s == nil {
		return nil
	}
	out := make(Selected, len(s))
	for k, v := range s {
		if _, err := json.Marshal(v); err != nil {
			v = fmt.Sprintf("<%T: not JSON: %v>", v, err)
		}
		out[k] = v
	}
	return out
}

// Handler serves the records as JSON (mount it at RecordsPath). Query
// parameters kind ("Kind.group") and name ("namespace/name") filter them.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		recs := r.Records()
		if k := req.URL.Query().Get("kind"); k != "" {
			recs = Records{k: recs[k]}
		}
		if n := req.URL.Query().Get("name"); n != "" {
			for k, byName := range recs {
				if rec, ok := byName[n]; ok {
					recs[k] = map[string]Record{n: rec}
				} else {
					delete(recs, k)
				}
			}
		}
		b, err := json.MarshalIndent(recs, "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(append(b, '\n'))
	})
}

func (r *Registry) record(ref Ref) *Record {
	r.recMu.RLock()
	defer r.recMu.RUnlock()
	return r.records[ref]
}

func (r *Registry) store(ref Ref, rec *Record) {
	r.recMu.Lock()
	r.records[ref] = rec
	r.recMu.Unlock()
}

// forget drops everything known of ref: it was deleted or stopped
// matching. Declared resources stay (owner references collect them).
func (r *Registry) forget(ref Ref) {
	r.recMu.Lock()
	delete(r.records, ref)
	delete(r.echoes, ref)
	r.recMu.Unlock()
	r.index.Forget(ref)
}
