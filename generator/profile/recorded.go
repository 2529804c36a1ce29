package profile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Recording is one cassette of real ARM traffic.
type Recording struct {
	// Name is the file name, e.g. Test_Storage_StorageAccount_CRUD.yaml.
	Name     string
	Cassette *recording.Cassette
}

// LoadRecordings reads every *.yaml cassette of the folders, sorted by
// name; a name seen in an earlier folder is not read again (the same file
// is often kept in two places).
func LoadRecordings(dirs []string) ([]Recording, error) {
	var out []Recording
	seen := map[string]bool{}
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			if _, err := os.Stat(dir); err != nil {
				return nil, fmt.Errorf("recordings: %w", err)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			base := filepath.Base(n)
			if seen[base] {
				continue
			}
			seen[base] = true
			c, err := recording.LoadCassette(n)
			if err != nil {
				return nil, err
			}
			out = append(out, Recording{Name: base, Cassette: c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// seen is one recorded interaction that says something, and where.
type seen struct {
	where string
	// format is the go-vcr format of the recording (1 or 2): ASO has
	// recorded in format 2 since 2023, so a 2 is the newer evidence.
	format int
	// answer is set for verb answers.
	answer recording.Answer
	// err is set for error answers.
	err recording.Error
	// name is the resource name of a refused PUT.
	name string
	// allowed are the regions an error listed.
	allowed []string
	// body and request are a GET answer and the request body of the PUT
	// that made the resource.
	body, request map[string]any
	// path is the resource's path.
	path string
	// children are the ARM types of the children present at a refused
	// DELETE.
	children []string
}

// evidence is what the recordings show for one ARM type.
type evidence struct {
	// answers by case: create, update, patch, delete, deleteMissing.
	answers      map[string][]seen
	notFound     []seen
	beingDeleted []seen
	refused      []seen // PUTs answered 400
	gets         []seen
	puts         []seen // PUTs answered 200 or 201 with a body
	// blocked are DELETEs answered 409 while children existed.
	blocked []seen
	// ops are the finished statuses of the type's operations.
	ops []seen
	// parentNotFound are 404s of a resource whose parent resource was
	// deleted (its group exists).
	parentNotFound []seen
	// groupGone are 404s of a nested resource (below another resource)
	// whose resource group is gone.
	groupGone []seen
	// referenceNotFound are PUTs refused (400 or 404) while the body named
	// a resource the recording had not made (or had deleted) in a group
	// that exists; referenceAccepted, PUTs accepted while it did (a
	// Private DNS link to a virtual network created after it).
	referenceNotFound, referenceAccepted []seen
	// implicit are resources a recording used (a POST action answered 200)
	// without having created them, below a parent it wrote: the service
	// made them with the parent.
	implicit []seen
}

// Cases of answers.
const (
	caseCreate        = "create"
	caseUpdate        = "update"
	casePatch         = "patch"
	caseDelete        = "delete"
	caseDeleteMissing = "deleteMissing"
)

// typeMatcher finds the ARM type of a resource path.
type typeMatcher struct {
	templates []descriptor.Template
	types     []string
}

func (m *typeMatcher) add(armType, pathTemplate string) {
	m.templates = append(m.templates, descriptor.ParseTemplate(pathTemplate))
	m.types = append(m.types, armType)
}

func (m *typeMatcher) match(path string) (string, bool) {
	for i, t := range m.templates {
		if mt, ok := t.Match(path); ok && !mt.Collection {
			return m.types[i], true
		}
	}
	return "", false
}

// gather walks the recordings and collects, per lower-case ARM type, what
// they show. A resource's state follows the recording: a successful PUT
// makes it exist, a successful DELETE makes it gone (with everything below
// it). A recording that starts mid-life is read as fakearm/conformance
// replays it: a first PUT answered 200, in a recording that did not create
// the resource group, updates a resource that existed.
func gather(recs []Recording, m *typeMatcher) map[string]*evidence {
	out := map[string]*evidence{}
	for _, rec := range recs {
		w := walker{out: out, m: m, rec: rec, present: map[string]bool{}, touched: map[string]bool{}, created: map[string]bool{}, gone: map[string]bool{}, deleting: map[string]bool{}, request: map[string]map[string]any{}, ops: map[string]string{}}
		its := rec.Cassette.Interactions
		for i, it := range its {
			// A run of identical GETs waited for a state: only its last
			// answer says how ARM ends up answering (the first may be the
			// provider's own 404 of a resource it just deleted, the last
			// the gateway's), as fakearm/conformance compares it.
			if i+1 < len(its) && it.Request.Method == http.MethodGet && its[i+1].Request.Method == http.MethodGet && strings.EqualFold(its[i+1].Request.URL, it.Request.URL) {
				continue
			}
			w.interaction(i, it)
		}
	}
	formats := map[string]int{}
	for _, rec := range recs {
		formats[rec.Name] = rec.Cassette.Version
	}
	for _, ev := range out {
		ev.setFormats(formats)
	}
	return out
}

// setFormats sets the go-vcr format of every observation from the
// recording its where names.
func (e *evidence) setFormats(formats map[string]int) {
	set := func(obs []seen) {
		for i := range obs {
			name, _, _ := strings.Cut(obs[i].where, " #")
			obs[i].format = formats[name]
		}
	}
	for _, obs := range e.answers {
		set(obs)
	}
	for _, obs := range [][]seen{e.notFound, e.beingDeleted, e.refused, e.gets, e.puts, e.blocked, e.ops, e.parentNotFound, e.groupGone, e.referenceNotFound, e.referenceAccepted, e.implicit} {
		set(obs)
	}
}

// newest keeps the observations of the newest recordings: ARM's answers
// change over time (a Service Bus namespace PUT answered 200 at once in
// the 2021-22 recordings and 201 with an operation since; nested resources
// below a gone group answered ParentResourceNotFound, now
// ResourceGroupNotFound), and the emulator answers as ARM does now. The
// go-vcr format says which are newer: ASO records in format 2 since 2023.
func newest(obs []seen) []seen {
	top := 0
	for _, o := range obs {
		top = max(top, o.format)
	}
	var out []seen
	for _, o := range obs {
		if o.format == top {
			out = append(out, o)
		}
	}
	return out
}

type walker struct {
	out     map[string]*evidence
	m       *typeMatcher
	rec     Recording
	present map[string]bool // lower path → exists
	touched map[string]bool // lower path → written before
	created map[string]bool // lower path → created by a PUT answered 201
	gone    map[string]bool // lower resource group path → deleted
	// deleting are resource groups whose DELETE was accepted (202) and
	// not yet seen gone: their providers still answer for what is in them.
	deleting map[string]bool
	request  map[string]map[string]any // lower path → body of the PUT that made it
	ops      map[string]string         // lower Azure-AsyncOperation path → lower ARM type
}

// interaction reads the i-th interaction of the recording: the status of
// an operation it follows, or a call on a resource of a known type, which
// the function of its verb keeps.
func (w *walker) interaction(i int, it recording.Interaction) {
	path := it.Path()
	lp := strings.ToLower(path)
	if t, ok := w.ops[lp]; ok && it.Request.Method == http.MethodGet {
		w.operationStatus(t, fmt.Sprintf("%s #%d", w.rec.Name, i), it)
		return
	}
	armType, ok := w.m.match(path)
	if !ok {
		if it.Request.Method == http.MethodPost && it.Response.Code == http.StatusOK {
			w.action(fmt.Sprintf("%s #%d", w.rec.Name, i), path)
		}
		return
	}
	ev := w.evidenceOf(armType)
	resp := it.Response
	if u := resp.Headers.Get("Azure-Asyncoperation"); u != "" && it.Request.Method != http.MethodGet {
		if pu, err := url.Parse(u); err == nil {
			w.ops[strings.ToLower(pu.Path)] = strings.ToLower(armType)
		}
	}
	s := call{
		it: it, path: path, lp: lp, ev: ev,
		where: fmt.Sprintf("%s #%d", w.rec.Name, i),
		ok2xx: resp.Code >= 200 && resp.Code < 300,
		body:  object(resp.Body),
	}
	if g := groupOf(lp); g != "" && resp.Code == http.StatusNotFound && errorCode(s.body) == "ResourceGroupNotFound" {
		// ARM says the group is gone: whatever its deletion's polls said
		// (a DELETE's 202 leaves it deleting until a GET of it answers
		// 404), this answer is about the group, not about the type — not
		// evidence of a parent's absence.
		delete(w.deleting, g)
		w.gone[g] = true
	}
	if g := groupOf(lp); resp.Code == http.StatusNotFound && g != "" && w.gone[g] && nested(lp, g) {
		ev.groupGone = append(ev.groupGone, seen{where: s.where, err: errorOf(resp)})
		return
	}
	if resp.Code == http.StatusNotFound && !w.present[lp] && w.parentGone(lp) {
		ev.parentNotFound = append(ev.parentNotFound, seen{where: s.where, err: errorOf(resp)})
		return
	}
	switch it.Request.Method {
	case http.MethodPut:
		w.put(s)
	case http.MethodPatch:
		if s.ok2xx {
			ev.answers[casePatch] = append(ev.answers[casePatch], seen{where: s.where, answer: answerOf(resp, path)})
		}
	case http.MethodDelete:
		w.delete(s)
	case http.MethodGet:
		w.get(s)
	}
}

// call is one interaction on a resource of a known type, as the walker's
// functions per verb see it.
type call struct {
	// it is the interaction; path its request path, lp that lowercased
	// (the walker's key); where names it ("<recording> #<index>").
	it       recording.Interaction
	path, lp string
	where    string
	ev       *evidence
	ok2xx    bool
	body     map[string]any
}

// operationStatus keeps a GET of an operation-status URL of type t: the
// body of a Succeeded operation.
func (w *walker) operationStatus(t, where string, it recording.Interaction) {
	body := object(it.Response.Body)
	if st, _ := body["status"].(string); strings.EqualFold(st, "Succeeded") && w.out[t] != nil {
		w.out[t].ops = append(w.out[t].ops, seen{where: where, body: body})
	}
}

// put keeps a PUT: a create or update answer and the resource's body, a
// refusal while it is being deleted, or a refused name or region.
func (w *walker) put(s call) {
	resp, lp, ev := s.it.Response, s.lp, s.ev
	if !w.touched[lp] && resp.Code == http.StatusOK && !w.created[groupOf(lp)] {
		w.present[lp] = true // it existed before the recording
	}
	w.touched[lp] = true
	switch {
	case s.ok2xx:
		if w.namesMissing(object(s.it.Request.Body), lp) {
			ev.referenceAccepted = append(ev.referenceAccepted, seen{where: s.where})
		}
		c := caseCreate
		if w.present[lp] {
			c = caseUpdate
		}
		ev.answers[c] = append(ev.answers[c], seen{where: s.where, answer: answerOf(resp, s.path)})
		w.present[lp] = true
		w.request[lp] = object(s.it.Request.Body)
		if s.body != nil && (resp.Code == http.StatusOK || resp.Code == http.StatusCreated) {
			ev.puts = append(ev.puts, seen{where: s.where, body: s.body, request: w.request[lp], path: s.path})
		}
		if resp.Code == http.StatusCreated {
			w.created[lp] = true
		}
		delete(w.gone, lp)
	case resp.Code == http.StatusConflict && strings.Contains(errorCode(s.body), "BeingDeleted"):
		ev.beingDeleted = append(ev.beingDeleted, seen{where: s.where, err: errorOf(resp)})
	case (resp.Code == http.StatusBadRequest || resp.Code == http.StatusNotFound) && w.parentPresent(lp) && w.namesMissing(object(s.it.Request.Body), lp):
		ev.referenceNotFound = append(ev.referenceNotFound, seen{where: s.where, err: errorOf(resp)})
	case resp.Code == http.StatusBadRequest:
		segs := strings.Split(strings.Trim(s.path, "/"), "/")
		ev.refused = append(ev.refused, seen{where: s.where, err: errorOf(resp), name: segs[len(segs)-1], allowed: allowedRegions(s.body)})
	}
}

// delete keeps a DELETE: a refusal because of children, the answer for a
// present or a missing resource; it marks the resource and its children
// gone, a resource group deleting or gone.
func (w *walker) delete(s call) {
	resp, lp, ev := s.it.Response, s.lp, s.ev
	w.touched[lp] = true
	if resp.Code == http.StatusConflict && w.present[lp] {
		if children := w.presentChildren(lp); len(children) > 0 {
			ev.blocked = append(ev.blocked, seen{where: s.where, err: errorOf(resp), children: children})
		}
	}
	if !s.ok2xx {
		return
	}
	switch {
	case w.present[lp]:
		ev.answers[caseDelete] = append(ev.answers[caseDelete], seen{where: s.where, answer: answerOf(resp, s.path)})
	case w.parentPresent(lp):
		ev.answers[caseDeleteMissing] = append(ev.answers[caseDeleteMissing], seen{where: s.where, answer: answerOf(resp, s.path)})
	}
	for k := range w.present {
		if k == lp || strings.HasPrefix(k, lp+"/") {
			w.present[k] = false
		}
	}
	if groupOf(lp) == lp {
		if resp.Code == http.StatusAccepted {
			w.deleting[lp] = true
		} else {
			w.gone[lp] = true
		}
	}
}

// namesMissing reports whether a request body names, in a string, a
// resource of a known type (other than lp and its ancestors) that does
// not exist now: never written, or deleted, in a group that exists.
func (w *walker) namesMissing(body any, lp string) bool {
	switch v := body.(type) {
	case map[string]any:
		for _, x := range v {
			if w.namesMissing(x, lp) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if w.namesMissing(x, lp) {
				return true
			}
		}
	case string:
		id := strings.ToLower(strings.TrimSuffix(v, "/"))
		if !strings.HasPrefix(id, "/subscriptions/") || id == lp || strings.HasPrefix(lp, id+"/") {
			return false
		}
		if _, known := w.m.match(v); !known || w.present[id] || !w.parentPresent(id) {
			return false
		}
		return groupOf(id) != "" && !w.present[id]
	}
	return false
}

// presentChildren are the types of the present resources under lp,
// sorted.
func (w *walker) presentChildren(lp string) []string {
	var children []string
	for k, ok := range w.present {
		if ok && strings.HasPrefix(k, lp+"/") {
			if t, ok := w.m.match(k); ok && !slices.Contains(children, t) {
				children = append(children, t)
			}
		}
	}
	sort.Strings(children)
	return children
}

// get keeps a GET: a resource group's delete finishing, the not-found
// error of a missing resource, or the body of a present one.
func (w *walker) get(s call) {
	resp, lp, ev := s.it.Response, s.lp, s.ev
	if groupOf(lp) == lp && resp.Code == http.StatusNotFound && w.deleting[lp] {
		delete(w.deleting, lp)
		w.gone[lp] = true
	}
	switch {
	case resp.Code == http.StatusNotFound && !w.present[lp] && w.parentPresent(lp):
		ev.notFound = append(ev.notFound, seen{where: s.where, err: errorOf(resp)})
	case resp.Code == http.StatusOK && s.body != nil:
		ev.gets = append(ev.gets, seen{where: s.where, body: s.body, request: w.request[lp], path: s.path})
	}
}

// nested reports whether a lower-case path names a resource below another
// resource of its group g (a child, not a top-level resource).
func nested(lp, g string) bool {
	rest := strings.Trim(strings.TrimPrefix(lp, g), "/")
	if !strings.HasPrefix(rest, "providers/") {
		return false
	}
	return strings.Count(strings.TrimPrefix(rest, "providers/"), "/") >= 3
}

// parentPresent reports whether the resource group of a path (the
// subscription, for a group) is known to exist.
func (w *walker) parentPresent(lp string) bool {
	g := groupOf(lp)
	switch {
	case g == "" || g == lp:
		return true
	case w.gone[g]:
		return false
	case w.deleting[g]:
		return true
	}
	return w.present[g] || !w.touched[g]
}

// evidenceOf is the evidence of an ARM type, made when first needed.
func (w *walker) evidenceOf(armType string) *evidence {
	ev := w.out[strings.ToLower(armType)]
	if ev == nil {
		ev = &evidence{answers: map[string][]seen{}}
		w.out[strings.ToLower(armType)] = ev
	}
	return ev
}

// action reads a POST action answered 200 (listKeys): when the resource it
// acts on was never written in the recording but its parent was, the
// service made it with the parent.
func (w *walker) action(where, path string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for n := 1; n <= 2 && n < len(segs); n++ {
		rp := "/" + strings.Join(segs[:len(segs)-n], "/")
		armType, ok := w.m.match(rp)
		if !ok {
			continue
		}
		lrp := strings.ToLower(rp)
		parent := parentOf(lrp)
		if parent != "" && parent != groupOf(lrp) && !w.touched[lrp] && w.touched[parent] && w.present[parent] {
			ev := w.evidenceOf(armType)
			rs := strings.Split(strings.Trim(rp, "/"), "/")
			ev.implicit = append(ev.implicit, seen{where: where, name: rs[len(rs)-1]})
			w.present[lrp] = true
		}
		return
	}
}

// parentOf is the parent resource path of a lower-case resource path (its
// group for a top-level resource), or "".
func parentOf(lp string) string {
	segs := strings.Split(strings.Trim(lp, "/"), "/")
	if len(segs) < 4 {
		return ""
	}
	segs = segs[:len(segs)-2]
	if len(segs) >= 2 && segs[len(segs)-2] == "providers" {
		segs = segs[:len(segs)-2]
	}
	return "/" + strings.Join(segs, "/")
}

// parentGone reports whether the parent resource of a lower-case path
// (not its group) was deleted while its group exists.
func (w *walker) parentGone(lp string) bool {
	parent := parentOf(lp)
	g := groupOf(lp)
	if parent == "" || parent == g || g == "" || !w.parentPresent(lp) {
		return false
	}
	return w.touched[parent] && !w.present[parent]
}

// answerOf reads an answer's shape.
func answerOf(r recording.Response, resourcePath string) recording.Answer {
	a := recording.Answer{Status: r.Code, AsyncOperation: r.Headers.Get("Azure-Asyncoperation") != "", EmptyBody: strings.TrimSpace(r.Body) == ""}
	if loc := r.Headers.Get("Location"); loc != "" {
		a.Location = recording.LocationOperation
		if u, err := url.Parse(loc); err == nil && strings.EqualFold(u.Path, resourcePath) {
			a.Location = recording.LocationResource
		}
	}
	return a
}

func errorOf(r recording.Response) recording.Error {
	return recording.Error{Status: r.Code, Code: errorCode(object(r.Body)), Gateway: strings.EqualFold(r.Headers.Get("X-Ms-Failure-Cause"), "gateway")}
}

func object(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// errorCode is ARM's error.code, or App Service's top-level Code.
func errorCode(obj map[string]any) string {
	if e, ok := obj["error"].(map[string]any); ok {
		if c, ok := e["code"].(string); ok {
			return c
		}
	}
	c, _ := obj["Code"].(string)
	return c
}

var regionList = regexp.MustCompile(`(?i)list of available regions is '([^']*)'`)

// allowedRegions reads the regions an error message lists.
func allowedRegions(obj map[string]any) []string {
	e, _ := obj["error"].(map[string]any)
	msg, _ := e["message"].(string)
	m := regionList.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	var out []string
	for _, r := range strings.Split(m[1], ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// groupOf is the resource group path of a lower-case path, or "".
func groupOf(lp string) string {
	segs := strings.Split(strings.Trim(lp, "/"), "/")
	if len(segs) >= 4 && segs[0] == "subscriptions" && segs[2] == "resourcegroups" {
		return "/" + strings.Join(segs[:4], "/")
	}
	return ""
}
