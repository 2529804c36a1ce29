package conformance

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/armature-dev/armature/recording"
)

// Kind is what a step of a replay is.
type Kind string

// The kinds of steps.
const (
	// Mutation is a PUT, PATCH, DELETE or POST, replayed as recorded.
	Mutation Kind = "mutation"
	// Read is a run of identical GETs of a resource, compared on its last
	// answer.
	Read Kind = "read"
	// Operation is the polls of one recorded long-running operation,
	// compared on the last poll with the end of the emulator's own
	// operation.
	Operation Kind = "operation"
)

// LRO header names (canonical).
const (
	headerAsync    = "Azure-Asyncoperation"
	headerLocation = "Location"
)

// Via values: which header's URL an operation step polled.
const (
	viaAsync    = "azure-async-operation"
	viaLocation = "location"
)

// Step is one comparison of a replay.
type Step struct {
	Kind Kind `json:"kind"`
	// Interactions are the indexes of the recorded interactions the step
	// stands for, in order; the last is the one compared.
	Interactions []int `json:"interactions"`
	// Method and Path are the request of the last interaction (Path
	// without query).
	Method string `json:"method"`
	Path   string `json:"path"`
	// Of is, for an Operation step, the index of the Mutation step that
	// started the operation.
	Of int `json:"of,omitempty"`
	// Via is, for an Operation step, the header whose URL was polled:
	// azure-async-operation or location.
	Via string `json:"via,omitempty"`
}

// Steps groups a cassette's interactions into the steps a semantic replay
// compares, in recorded order (by first interaction):
//
//   - every PUT, PATCH, DELETE and POST is a Mutation step;
//   - a GET of a URL that an earlier answer named in Azure-AsyncOperation
//     or Location (other than the resource itself) belongs to the Operation
//     step of the mutation that started the operation, whatever comes in
//     between;
//   - consecutive GETs of the same URL otherwise form one Read step (any
//     other interaction in between ends the run).
func Steps(c *recording.Cassette) []Step {
	type opKey struct {
		of  int
		via string
	}
	var steps []Step
	ops := map[string]opKey{} // lower-case operation path → its mutation step and header
	opStep := map[opKey]int{} // → index of its Operation step
	lastRead := -1            // index of the Read step a GET may extend
	for i, it := range c.Interactions {
		path := it.Path()
		lp := strings.ToLower(path)
		origin := -1 // the mutation step this answer belongs to
		switch k, isOp := ops[lp]; {
		case it.Request.Method == http.MethodGet && isOp:
			si, ok := opStep[k]
			if !ok {
				si = len(steps)
				steps = append(steps, Step{Kind: Operation, Of: k.of, Via: k.via, Method: http.MethodGet, Path: path})
				opStep[k] = si
			}
			steps[si].Interactions = append(steps[si].Interactions, i)
			steps[si].Path = path
			origin = k.of
			lastRead = -1
		case it.Request.Method == http.MethodGet:
			if lastRead >= 0 && steps[lastRead].sameURL(c, it) {
				steps[lastRead].Interactions = append(steps[lastRead].Interactions, i)
				continue
			}
			lastRead = len(steps)
			steps = append(steps, Step{Kind: Read, Interactions: []int{i}, Method: http.MethodGet, Path: path})
			continue
		default:
			lastRead = -1
			origin = len(steps)
			steps = append(steps, Step{Kind: Mutation, Interactions: []int{i}, Method: it.Request.Method, Path: path})
		}
		for _, h := range []struct{ name, via string }{{headerAsync, viaAsync}, {headerLocation, viaLocation}} {
			p := headerPath(it.Response.Headers.Get(h.name))
			if p == "" || strings.EqualFold(p, path) || strings.EqualFold(p, steps[origin].Path) {
				continue // none, or the resource itself (a created resource's Location)
			}
			if _, known := ops[strings.ToLower(p)]; !known {
				ops[strings.ToLower(p)] = opKey{of: origin, via: h.via}
			}
		}
	}
	return steps
}

// sameURL reports whether an interaction requests the URL of the step's
// last interaction.
func (s Step) sameURL(c *recording.Cassette, it recording.Interaction) bool {
	last := c.Interactions[s.Interactions[len(s.Interactions)-1]]
	return strings.EqualFold(last.Request.URL, it.Request.URL)
}

// headerPath is the path of a URL in a header (absolute or relative), or
// "".
func headerPath(v string) string {
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil {
		return ""
	}
	return u.Path
}
