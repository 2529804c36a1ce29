package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Options configure a replay.
type Options struct {
	// Descriptors are the resource types the emulator serves. Required.
	Descriptors []*descriptor.Descriptor
	// New returns a fresh emulator; every recording is replayed against
	// its own. Required.
	New func() (http.Handler, error)
	// MaxPolls bounds the polls of one operation of the emulator. Defaults
	// to 100.
	MaxPolls int
}

// StepResult is one compared step.
type StepResult struct {
	Step
	// ARMType is the resource type the step concerns ("" when the path
	// names none).
	ARMType string `json:"armType,omitempty"`
	// Served is false when the emulator does not serve the type: the step
	// then counts as not matching.
	Served bool `json:"served"`
	// APIVersion is the served api-version the request was sent with.
	APIVersion string `json:"apiVersion,omitempty"`
	// Recorded is the recorded answer compared (the last interaction's).
	Recorded Answer `json:"recorded"`
	// Emulator is the emulator's answer (nil when nothing was sent).
	Emulator *Answer `json:"emulator,omitempty"`
	Match    bool    `json:"match"`
	// Why says what differs, or why nothing was compared.
	Why string `json:"why,omitempty"`
	// Unknown are the members the recorded body has, and the emulator's
	// lacks, that no api-version the emulator serves defines for the type:
	// the recording's api-version is newer than the spec root's.
	Unknown []string `json:"unknownMembers,omitempty"`
	// NewerOnly is set on a differing step whose only difference is such
	// members (re-pinning the spec root is what serves them).
	NewerOnly bool `json:"newerOnly,omitempty"`
}

// Recording is the replay of one cassette.
type Recording struct {
	File string `json:"file"`
	// Interactions is the number of recorded interactions.
	Interactions int          `json:"interactions"`
	Steps        []StepResult `json:"steps"`
	// Setup lists what was created before the replay because the
	// recording starts with it already there (not compared).
	Setup []string `json:"setup,omitempty"`
	Tally
}

// Tally counts compared steps.
type Tally struct {
	// Matching and Total count every step.
	Matching int `json:"matching"`
	Total    int `json:"total"`
	// ServedMatching and Served count the steps of types the emulator
	// serves.
	ServedMatching int `json:"servedMatching"`
	Served         int `json:"served"`
	// Newer counts the differing steps whose recorded body has members no
	// served api-version of the type defines (they cannot match without a
	// newer spec root); NewerOnly those of them that differ in nothing
	// else.
	Newer     int `json:"newer"`
	NewerOnly int `json:"newerOnly"`
}

func (t *Tally) add(o Tally) {
	t.Matching += o.Matching
	t.Total += o.Total
	t.ServedMatching += o.ServedMatching
	t.Served += o.Served
	t.Newer += o.Newer
	t.NewerOnly += o.NewerOnly
}

// Report is the replay of several cassettes.
type Report struct {
	Recordings []Recording `json:"recordings"`
	// Interactions is the number of recorded interactions of all files.
	Interactions int `json:"interactions"`
	Tally
}

// Run replays every file, each against a fresh emulator.
func Run(files []string, opts Options) (*Report, error) {
	rep := &Report{}
	for _, f := range files {
		c, err := recording.LoadCassette(f)
		if err != nil {
			return nil, err
		}
		h, err := opts.New()
		if err != nil {
			return nil, err
		}
		rep.append(Replay(filepath.Base(f), c, h, opts))
	}
	return rep, nil
}

// append adds a recording's replay to the report.
func (rep *Report) append(rec Recording) {
	rep.Recordings = append(rep.Recordings, rec)
	rep.Interactions += rec.Interactions
	rep.add(rec.Tally)
}

// replayer is the state of one replay.
type replayer struct {
	opts Options
	h    http.Handler
	c    *recording.Cassette
	// ops are, by mutation step, the final answers of the emulator's
	// operation by header (azure-async-operation, location).
	ops map[int]map[string]Answer
	// pending are operations started by setup, driven to their end after
	// the next step.
	pending []http.Header
	// deferred are, by mutation step, the answers whose operation the
	// recording polls in a later step: the emulator's operation is driven
	// there, in place of the recorded polls, so that what the recording
	// did meanwhile meets the operation still running (a Private DNS zone
	// refuses deletion while its link's deletion runs).
	deferred map[int]deferredOp
	// members are the body keys each served type defines (members).
	members map[string]map[string]bool
}

type deferredOp struct {
	h    http.Header
	path string
	at   int // the last recorded poll
}

// Replay replays one cassette against an emulator.
func Replay(name string, c *recording.Cassette, h http.Handler, opts Options) Recording {
	if opts.MaxPolls <= 0 {
		opts.MaxPolls = 100
	}
	r := &replayer{opts: opts, h: h, c: c, ops: map[int]map[string]Answer{}, deferred: map[int]deferredOp{}, members: members(opts.Descriptors)}
	rec := Recording{File: name, Interactions: len(c.Interactions)}
	steps := Steps(c)
	setups := setupsOf(c, steps)
	var postponed []int // Operation steps waiting for their deferred drive
	add := func(res StepResult) {
		rec.Steps = append(rec.Steps, res)
		rec.Total++
		if res.Match {
			rec.Matching++
		}
		if res.Served {
			rec.Served++
			if res.Match {
				rec.ServedMatching++
			}
		}
		if len(res.Unknown) > 0 {
			rec.Newer++
		}
		if res.NewerOnly {
			rec.NewerOnly++
		}
	}
	// driveUpTo drives the deferred operations whose recorded polls ended
	// before interaction i, then compares the steps that waited for them.
	driveUpTo := func(i int) {
		for _, mi := range slices.Sorted(maps.Keys(r.deferred)) {
			if d := r.deferred[mi]; d.at < i {
				delete(r.deferred, mi)
				r.ops[mi] = r.drive(d.h, d.path)
			}
		}
		var still []int
		for _, si := range postponed {
			if _, ok := r.deferred[steps[si].Of]; ok {
				still = append(still, si)
				continue
			}
			add(r.step(si, steps[si], steps))
		}
		postponed = still
	}
	for si, st := range steps {
		driveUpTo(st.Interactions[0])
		if s, ok := setups[si]; ok {
			rec.Setup = append(rec.Setup, r.setup(s))
		}
		if _, ok := r.deferred[st.Of]; ok && st.Kind == Operation {
			postponed = append(postponed, si)
			continue
		}
		res := r.step(si, st, steps)
		for _, hd := range r.pending {
			r.drive(hd, "")
		}
		r.pending = nil
		add(res)
	}
	driveUpTo(len(c.Interactions) + 1)
	return rec
}

// step replays and compares one step.
func (r *replayer) step(si int, st Step, steps []Step) StepResult {
	last := r.c.Interactions[st.Interactions[len(st.Interactions)-1]]
	res := StepResult{Step: st, Recorded: answerOf(last.Response.Code, last.Response.Headers, []byte(last.Response.Body))}
	if st.Kind == Operation {
		of := steps[st.Of]
		res.ARMType, res.Served = r.typeOf(of.Path)
		if !res.Served {
			res.Why = "type not served"
			return res
		}
		if d, ok := r.deferred[st.Of]; ok {
			delete(r.deferred, st.Of)
			r.ops[st.Of] = r.drive(d.h, d.path)
		}
		via := st.Via
		var op struct{ Status string }
		_ = json.Unmarshal([]byte(last.Response.Body), &op)
		if last.Response.Code == http.StatusAccepted || op.Status != "" && !terminal(op.Status) {
			// The recording stopped polling before the operation ended
			// (it read the resource instead): compare the emulator's
			// operation while it runs, its first poll.
			via += firstPoll
		}
		got, ok := r.ops[st.Of][via]
		if !ok {
			res.Why = fmt.Sprintf("the emulator started no operation with a %s header", st.Via)
			return res
		}
		res.Emulator = &got
		res.Why = compare(st.Kind, res.Recorded, got)
		res.Match = res.Why == ""
		return res
	}
	if d, ok := r.find(st.Path); ok {
		res.ARMType, res.Served, res.APIVersion = d.ARMType, true, r.served(d)
	} else if t, v, ok := r.native(st.Path); ok {
		res.ARMType, res.Served, res.APIVersion = t, true, v
	} else if d, v, ok := r.action(st); ok {
		res.ARMType, res.Served, res.APIVersion = d.ARMType, true, v
	} else {
		res.ARMType, _ = descriptor.TypeOf(st.Path)
		res.Why = "type not served"
		return res
	}
	if st.Kind == Mutation && res.Recorded.Status == http.StatusTooManyRequests {
		// A request ARM throttled changed nothing in Azure: it is not
		// sent, so that the emulator's state stays Azure's for the steps
		// after it (the client's next try). The emulator throttles only
		// when told to: the step counts as differing. (A 504 is not
		// such: the provider may have done what the gateway timed out
		// on, as Test_SQL_Server_CRUD.yaml's firewall rule shows.)
		res.Why = "ARM answered 429 (throttled): not sent"
		return res
	}
	status, hd, body := r.send(st.Method, st.Path, res.APIVersion, last.Request.Body)
	got := answerOf(status, hd, body)
	res.Emulator = &got
	if st.Kind == Mutation {
		at := -1
		for _, o := range steps[si+1:] {
			if o.Kind == Operation && o.Of == si {
				at = max(at, o.Interactions[len(o.Interactions)-1])
			}
		}
		if at < 0 {
			at = r.seenGone(si, st, steps)
		}
		if at >= 0 {
			r.deferred[si] = deferredOp{h: hd.Clone(), path: st.Path, at: at}
		} else {
			r.ops[si] = r.drive(hd, st.Path)
		}
	}
	res.Why = compare(st.Kind, res.Recorded, got)
	res.Match = res.Why == ""
	if missing := lacking(res.Recorded, got); len(missing) > 0 {
		res.Unknown = unknownMembers(r.members[strings.ToLower(res.ARMType)], missing)
		if len(res.Unknown) > 0 {
			res.NewerOnly = compare(st.Kind, res.Recorded, withKeys(got, res.Unknown)) == ""
			res.Why += " (defined by no api-version served: " + strings.Join(res.Unknown, ", ") + ")"
		}
	}
	return res
}

// withKeys is a with keys added.
func withKeys(a Answer, keys []string) Answer {
	a.Keys = slices.Sorted(slices.Values(append(slices.Clone(a.Keys), keys...)))
	return a
}

// seenGone is, for the DELETE of a resource group whose operation the
// recording never polls, the interaction before the first later step the
// recording shows answered 404 ResourceGroupNotFound in that group: the
// recording's own observation that the deletion had ended, where the
// emulator's is driven. Before it the group is being deleted, as it was
// (GETs of its resources recorded meanwhile answer ResourceNotFound, not
// ResourceGroupNotFound). -1 for other steps, and when the recording never
// sees the group gone (the deletion is driven at once).
func (r *replayer) seenGone(si int, st Step, steps []Step) int {
	lp := strings.ToLower(st.Path)
	if st.Method != http.MethodDelete || groupOf(lp) != lp || lp == "" {
		return -1
	}
	for _, o := range steps[si+1:] {
		if o.Kind == Operation || groupOf(strings.ToLower(o.Path)) != lp {
			continue
		}
		last := r.c.Interactions[o.Interactions[len(o.Interactions)-1]]
		if last.Response.Code == http.StatusNotFound && errorCode(object([]byte(last.Response.Body))) == "ResourceGroupNotFound" {
			return o.Interactions[0] - 1
		}
	}
	return -1
}

// find returns the descriptor whose template matches a resource path.
func (r *replayer) find(path string) (*descriptor.Descriptor, bool) {
	d, _, ok := descriptor.Find(r.opts.Descriptors, path)
	return d, ok
}

func (r *replayer) typeOf(path string) (string, bool) {
	if d, ok := r.find(path); ok {
		return d.ARMType, true
	}
	if t, _, ok := r.native(path); ok {
		return t, true
	}
	t, _ := descriptor.TypeOf(path)
	return t, false
}

// native is the type of a path the emulator serves beyond the Descriptors
// (fakearm.Native: Key Vault's deletedVaults) and the api-version to send:
// the newest one the emulator serves for the type it goes with.
func (r *replayer) native(path string) (armType, apiVersion string, ok bool) {
	t, of, ok := fakearm.Native(path)
	if !ok {
		return "", "", false
	}
	for _, d := range r.opts.Descriptors {
		if strings.EqualFold(d.ARMType, of) && d.APIVersion > apiVersion {
			apiVersion = d.APIVersion
		}
	}
	return t, apiVersion, apiVersion != ""
}

// action is, for a POST to an action of a served type (a storage account's
// listKeys), the Descriptor of the resource the action is on and the
// newest api-version the emulator serves the action at.
func (r *replayer) action(st Step) (*descriptor.Descriptor, string, bool) {
	if st.Method != http.MethodPost {
		return nil, "", false
	}
	segs := strings.Split(strings.Trim(st.Path, "/"), "/")
	for n := 1; n <= 2 && n < len(segs); n++ {
		d, ok := r.find("/" + strings.Join(segs[:len(segs)-n], "/"))
		if !ok {
			continue
		}
		name := strings.Join(segs[len(segs)-n:], "/")
		var best *descriptor.Descriptor
		for _, o := range r.opts.Descriptors {
			if _, has := o.Action(name); has && strings.EqualFold(o.ARMType, d.ARMType) && (best == nil || o.APIVersion > best.APIVersion) {
				best = o
			}
		}
		if best != nil {
			return best, best.APIVersion, true
		}
	}
	return nil, "", false
}

// served is the api-version a recorded request is sent with: the newest
// one the emulator serves for the type.
func (r *replayer) served(d *descriptor.Descriptor) string {
	v := d.APIVersion
	for _, o := range r.opts.Descriptors {
		if strings.EqualFold(o.ARMType, d.ARMType) && o.APIVersion > v {
			v = o.APIVersion
		}
	}
	return v
}

// send sends one request to the emulator.
func (r *replayer) send(method, path, apiVersion, body string) (int, http.Header, []byte) {
	target := "https://management.azure.com" + path
	if apiVersion != "" {
		target += "?api-version=" + url.QueryEscape(apiVersion)
	}
	return r.sendURL(method, target, body)
}

func (r *replayer) sendURL(method, target, body string) (int, http.Header, []byte) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer conformance")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	return w.Code, w.Header(), w.Body.Bytes()
}

// drive polls the emulator's operation named by an answer's headers to its
// end, and returns the last answer per header. A Location naming the
// resource itself is no operation.
func (r *replayer) drive(h http.Header, resource string) map[string]Answer {
	out := map[string]Answer{}
	if u := h.Get(headerAsync); u != "" {
		var a Answer
		for i := range r.opts.MaxPolls {
			status, hd, body := r.sendURL(http.MethodGet, u, "")
			a = answerOf(status, hd, body)
			if i == 0 {
				out[viaAsync+firstPoll] = a
			}
			var op struct{ Status string }
			_ = json.Unmarshal(body, &op)
			if status != http.StatusOK && status != http.StatusAccepted || terminal(op.Status) {
				break
			}
		}
		out[viaAsync] = a
	}
	if u := h.Get(headerLocation); u != "" && !strings.EqualFold(headerPath(u), resource) {
		var a Answer
		for i := range r.opts.MaxPolls {
			status, hd, body := r.sendURL(http.MethodGet, u, "")
			a = answerOf(status, hd, body)
			if i == 0 {
				out[viaLocation+firstPoll] = a
			}
			if status != http.StatusAccepted {
				break
			}
		}
		out[viaLocation] = a
	}
	return out
}

// firstPoll suffixes a via for the first poll's answer.
const firstPoll = "#first"

func terminal(status string) bool {
	switch strings.ToLower(status) {
	case "succeeded", "failed", "canceled", "cancelled":
		return true
	}
	return false
}
