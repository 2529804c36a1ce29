package fakearm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Playback is an ARM that answers only with what a recording of real ARM
// traffic says: the operator, pointed at it, meets real Azure's bodies,
// status codes and operations. Answers are chosen by method, path and the
// resource's state — not by the order of the recording — so a client that
// sends fewer or more requests than the recorded one still gets the
// answer Azure gave in that state:
//
//   - a PUT (or PATCH) is answered with the next recorded PUT of the path
//     that no recorded DELETE precedes; a DELETE with the next recorded
//     DELETE (updates the client did not send are skipped). Each answered
//     write moves the resource to its next state;
//   - a GET of a resource is answered with the recorded GETs of the
//     current state, in order, the last one repeated; when the recording
//     has none in that state, with the nearest recorded GET of the same
//     existence (present: a 200; absent: a 404); while it is absent
//     (before its first write, after refused writes), with a derived 404
//     when it has no absent GET;
//   - a GET of an operation URL (an Azure-AsyncOperation or Location an
//     answer named) is answered with the recorded polls of that URL, in
//     order, the last one repeated. When the recorded client polled the
//     resource instead, the resource's recorded GETs after the write stand
//     for the operation: a 200 while it still shows the operation running
//     (Deleting, Creating…) is a 202, a final 200 or a 404 after a DELETE
//     is a 200. Such answers are marked Derived in Requests.
//
// api-versions are ignored (the recordings are older than the served
// ones); URLs in Azure-AsyncOperation and Location are rewritten to the
// playback's host. A request without a recorded answer is answered 400
// NoRecordedAnswer and listed by Unanswered.
type Playback struct {
	c     *recording.Cassette
	descs []*descriptor.Descriptor
	// RetryAfter, when not empty, replaces every Retry-After header
	// (timing is not behaviour: tests set "0").
	RetryAfter string

	order   []string // resource paths, in order of first interaction
	unknown []string // paths that are neither a resource nor an operation

	mu        sync.Mutex
	resources map[string]*pbResource // lower-case resource path
	ops       map[string]*pbSeq      // lower-case operation path → its recorded polls
	opOf      map[string]pbOrigin    // lower-case operation path → the write that named it
	requests  []PlaybackRequest
	// high is the latest recorded interaction answered: how far the
	// client has come in the recording's time.
	high int
}

// PlaybackRequest is one request the playback answered.
type PlaybackRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Interaction is the recorded interaction that answered (-1 for none).
	Interaction int `json:"interaction"`
	// Derived is true for an answer derived from other recorded
	// interactions: an operation poll from the resource's recorded GETs, a
	// GET from a synchronous write's answer, a LIST from the recorded GETs
	// of the collection's resources (Interaction -1).
	Derived bool `json:"derived,omitempty"`
}

// pbResource is one resource of the recording and the client's progress
// through its recorded writes.
type pbResource struct {
	path   string
	writes []int // interaction indexes of PUT, PATCH and DELETE, in order
	// gets[k] are the GETs recorded after k writes (before write k).
	gets [][]int
	// state is the number of recorded writes passed (answered or
	// skipped); cursor is the next GET per state.
	state  int
	cursor map[int]int
	// last is the last write answered (-1 before any).
	last int
}

type pbSeq struct {
	polls []int
	next  int
}

type pbOrigin struct {
	resource string
	write    int // index into resource.writes
	// async: the URL came in Azure-AsyncOperation, whose polls answer 200
	// with {"status": …} (a Location poll answers 202, then the result).
	async bool
}

// inOrder adds interaction i to the answers of a lower-case path that are
// given in recorded order (actions, reads of native types).
func (p *Playback) inOrder(lp string, i int) {
	s := p.ops[lp]
	if s == nil {
		s = &pbSeq{}
		p.ops[lp] = s
	}
	s.polls = append(s.polls, i)
}

// NewPlayback prepares a playback of a recording; descs are the types whose
// paths are resources (the rest of the paths are answered only when they
// are operation URLs or POST actions of a resource, in recorded order).
func NewPlayback(c *recording.Cassette, descs []*descriptor.Descriptor) *Playback {
	p := &Playback{c: c, descs: descs, resources: map[string]*pbResource{}, ops: map[string]*pbSeq{}, opOf: map[string]pbOrigin{}}
	for i, it := range c.Interactions {
		path := it.Path()
		lp := strings.ToLower(path)
		if s, ok := p.ops[lp]; ok && it.Request.Method == http.MethodGet {
			s.polls = append(s.polls, i)
			continue
		}
		if _, _, ok := descriptor.Find(descs, path); !ok {
			if _, _, native := Native(path); native && it.Request.Method == http.MethodGet {
				// A read of what the emulator serves beyond the
				// Descriptors (Key Vault's deleted vaults, which ASO reads
				// before it creates a vault): answered in recorded order,
				// like an action.
				p.inOrder(lp, i)
				continue
			}
			if it.Request.Method == http.MethodPost {
				// An action of a resource (listKeys,
				// listClusterAdminCredential): answered in recorded order.
				if owner := path[:max(strings.LastIndex(path, "/"), 0)]; owner != "" {
					if _, _, ok := descriptor.Find(descs, owner); ok {
						p.inOrder(lp, i)
						continue
					}
				}
			}
			p.unknown = append(p.unknown, it.Request.Method+" "+path)
			continue
		}
		r := p.resources[lp]
		if r == nil {
			r = &pbResource{path: path, gets: [][]int{nil}, cursor: map[int]int{}, last: -1}
			p.resources[lp] = r
			p.order = append(p.order, lp)
		}
		switch it.Request.Method {
		case http.MethodGet:
			r.gets[len(r.writes)] = append(r.gets[len(r.writes)], i)
		case http.MethodPut, http.MethodPatch, http.MethodDelete:
			r.writes = append(r.writes, i)
			r.gets = append(r.gets, nil)
			for _, h := range []string{"Azure-Asyncoperation", "Location"} {
				u, err := url.Parse(it.Response.Headers.Get(h))
				if err != nil || u.Path == "" || strings.EqualFold(u.Path, path) {
					continue
				}
				op := strings.ToLower(u.Path)
				if _, ok := p.ops[op]; !ok {
					p.ops[op] = &pbSeq{}
					p.opOf[op] = pbOrigin{resource: lp, write: len(r.writes) - 1, async: h == "Azure-Asyncoperation"}
				}
			}
		}
	}
	return p
}

// Unknown lists the recorded requests whose path is neither a resource of
// the descriptors nor an operation URL (a type not generated), as
// "METHOD path".
func (p *Playback) Unknown() []string { return append([]string(nil), p.unknown...) }

// Resource is what the recording shows of one resource.
type Resource struct {
	// Path is the resource id as first recorded.
	Path string
	// FirstPUT is the body of its first recorded PUT ("" when none).
	FirstPUT string
	// Refused is ARM's error code when every recorded PUT of it failed.
	Refused string
	// Deleted is the index of its first recorded DELETE (-1 when none).
	Deleted int
	// Existed is true when a GET before its first write answered 200: it
	// existed before the recording (or the recorded client's requests
	// were logged out of order).
	Existed bool
}

// Resources lists the recording's resources, in order of first
// interaction.
func (p *Playback) Resources() []Resource {
	var out []Resource
	for _, lp := range p.order {
		r := p.resources[lp]
		res := Resource{Path: r.path, Deleted: -1}
		if len(r.gets) > 0 {
			for _, i := range r.gets[0] {
				if p.c.Interactions[i].Response.Code == http.StatusOK {
					res.Existed = true
				}
			}
		}
		ok := false
		for _, i := range r.writes {
			it := p.c.Interactions[i]
			switch it.Request.Method {
			case http.MethodPut:
				if res.FirstPUT == "" {
					res.FirstPUT = it.Request.Body
				}
				if it.Response.Code < 300 {
					ok = true
				} else if !ok {
					res.Refused = errorCodeOf(it.Response.Body)
				}
			case http.MethodDelete:
				if res.Deleted < 0 {
					res.Deleted = i
				}
			}
		}
		if ok {
			res.Refused = ""
		}
		out = append(out, res)
	}
	return out
}

func errorCodeOf(body string) string {
	var b struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	return b.Error.Code
}

// Requests returns the requests answered so far, in order.
func (p *Playback) Requests() []PlaybackRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]PlaybackRequest(nil), p.requests...)
}

// Unanswered lists the requests that had no recorded answer, as
// "METHOD path".
func (p *Playback) Unanswered() []string {
	var out []string
	for _, r := range p.Requests() {
		if r.Interaction < 0 && !r.Derived {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// ServeHTTP answers one request from the recording.
func (p *Playback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Method == http.MethodGet && p.list(w, r) {
		return
	}
	i, derived := p.choose(r.Method, r.URL.Path)
	req := PlaybackRequest{Method: r.Method, Path: r.URL.Path, Interaction: i, Derived: derived != 0}
	switch {
	case i < 0 && derived == http.StatusNotFound:
		req.Status = derived
		armError(w, req.Status, "ResourceNotFound", fmt.Sprintf("The Resource at %s was not found (derived: not yet created in the recording).", r.URL.Path), "")
	case i < 0:
		req.Status = http.StatusBadRequest
		armError(w, req.Status, "NoRecordedAnswer", fmt.Sprintf("The recording has no answer for %s %s in the resource's state.", r.Method, r.URL.Path), "")
	case derived != 0:
		req.Status = derived
		p.writeDerived(w, r, i, derived)
	default:
		req.Status = p.c.Interactions[i].Response.Code
		p.write(w, r, p.c.Interactions[i].Response)
	}
	if i > p.high {
		p.high = i
	}
	p.requests = append(p.requests, req)
}

// choose picks the recorded interaction that answers a request; derived is
// the status of an operation answer derived from a resource GET (0 when
// the interaction answers as recorded).
func (p *Playback) choose(method, path string) (int, int) {
	lp := strings.ToLower(path)
	if s, ok := p.ops[lp]; ok && (method == http.MethodGet || method == http.MethodPost) {
		if len(s.polls) > 0 {
			i := s.polls[min(s.next, len(s.polls)-1)]
			s.next++
			return i, 0
		}
		return p.derive(p.opOf[lp])
	}
	res := p.resources[lp]
	if res == nil {
		return -1, 0
	}
	switch method {
	case http.MethodGet:
		if i := res.get(p.c); i >= 0 {
			return i, 0
		}
		// Never read in the recording after a synchronous write (Key
		// Vault keys): the write's answer is the resource.
		if res.last >= 0 {
			w := p.c.Interactions[res.writes[res.last]]
			if w.Request.Method != http.MethodDelete && (w.Response.Code == http.StatusOK || w.Response.Code == http.StatusCreated) && strings.TrimSpace(w.Response.Body) != "" {
				return res.writes[res.last], http.StatusOK
			}
		}
		if !res.present(p.c) {
			// Read while absent — before its first write (the reconciler's
			// check that nothing is there before a create), or after writes
			// ARM refused — in a recording that never read it absent:
			// ARM's answer is a 404.
			return -1, http.StatusNotFound
		}
		return -1, 0
	case http.MethodPut, http.MethodPatch:
		return res.write(p.c, func(m string) bool { return m == http.MethodPut || m == http.MethodPatch }, http.MethodDelete), 0
	case http.MethodDelete:
		// A DELETE the recording refused before the time the client has
		// reached is past (a zone's 409 CannotDeleteResource while its
		// link existed, once the link's deletion was answered): the next
		// recorded DELETE answers.
		for j := res.state; j < len(res.writes)-1; j++ {
			w := p.c.Interactions[res.writes[j]]
			if res.writes[j] >= p.high || w.Request.Method != http.MethodDelete || w.Response.Code < 400 {
				break
			}
			if slices.ContainsFunc(res.writes[j+1:], func(k int) bool { return p.c.Interactions[k].Request.Method == http.MethodDelete }) {
				res.state = j + 1
			}
		}
		return res.write(p.c, func(m string) bool { return m == http.MethodDelete }, ""), 0
	}
	return -1, 0
}

// write answers a write with the next recorded write of the same kind,
// skipping recorded writes the client did not send, but never one of
// method barrier.
func (r *pbResource) write(c *recording.Cassette, same func(string) bool, barrier string) int {
	for j := r.state; j < len(r.writes); j++ {
		m := c.Interactions[r.writes[j]].Request.Method
		if same(m) {
			r.state, r.last = j+1, j
			return r.writes[j]
		}
		if m == barrier {
			break
		}
	}
	return -1
}

// get answers a GET from the recorded GETs of the state, else the nearest
// recorded GET of the same existence.
func (r *pbResource) get(c *recording.Cassette) int {
	i := r.peek(c)
	if gs := r.gets[r.state]; len(gs) > 0 {
		r.cursor[r.state]++
	}
	return i
}

// present reports whether the resource exists after the writes answered
// so far: the last one succeeded and was no DELETE.
func (r *pbResource) present(c *recording.Cassette) bool {
	return r.last >= 0 && c.Interactions[r.writes[r.last]].Request.Method != http.MethodDelete && c.Interactions[r.writes[r.last]].Response.Code < 300
}

// peek is the GET answer get would give, without moving on.
func (r *pbResource) peek(c *recording.Cassette) int {
	if gs := r.gets[r.state]; len(gs) > 0 {
		return gs[min(r.cursor[r.state], len(gs)-1)]
	}
	present := r.present(c)
	want := func(i int) bool {
		code := c.Interactions[i].Response.Code
		return present && code == http.StatusOK || !present && code == http.StatusNotFound
	}
	// The nearest state first: backwards, then forwards.
	for k := r.state; k >= 0; k-- {
		for j := len(r.gets[k]) - 1; j >= 0; j-- {
			if want(r.gets[k][j]) {
				return r.gets[k][j]
			}
		}
	}
	for k := r.state + 1; k < len(r.gets); k++ {
		for _, i := range r.gets[k] {
			if want(i) {
				return i
			}
		}
	}
	return -1
}

// list answers a GET of a collection of a generated type (the drift
// observer's LIST) with the recorded GET bodies of the collection's
// resources that exist in their current recorded state; false when the
// path is no collection.
func (p *Playback) list(w http.ResponseWriter, r *http.Request) bool {
	collection := ""
	for _, d := range p.descs {
		if m, ok := d.Template().Match(r.URL.Path); ok && m.Collection {
			collection = strings.ToLower(strings.TrimSuffix(r.URL.Path, "/"))
			break
		}
	}
	if collection == "" {
		return false
	}
	items := []json.RawMessage{}
	for _, lp := range p.order {
		rest, ok := strings.CutPrefix(lp, collection+"/")
		if !ok || strings.Contains(rest, "/") {
			continue
		}
		if i := p.resources[lp].peek(p.c); i >= 0 && p.c.Interactions[i].Response.Code == http.StatusOK {
			items = append(items, json.RawMessage(p.c.Interactions[i].Response.Body))
		}
	}
	p.requests = append(p.requests, PlaybackRequest{Method: r.Method, Path: r.URL.Path, Status: http.StatusOK, Interaction: -1, Derived: true})
	writeJSON(w, http.StatusOK, map[string]any{"value": items})
	return true
}

// derive answers a poll of an operation the recorded client never polled,
// from the resource's recorded GETs after the write that started it.
func (p *Playback) derive(o pbOrigin) (int, int) {
	res := p.resources[o.resource]
	if res == nil {
		return -1, 0
	}
	gs := res.gets[o.write+1]
	if len(gs) == 0 {
		return -1, 0
	}
	k := o.write + 1
	i := gs[min(res.cursor[k], len(gs)-1)]
	res.cursor[k]++
	if res.state < k {
		res.state = k
	}
	resp := p.c.Interactions[i].Response
	deleting := p.c.Interactions[res.writes[o.write]].Request.Method == http.MethodDelete
	switch {
	case resp.Code == http.StatusNotFound && deleting:
		return i, http.StatusOK
	case resp.Code == http.StatusOK && (running(resp.Body) || deleting):
		// Still there while it is deleted: the deletion runs (CDN's
		// endpoints show Succeeded until they are gone).
		return i, http.StatusAccepted
	case resp.Code == http.StatusOK && !deleting:
		return i, http.StatusOK
	}
	return -1, 0
}

// running reports a resource body whose provisioningState is not final.
func running(body string) bool {
	var b struct {
		Properties struct {
			ProvisioningState string `json:"provisioningState"`
		} `json:"properties"`
	}
	_ = json.Unmarshal([]byte(body), &b)
	switch strings.ToLower(b.Properties.ProvisioningState) {
	case "", "succeeded", "failed", "canceled":
		return false
	}
	return true
}

// write sends a recorded response, with operation URLs pointing here.
func (p *Playback) write(w http.ResponseWriter, r *http.Request, resp recording.Response) {
	h := w.Header()
	names := make([]string, 0, len(resp.Headers))
	for name := range resp.Headers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		switch http.CanonicalHeaderKey(name) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding":
			continue // the body is written as stored
		}
		for _, v := range resp.Headers[name] {
			h.Add(name, p.rewrite(r, name, v))
		}
	}
	w.WriteHeader(resp.Code)
	_, _ = w.Write([]byte(resp.Body))
}

// writeDerived answers an operation poll from a resource GET: at an
// Azure-AsyncOperation URL, 200 with the operation's status; at a
// Location URL, the status given, the GET's body for a finished PUT, no
// body otherwise.
func (p *Playback) writeDerived(w http.ResponseWriter, r *http.Request, i, status int) {
	if p.opOf[strings.ToLower(r.URL.Path)].async {
		st := "Succeeded"
		if status == http.StatusAccepted {
			st = "InProgress"
			if p.RetryAfter != "" {
				w.Header().Set("Retry-After", p.RetryAfter)
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": st})
		return
	}
	if status == http.StatusAccepted {
		w.Header().Set("Location", baseURL(r)+r.URL.RequestURI())
		if p.RetryAfter != "" {
			w.Header().Set("Retry-After", p.RetryAfter)
		}
	}
	resp := p.c.Interactions[i].Response
	if status == http.StatusOK && (resp.Code == http.StatusOK || resp.Code == http.StatusCreated) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(resp.Body))
		return
	}
	w.WriteHeader(status)
}

// rewrite points recorded operation URLs at the playback and applies
// RetryAfter.
func (p *Playback) rewrite(r *http.Request, name, v string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Azure-Asyncoperation", "Location":
		if u, err := url.Parse(v); err == nil && u.IsAbs() {
			return baseURL(r) + u.RequestURI()
		}
	case "Retry-After":
		if p.RetryAfter != "" {
			return p.RetryAfter
		}
	}
	return v
}
