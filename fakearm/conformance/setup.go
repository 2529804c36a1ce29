package conformance

import (
	"net/http"
	"strings"

	"github.com/armature-dev/armature/recording"
)

// setup is state a recording implies existed before it started.
type setup struct {
	path, body string
	// deleting: the resource was being deleted (its deletion is started,
	// and driven to its end after the step).
	deleting bool
	why      string
}

// setupsOf finds, by step index, the resources a recording finds already
// there:
//
//   - the first write of a resource is a PUT answered 200 (an update), and
//     no PUT in the recording created its resource group: it existed;
//   - the first PUT of a resource group is answered 409
//     ResourceGroupBeingDeleted: it existed and was being deleted.
//
// The replay creates them before the step, without comparing.
func setupsOf(c *recording.Cassette, steps []Step) map[int]setup {
	out := map[int]setup{}
	created := map[string]bool{}
	touched := map[string]bool{}
	for si, st := range steps {
		if st.Kind != Mutation {
			continue
		}
		it := c.Interactions[st.Interactions[0]]
		lp := strings.ToLower(st.Path)
		first := !touched[lp]
		touched[lp] = true
		code := it.Response.Code
		if first && it.Request.Method == http.MethodPut {
			switch {
			case code == http.StatusOK && !created[groupOf(lp)]:
				out[si] = setup{path: st.Path, body: it.Request.Body, why: "its first PUT is answered 200: it existed"}
			case code == http.StatusConflict && errorCode(object([]byte(it.Response.Body))) == "ResourceGroupBeingDeleted":
				out[si] = setup{path: st.Path, body: it.Request.Body, deleting: true, why: "its first PUT is answered 409 ResourceGroupBeingDeleted: it was being deleted"}
			}
		}
		if it.Request.Method == http.MethodPut && code == http.StatusCreated {
			created[lp] = true
		}
	}
	return out
}

// groupOf is the resource group path of a lower-case resource path, or
// "".
func groupOf(lp string) string {
	segs := strings.Split(strings.Trim(lp, "/"), "/")
	if len(segs) >= 4 && segs[0] == "subscriptions" && segs[2] == "resourcegroups" {
		return "/" + strings.Join(segs[:4], "/")
	}
	return ""
}

// setup creates what a recording finds already there; it returns what it
// did, for the report.
func (r *replayer) setup(s setup) string {
	d, ok := r.find(s.path)
	if !ok {
		return "not created (type not served): " + s.path
	}
	v := r.served(d)
	_, hd, _ := r.send(http.MethodPut, s.path, v, s.body)
	r.drive(hd, s.path)
	what := "PUT " + s.path
	if s.deleting {
		_, hd, _ = r.send(http.MethodDelete, s.path, v, "")
		r.pending = append(r.pending, hd)
		what += ", DELETE"
	}
	return what + " (" + s.why + ")"
}
