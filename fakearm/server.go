package fakearm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Options configure a Server. The zero value of every field means its
// default.
type Options struct {
	// Token, when set, is the only bearer token accepted. Defaults to
	// accepting any bearer token.
	Token string
	// LROPolls is how many polls of an operation answer InProgress at
	// most before it ends. Defaults to 1.
	LROPolls int
	// LRODuration is how long an operation runs: it ends then by itself,
	// polled or not (a resource group DELETE removes its children without
	// anyone asking), or earlier when LROPolls polls have been answered.
	// Defaults to 10s; negative: only polls end operations.
	LRODuration time.Duration
	// Profiles are the behaviour profiles the emulator follows (package
	// recording). Defaults to the generated ones, generated/profiles;
	// an empty set makes every type follow its swagger alone.
	Profiles *recording.ProfileSet
	// RetryAfter is the Retry-After of LRO responses. Defaults to 1s; a
	// negative value sends Retry-After: 0.
	RetryAfter time.Duration
	// QuotaWindow is how long a rate-limit budget takes to refill from
	// empty: each is a token bucket (ARM's throttling since 2024) of its
	// budget's size refilled at budget/QuotaWindow per second. ARM's
	// published limits are ReadBudget 250 with QuotaWindow 10s (25 reads
	// per second) and WriteBudget 200 refilled at 10 per second. Defaults
	// to one minute.
	QuotaWindow time.Duration
	// ReadBudget, WriteBudget and DeleteBudget are the sizes of a
	// subscription's buckets (see QuotaWindow). Default to 100000, 10000
	// and 10000.
	ReadBudget, WriteBudget, DeleteBudget int
	// ReadRefill, WriteRefill and DeleteRefill are tokens per second, when
	// they differ from budget/QuotaWindow: ARM's published limits are
	// ReadBudget 250, ReadRefill 25, WriteBudget and DeleteBudget 200,
	// WriteRefill and DeleteRefill 10 (ARMLimits sets them).
	ReadRefill, WriteRefill, DeleteRefill float64
	// StateFile, when set, is where resources are saved after every write
	// and loaded from at start.
	StateFile string
	// Faults are the faults injected from the start.
	Faults Faults
	// Apps are the Azure AD applications the token endpoint knows (aad.go).
	// When there is one, ARM calls need a token it issued for an app that
	// may use the subscription of the path (or Token). Defaults to none.
	Apps []App
	// Audience, when set, is the token audience this ARM accepts (a
	// sovereign cloud's, e.g. https://management.usgovcloudapi.net/): the
	// token endpoint issues tokens only for the scope <Audience>/.default
	// (else 400 invalid_resource, AADSTS500011, as Azure AD answers a
	// resource it does not know), and an ARM call with a token issued for
	// another audience is 401 InvalidAuthenticationTokenAudience. Token
	// (the static one) is not checked. Defaults to none: any scope.
	Audience string
	// Unregistered names, per subscription id, the resource provider
	// namespaces the subscription is not registered with: their calls
	// answer 409 MissingSubscriptionRegistration until POST
	// /subscriptions/{id}/providers/{namespace}/register (providers.go).
	Unregistered map[string][]string
	// Seed seeds fault injection. Defaults to 1, so runs repeat.
	Seed uint64
	// JournalSize is how many journal entries are kept. Defaults to 100000.
	JournalSize int
	// PageSize is how many items a LIST answers per page; the rest follow
	// at the page's nextLink, as ARM pages. Defaults to DefaultPageSize.
	PageSize int
	// Now returns the time. Defaults to time.Now.
	Now func() time.Time
}

// Faults are injected failures. Rates are shares of matching requests,
// from 0 to 1.
type Faults struct {
	// ThrottleRate answers 429 TooManyRequests with Retry-After.
	ThrottleRate float64 `json:"throttleRate,omitempty"`
	// ThrottleNext answers the next N matching requests with 429.
	ThrottleNext int `json:"throttleNext,omitempty"`
	// ThrottleRetryAfterSeconds is the Retry-After of injected 429s
	// (default 1).
	ThrottleRetryAfterSeconds int `json:"throttleRetryAfterSeconds,omitempty"`
	// ErrorRate answers ErrorStatus (default 500).
	ErrorRate   float64 `json:"errorRate,omitempty"`
	ErrorStatus int     `json:"errorStatus,omitempty"`
	// LatencyMillis is added to every matching request.
	LatencyMillis int `json:"latencyMillis,omitempty"`
	// DropRate closes the connection without an answer.
	DropRate float64 `json:"dropRate,omitempty"`
	// FailLROs makes operations started while it is set end Failed.
	FailLROs bool `json:"failLROs,omitempty"`
	// Methods limits the faults to these HTTP methods (all when empty).
	Methods []string `json:"methods,omitempty"`
	// PathContains limits the faults to paths containing it.
	PathContains string `json:"pathContains,omitempty"`
	// PathSuffix limits the faults to paths ending with it (a collection:
	// /storageAccounts).
	PathSuffix string `json:"pathSuffix,omitempty"`
	// Codes answer matching requests with ARM errors by code (codes.go),
	// before the faults above; Methods and PathContains do not apply to
	// them.
	Codes []CodeFault `json:"codes,omitempty"`
}

// Entry is one journaled request.
type Entry struct {
	Time    time.Time `json:"time"`
	Method  string    `json:"method"`
	Path    string    `json:"path"`
	Query   string    `json:"query,omitempty"`
	Status  int       `json:"status"`
	ARMType string    `json:"armType,omitempty"`
	Body    string    `json:"body,omitempty"`
	// Page is, for a LIST (a collection or a group's resources), the
	// number of the page answered, from 1; 0 for other requests.
	Page int `json:"page,omitempty"`
	// Items is how many items the LIST page held.
	Items int `json:"items,omitempty"`
	// Removed are the ids of the resources the request deleted besides
	// its target: the embedded children a parent's PUT left out
	// (embedded.go).
	Removed []string `json:"removed,omitempty"`
}

// Server is the emulator. It is an http.Handler.
type Server struct {
	opts   Options
	routes []*route

	mu        sync.RWMutex
	resources map[string]*resource // lower-case id
	ops       map[string]*operation
	acts      actionState // POST actions (actions.go)

	fmu    sync.Mutex
	faults Faults
	rng    *mrand.Rand

	jmu     sync.Mutex
	journal []Entry
	jnext   int
	jfull   bool

	counts sync.Map // "METHOD" and "METHOD STATUS" → *atomic.Int64

	qmu   sync.Mutex
	quota map[string]*budget // subscription → budget

	ad       directory                // Azure AD apps and issued tokens (aad.go)
	deleted  map[string]*deletedVault // soft-deleted Key Vaults by lower-case name (keyvault.go)
	regs     registrations            // provider registrations (providers.go)
	profiles *recording.ProfileSet
	// implicit are, by lower-case parent ARM type, the children the
	// service creates with a new parent (createImplicit).
	implicit map[string][]implicitChild
}

// New returns a Server for the resource types of descs.
func New(descs []*descriptor.Descriptor, opts Options) (*Server, error) {
	if opts.LROPolls <= 0 {
		opts.LROPolls = 1
	}
	if opts.LRODuration == 0 {
		opts.LRODuration = 10 * time.Second
	}
	if opts.Profiles == nil {
		set, err := defaultProfiles()
		if err != nil {
			return nil, err
		}
		opts.Profiles = set
	}
	if opts.RetryAfter == 0 {
		opts.RetryAfter = time.Second
	}
	if opts.QuotaWindow <= 0 {
		opts.QuotaWindow = time.Minute
	}
	if opts.ReadBudget <= 0 {
		opts.ReadBudget = 100000
	}
	if opts.WriteBudget <= 0 {
		opts.WriteBudget = 10000
	}
	if opts.DeleteBudget <= 0 {
		opts.DeleteBudget = 10000
	}
	w := opts.QuotaWindow.Seconds()
	if opts.ReadRefill <= 0 {
		opts.ReadRefill = float64(opts.ReadBudget) / w
	}
	if opts.WriteRefill <= 0 {
		opts.WriteRefill = float64(opts.WriteBudget) / w
	}
	if opts.DeleteRefill <= 0 {
		opts.DeleteRefill = float64(opts.DeleteBudget) / w
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.JournalSize <= 0 {
		opts.JournalSize = 100000
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		opts:      opts,
		routes:    newRoutes(descs),
		resources: map[string]*resource{},
		ops:       map[string]*operation{},
		faults:    Faults{},
		rng:       mrand.New(mrand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		journal:   make([]Entry, opts.JournalSize),
		quota:     map[string]*budget{},
		profiles:  opts.Profiles,
	}
	s.implicit = s.implicitChildren()
	s.SetFaults(opts.Faults)
	for _, a := range opts.Apps {
		s.RegisterApp(a)
	}
	for sub, namespaces := range opts.Unregistered {
		for _, ns := range namespaces {
			s.Unregister(sub, ns)
		}
	}
	if opts.StateFile != "" {
		if err := s.load(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SetFaults replaces the injected faults.
func (s *Server) SetFaults(f Faults) {
	f.Codes = append([]CodeFault(nil), f.Codes...) // counted down in place
	s.fmu.Lock()
	s.faults = f
	s.fmu.Unlock()
}

// CurrentFaults returns the injected faults.
func (s *Server) CurrentFaults() Faults {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	f := s.faults
	f.Codes = append([]CodeFault(nil), f.Codes...)
	return f
}

// Journal returns the journaled requests, oldest first.
func (s *Server) Journal() []Entry {
	s.jmu.Lock()
	defer s.jmu.Unlock()
	if !s.jfull {
		return append([]Entry(nil), s.journal[:s.jnext]...)
	}
	return append(append([]Entry(nil), s.journal[s.jnext:]...), s.journal[:s.jnext]...)
}

// ResetJournal forgets the journal and the counters.
func (s *Server) ResetJournal() {
	s.jmu.Lock()
	s.jnext, s.jfull = 0, false
	s.jmu.Unlock()
	s.counts.Range(func(k, _ any) bool { s.counts.Delete(k); return true })
}

// Count returns how many requests were answered for a key: a method
// ("PUT"), or a method and status ("PUT 201"). LIST counts the pages of
// lists answered (each is also a GET).
func (s *Server) Count(key string) int64 {
	if v, ok := s.counts.Load(key); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// Counts returns every counter.
func (s *Server) Counts() map[string]int64 {
	out := map[string]int64{}
	s.counts.Range(func(k, v any) bool { out[k.(string)] = v.(*atomic.Int64).Load(); return true })
	return out
}

func (s *Server) count(key string) {
	v, ok := s.counts.Load(key)
	if !ok {
		v, _ = s.counts.LoadOrStore(key, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

// redacted is a request body as the journal keeps it: the values of d's
// secret and writeOnly properties (passwords, keys) replaced by
// "(redacted)". A body that is not a JSON object of a known type is kept.
func redacted(d *descriptor.Descriptor, body []byte) []byte {
	if d == nil || len(body) == 0 {
		return body
	}
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	found := false
	d.Walk(m, func(n descriptor.Node) bool {
		if n.Known && (n.Class == descriptor.Secret || n.Class == descriptor.WriteOnly) {
			n.Parent[n.Key], found = "(redacted)", true
			return false
		}
		return true
	})
	if !found {
		return body
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// maxJournalBody is how much of a request body the journal keeps.
const maxJournalBody = 64 << 10

func (s *Server) record(r *http.Request, rec *recorder, armType string, body []byte) {
	status := rec.status
	s.count(r.Method)
	s.count(r.Method + " " + strconv.Itoa(status))
	if rec.page > 0 {
		s.count("LIST")
		s.count("LIST " + strconv.Itoa(status))
	}
	if len(body) > maxJournalBody {
		body = body[:maxJournalBody]
	}
	e := Entry{Time: s.opts.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, ARMType: armType, Body: string(body), Page: rec.page, Items: rec.items, Removed: rec.removed}
	s.jmu.Lock()
	s.journal[s.jnext] = e
	s.jnext++
	if s.jnext == len(s.journal) {
		s.jnext, s.jfull = 0, true
	}
	s.jmu.Unlock()
}

// recorder captures the status (and, for a LIST, the page) for the
// journal.
type recorder struct {
	http.ResponseWriter
	status      int
	page, items int
	removed     []string
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ServeHTTP answers one ARM request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_admin/") {
		s.admin(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	rec := &recorder{ResponseWriter: w}
	armType := ""
	var bodyDesc *descriptor.Descriptor // the schema of body, once known
	defer func() {
		if rec.status != 0 {
			s.record(r, rec, armType, redacted(bodyDesc, body))
		}
	}()
	h := rec.Header()
	h.Set("x-ms-request-id", newID())
	h.Set("x-ms-correlation-request-id", h.Get("x-ms-request-id"))
	if cid := r.Header.Get("x-ms-client-request-id"); cid != "" {
		h.Set("x-ms-client-request-id", cid)
	}
	if client, ok := s.azureAD(rec, r, body); ok {
		// Client secrets stay out of the journal: it keeps the client id.
		armType, body = "AzureAD", []byte("client_id="+client)
		return
	}
	if s.injectCode(rec, r) || s.inject(rec, r) {
		return
	}
	if !s.authorized(r) {
		armError(rec, http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing or the bearer token is not accepted.", "")
		return
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if !s.permitted(rec, r, segs) || s.providers(rec, r, segs) {
		return
	}
	if s.operationStatus(rec, r, segs) {
		return
	}
	if s.deletedVaults(rec, r, segs) {
		armType = deletedVaultType
		return
	}
	if r.Method == http.MethodPost {
		if t, ok := s.postAction(rec, r, segs, body); ok {
			armType = t
			return
		}
	}
	if s.inventory(rec, r, segs) {
		return
	}
	m, ok := find(s.routes, segs)
	if !ok && r.Method == http.MethodGet && s.statusRead(rec, segs) {
		return
	}
	if !ok {
		armError(rec, http.StatusNotFound, "InvalidResourceType", fmt.Sprintf("The resource type of '%s' could not be found in the namespaces this emulator serves.", r.URL.Path), "")
		return
	}
	armType = m.route.armType
	d, ok := m.route.byVersion[r.URL.Query().Get("api-version")]
	bodyDesc = d
	if !ok {
		armError(rec, http.StatusBadRequest, "InvalidApiVersionParameter", fmt.Sprintf("The api-version '%s' is invalid. The supported versions are '%s'.", r.URL.Query().Get("api-version"), strings.Join(m.route.versions, ",")), "")
		return
	}
	if !s.spend(rec, r, segs) {
		return
	}
	switch {
	case m.list && r.Method == http.MethodGet:
		s.list(rec, r, m, d)
	case m.list:
		armError(rec, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method+" is not allowed on a collection.", "")
	case r.Method == http.MethodGet:
		s.get(rec, r, m, d)
	case r.Method == http.MethodPut:
		s.put(rec, r, m, d, body)
	case r.Method == http.MethodPatch && d.HasVerb("PATCH"):
		s.patch(rec, r, m, d, body)
	case r.Method == http.MethodDelete && d.HasVerb("DELETE"):
		s.delete(rec, r, m, d)
	default:
		// A resource whose parent is gone is not found, whatever the verb
		// (recorded: a DELETE of a SQL server's settings after the server).
		s.mu.RLock()
		e := s.checkParent(m, d)
		s.mu.RUnlock()
		if e != nil {
			e.write(rec)
			return
		}
		armError(rec, http.StatusMethodNotAllowed, "MethodNotAllowed", fmt.Sprintf("The method %s is not allowed for %s.", r.Method, d.ARMType), "")
	}
}

func (s *Server) authorized(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		return false
	}
	return s.opts.Token == "" || token == s.opts.Token || s.issued(token) != nil
}

// inject applies the configured faults; true means the request was answered.
func (s *Server) inject(w http.ResponseWriter, r *http.Request) bool {
	s.fmu.Lock()
	f := s.faults
	applies := len(f.Methods) == 0
	for _, m := range f.Methods {
		applies = applies || strings.EqualFold(m, r.Method)
	}
	applies = applies && strings.Contains(r.URL.Path, f.PathContains) && strings.HasSuffix(r.URL.Path, f.PathSuffix)
	var drop, throttle, fail bool
	if applies {
		drop = s.rng.Float64() < f.DropRate
		throttle = s.rng.Float64() < f.ThrottleRate
		fail = s.rng.Float64() < f.ErrorRate
		if s.faults.ThrottleNext > 0 {
			s.faults.ThrottleNext--
			throttle = true
		}
	}
	s.fmu.Unlock()
	if !applies {
		return false
	}
	if f.LatencyMillis > 0 {
		time.Sleep(time.Duration(f.LatencyMillis) * time.Millisecond)
	}
	switch {
	case drop:
		if hj, ok := w.(*recorder).ResponseWriter.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	case throttle:
		ra := f.ThrottleRetryAfterSeconds
		if ra <= 0 {
			ra = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(ra))
		armError(w, http.StatusTooManyRequests, "TooManyRequests", "The request is being throttled (injected fault).", "")
		return true
	case fail:
		status := f.ErrorStatus
		if status == 0 {
			status = http.StatusInternalServerError
		}
		armError(w, status, "InternalServerError", "The server encountered an internal error (injected fault).", "")
		return true
	}
	return false
}

// armError writes ARM's error body.
func armError(w http.ResponseWriter, status int, code, message, target string) {
	body := map[string]any{"code": code, "message": message}
	if target != "" {
		body["target"] = target
	}
	if code == "ResourceNotFound" || code == "ResourceGroupNotFound" {
		w.Header().Set("x-ms-failure-cause", "gateway")
	}
	writeJSON(w, status, map[string]any{"error": body})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"InternalServerError","message":"encode"}}`)
	}
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// statusRead answers a GET of an extra status read below a stored resource
// (a scale set's instanceView): the Descriptor names it; the body is a
// small object naming the resource.
func (s *Server) statusRead(w http.ResponseWriter, segs []string) bool {
	for n := 1; n <= 2 && n < len(segs); n++ {
		m, ok := find(s.routes, segs[:len(segs)-n])
		if !ok || m.list {
			continue
		}
		name := strings.Join(segs[len(segs)-n:], "/")
		for _, d := range m.route.byVersion {
			for _, g := range d.StatusGETs {
				if !strings.EqualFold(g.Name, name) {
					continue
				}
				s.mu.RLock()
				res := s.resources[strings.ToLower(m.id)]
				s.mu.RUnlock()
				if res == nil {
					notFound(w, m, d)
					return true
				}
				writeJSON(w, http.StatusOK, map[string]any{"id": m.id + "/" + name, "statuses": []any{map[string]any{"code": "ProvisioningState/" + strings.ToLower(res.State)}}})
				return true
			}
		}
	}
	return false
}
