package fakearm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Provisioning states.
const (
	stateSucceeded = "Succeeded"
	stateCreating  = "Creating"
	stateUpdating  = "Updating"
	stateDeleting  = "Deleting"
	stateFailed    = "Failed"
)

// resource is one stored ARM resource.
type resource struct {
	ID         string         `json:"id"`
	ARMType    string         `json:"armType"`
	APIVersion string         `json:"apiVersion"`
	Desired    map[string]any `json:"desired"`
	ETag       string         `json:"etag"`
	State      string         `json:"state"`
	Created    time.Time      `json:"created"`
	Modified   time.Time      `json:"modified"`
	// Op is the id of the operation in flight, if any.
	Op string `json:"op,omitempty"`

	d        *descriptor.Descriptor
	rendered []byte
}

func decodeObject(body []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		obj = map[string]any{}
	}
	return obj, nil
}

// clean checks a request body against the property table: unknown members
// are an error (as ARM's InvalidRequestContent) unless they are null, readOnly
// ones are dropped (as ARM ignores them). Member names are matched without regard to case,
// as ARM's deserializers do (an example's minimumTTL is the swagger's
// minimumTtl): such a member is renamed to the table's spelling first.
func clean(d *descriptor.Descriptor, body map[string]any) error {
	for renamed := true; renamed; {
		renamed = false
		d.Walk(body, func(n descriptor.Node) bool {
			if n.Known {
				return true
			}
			if name, ok := foldedName(d, n.TablePath); ok {
				if _, taken := n.Parent[name]; !taken {
					n.Parent[name] = n.Parent[n.Key]
					delete(n.Parent, n.Key)
					renamed = true
				}
			}
			return false
		})
	}
	var bad []string
	d.Walk(body, func(n descriptor.Node) bool {
		switch {
		case !n.Known && len(n.Path) == 1 && envelope[n.Key]:
			// ARM's front door reads these for every type: a type whose
			// schema lacks one ignores it (a role assignment PUT with a
			// location is answered as without).
			delete(n.Parent, n.Key)
			return false
		case !n.Known && n.Parent[n.Key] == nil:
			// A null asks for nothing: an unknown member sent as null
			// (a client of a newer api-version serialising what it has
			// no value for: AKS's virtualMachineNodesStatus, a storage
			// account's zones) is dropped, as a null of a known one is
			// nothing sent. A value is still refused.
			delete(n.Parent, n.Key)
			return false
		case !n.Known:
			bad = append(bad, n.Path.String())
			return false
		case n.Class == descriptor.ReadOnly:
			delete(n.Parent, n.Key)
			return false
		}
		return true
	})
	if len(bad) > 0 {
		return &requestError{status: http.StatusBadRequest, code: "InvalidRequestContent",
			message: fmt.Sprintf("The request content was invalid and could not be deserialized: could not find member '%s' on the request body of %s.", bad[0], d.ARMType), target: bad[0]}
	}
	return nil
}

type requestError struct {
	status                int
	code, message, target string
	// gateway: ARM's gateway answers (x-ms-failure-cause: gateway), not
	// the provider.
	gateway bool
}

func (e *requestError) Error() string { return e.code + ": " + e.message }

func (e *requestError) write(w http.ResponseWriter) {
	if e.gateway {
		w.Header().Set("x-ms-failure-cause", "gateway")
	}
	armError(w, e.status, e.code, e.message, e.target)
}

// createOnlyChanges compares a stored desired body with a new one: a
// createOnly value that is added or changed is an error; one left out of the
// new body is carried over, as ARM keeps it.
func createOnlyChanges(d *descriptor.Descriptor, old, nw map[string]any, table, path descriptor.Path) *requestError {
	for _, k := range slices.Sorted(maps.Keys(nw)) {
		tp, c, known := d.Child(table, k)
		p := path.Child(k)
		ov, inOld := old[k]
		if known && c == descriptor.CreateOnly {
			if !inOld || !equalJSON(ov, nw[k]) {
				return &requestError{status: http.StatusBadRequest, code: "PropertyChangeNotAllowed",
					message: fmt.Sprintf("Changing property '%s' is not allowed.", p), target: p.String()}
			}
			continue
		}
		if !known || !inOld {
			continue
		}
		switch nv := nw[k].(type) {
		case map[string]any:
			if om, ok := ov.(map[string]any); ok {
				if err := createOnlyChanges(d, om, nv, tp, p); err != nil {
					return err
				}
			}
		case []any:
			if oa, ok := ov.([]any); ok {
				for i := 0; i < len(nv) && i < len(oa); i++ {
					nm, ok1 := nv[i].(map[string]any)
					om, ok2 := oa[i].(map[string]any)
					if ok1 && ok2 {
						if err := createOnlyChanges(d, om, nm, tp.Item(), p.Index(i)); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	// Carry over createOnly values the new body leaves out.
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if _, inNew := nw[k]; inNew {
			continue
		}
		if _, c, known := d.Child(table, k); known && c == descriptor.CreateOnly {
			nw[k] = old[k]
		}
	}
	return nil
}

func equalJSON(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb) || reflect.DeepEqual(a, b)
}

// mergePatch applies an RFC 7386 JSON merge patch.
func mergePatch(target, patch map[string]any) map[string]any {
	if target == nil {
		target = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(target, k)
			continue
		}
		if pm, ok := v.(map[string]any); ok {
			tm, _ := target[k].(map[string]any)
			target[k] = mergePatch(tm, pm)
			continue
		}
		target[k] = v
	}
	return target
}

// precondition checks If-Match and If-None-Match.
func precondition(r *http.Request, existing *resource) *requestError {
	fail := func(msg string) *requestError {
		return &requestError{status: http.StatusPreconditionFailed, code: "PreconditionFailed", message: msg}
	}
	if m := r.Header.Get("If-Match"); m != "" {
		switch {
		case existing == nil:
			return fail("The resource does not exist, so If-Match cannot match.")
		case m != "*" && strings.Trim(m, `"`) != strings.Trim(existing.ETag, `"`):
			return fail(fmt.Sprintf("The ETag %s does not match the current ETag %s.", m, existing.ETag))
		}
	}
	if m := r.Header.Get("If-None-Match"); m == "*" && existing != nil {
		return fail("The resource already exists and If-None-Match is *.")
	}
	return nil
}

// checkParent returns the error for a missing parent or resource group,
// whatever the verb (issue 28.1, ARM's gateway answers before the
// provider):
//
//   - a resource whose parent is a missing resource group: 404
//     ResourceGroupNotFound (recorded for DELETEs of 8 types of 6
//     providers: Test_Authorization_RoleAssignment_OnStorageAccount_CRUD.yaml
//     #20, #21, Test_Compute_DiskEncryptionSet_CRUD.yaml #24, #25,
//     Test_Networking_PrivateEndpoint_CRUD.yaml #55–#57,
//     Test_SQL_Server_CRUD.yaml #143, #144, Test_Web_Site_CRUD.yaml #16);
//   - a nested resource whose group is gone too: 404
//     ResourceGroupNotFound, the gateway's answer for everything below a
//     missing group in every go-vcr v2 recording (recorded since 2023:
//     Test_Compute_VM_20201201_CRUD.yaml #53, Test_Compute_VMSS_20220301_CRUD.yaml #63,
//     Test_DocumentDB_SQLDatabase_v20231115_CRUD.yaml #125–#131,
//     Test_SQL_Server_FailoverGroup_CRUD.yaml #35, Test_SQL_Server_v20211101_CRUD.yaml #192, #193),
//     unless the type's own recordings show another (the profile's
//     groupNotFound: the v1 recordings of 2021–2022 show
//     ParentResourceNotFound for 14 types of Microsoft.Sql and
//     Microsoft.Storage, Test_SQL_Server_CRUD.yaml #145–#156,
//     Test_Storage_StorageAccount_20220901_CRUD.yaml #35–#38);
//   - a nested resource whose parent resource is missing in a group that
//     exists: the profile's parentNotFound (recorded per type, or a
//     provider rule), else ParentResourceNotFound, ARM's documented answer
//     (learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-parent-resource);
//     Network's subnets answer ResourceNotFound naming the parent, each
//     from its own recordings.
func (s *Server) checkParent(m match, d *descriptor.Descriptor) *requestError {
	p := d.ParentID(m.id)
	if p == "" || s.resources[strings.ToLower(p)] != nil {
		return nil
	}
	pm, ok := find(s.routes, strings.Split(strings.Trim(p, "/"), "/"))
	if !ok || pm.list {
		return nil // a scope the emulator does not serve (a subscription)
	}
	// A singleton parent (blobServices/default) exists with its own parent,
	// as in ARM.
	for _, pd := range pm.route.byVersion {
		if pd.Singleton != "" && s.checkParent(pm, pd) == nil {
			return nil
		}
		break
	}
	if strings.EqualFold(pm.route.armType, descriptor.ResourceGroupType) {
		return &requestError{status: http.StatusNotFound, code: "ResourceGroupNotFound", gateway: true, message: fmt.Sprintf("Resource group '%s' could not be found.", pm.names[len(pm.names)-1])}
	}
	if d.Scope == descriptor.ScopeExtension {
		// The scope of an extension resource is missing: ARM's gateway
		// answers as for a GET of that resource.
		if e := s.checkParent(pm, pm.route.byVersion[pm.route.versions[0]]); e != nil {
			return e
		}
		return &requestError{status: http.StatusNotFound, code: "ResourceNotFound", gateway: true,
			message: fmt.Sprintf("The Resource '%s/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix", pm.route.armType, strings.Join(pm.names, "/"), groupOf(p))}
	}
	if g := groupID(p); g != "" && s.resources[strings.ToLower(g)] == nil {
		// The group is gone too: the gateway answers for it, unless the
		// type's own recordings show otherwise.
		if pr := s.profileOf(d); pr != nil && pr.GroupNotFound != nil {
			return &requestError{status: pr.GroupNotFound.Status, code: pr.GroupNotFound.Code, gateway: pr.GroupNotFound.Gateway,
				message: fmt.Sprintf("Can not perform requested operation on nested resource. Parent resource '%s' not found.", p)}
		}
		return &requestError{status: http.StatusNotFound, code: "ResourceGroupNotFound", gateway: true, message: fmt.Sprintf("Resource group '%s' could not be found.", groupOf(p))}
	}
	if pr := s.profileOf(d); pr != nil && pr.ParentNotFound != nil {
		return &requestError{status: pr.ParentNotFound.Status, code: pr.ParentNotFound.Code, gateway: pr.ParentNotFound.Gateway,
			message: fmt.Sprintf("The Resource '%s' was not found: its parent '%s' does not exist.", m.id, p)}
	}
	return &requestError{status: http.StatusNotFound, code: "ParentResourceNotFound", gateway: true,
		message: fmt.Sprintf("Can not perform requested operation on nested resource. Parent resource '%s' not found.", p)}
}

// groupID returns the resource group id an id is in, or "".
func groupID(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "resourceGroups") {
			return "/" + strings.Join(segs[:i+2], "/")
		}
	}
	return ""
}

// groupOf returns the resource group name of an id, or "".
func groupOf(id string) string {
	g := groupID(id)
	return g[strings.LastIndex(g, "/")+1:]
}

// requestBody decodes and cleans a PUT or PATCH body, answering the error
// itself; false means it did.
func requestBody(w http.ResponseWriter, d *descriptor.Descriptor, body []byte) (map[string]any, bool) {
	obj, err := decodeObject(body)
	if err != nil {
		armError(w, http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: "+err.Error(), "")
		return nil, false
	}
	if err := clean(d, obj); err != nil {
		err.(*requestError).write(w)
		return nil, false
	}
	return obj, true
}

func (s *Server) put(w http.ResponseWriter, r *http.Request, m match, d *descriptor.Descriptor, body []byte) {
	obj, ok := requestBody(w, d, body)
	if !ok {
		return
	}
	name := m.names[len(m.names)-1]
	if d.Singleton != "" && !strings.EqualFold(name, d.Singleton) {
		armError(w, http.StatusBadRequest, "InvalidResourceName", fmt.Sprintf("The name of a %s must be '%s'.", d.ARMType, d.Singleton), "name")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(m.id)
	existing := s.resources[key]
	if e := precondition(r, existing); e != nil {
		e.write(w)
		return
	}
	if e := s.checkParent(m, d); e != nil {
		e.write(w)
		return
	}
	if existing == nil && (!s.checkName(w, d, name) || !s.checkLocation(w, d, obj)) {
		return
	}
	if !s.checkReferences(w, d, m.id, obj) {
		return
	}
	if existing == nil && strings.EqualFold(d.ARMType, vaultType) && s.vaultPut(w, m.id, obj) {
		return // a name a deleted vault holds, or its recovery (keyvault.go)
	}
	if existing != nil {
		if existing.State == stateDeleting {
			s.beingDeleted(w, d, m.id)
			return
		}
		if e := createOnlyChanges(d, existing.Desired, obj, nil, nil); e != nil {
			e.write(w)
			return
		}
	}
	now := s.opts.Now().UTC()
	res := &resource{ID: m.id, ARMType: d.ARMType, APIVersion: d.APIVersion, Desired: obj, ETag: newETag(), State: stateSucceeded, Created: now, Modified: now, d: d}
	if existing != nil {
		res.Created = existing.Created
		res.ID = existing.ID
	}
	noteRemoved(w, s.splitEmbedded(res, true))
	s.write(w, r, res, existing == nil, "PUT")
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request, m match, d *descriptor.Descriptor, body []byte) {
	obj, ok := requestBody(w, d, body)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	existing := s.resources[strings.ToLower(m.id)]
	if e := precondition(r, existing); e != nil {
		e.write(w)
		return
	}
	if existing == nil || existing.State == stateDeleting {
		s.notFound(w, m, d)
		return
	}
	merged := mergePatch(runtime.DeepCopyJSON(existing.Desired), obj)
	if e := createOnlyChanges(d, existing.Desired, merged, nil, nil); e != nil {
		e.write(w)
		return
	}
	res := *existing
	res.Desired, res.ETag, res.Modified, res.State, res.rendered = merged, newETag(), s.opts.Now().UTC(), stateSucceeded, nil
	noteRemoved(w, s.splitEmbedded(&res, false))
	s.write(w, r, &res, false, "PATCH")
}

// write stores a created or updated resource and answers the PUT or PATCH,
// starting a long-running operation when the verb is one.
func (s *Server) write(w http.ResponseWriter, r *http.Request, res *resource, created bool, verb string) {
	d := res.d
	lro, fsv := longRunning(d, verb)
	opStyle := style(verb, fsv)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	empty := false
	ans := s.answerFor(d, verb, created)
	if ans != nil { // the type's profile: what real ARM answers
		lro, status, empty = ans.LongRunning(), ans.Status, ans.EmptyBody
		if lro {
			opStyle = styleOf(ans)
		}
	}
	var op *operation
	if lro {
		res.State = stateUpdating
		if created {
			res.State = stateCreating
		}
		op = s.startOp(res, verb, opStyle)
		res.Op = op.ID
	}
	s.resources[strings.ToLower(res.ID)] = res
	s.render(res)
	if created {
		s.createImplicit(res)
	}
	s.persist()
	w.Header().Set("ETag", res.ETag)
	if ans != nil && ans.Location == recording.LocationResource {
		w.Header().Set("Location", res.ID)
	}
	if op != nil {
		s.opHeaders(w, r, op)
		if ans == nil && op.Style == styleLocation {
			status, empty = http.StatusAccepted, true
		}
	}
	if empty {
		w.WriteHeader(status)
		return
	}
	writeRaw(w, status, res.rendered)
}

// implicitChild is a child type the service creates with its parent:
// its descriptor, the type's last segment and the children's names.
type implicitChild struct {
	d       *descriptor.Descriptor
	segment string
	names   []string
}

// implicitChildren finds, once, the child types whose profiles say the
// service creates them with the parent (createdWithParent), by lower-case
// parent type.
func (s *Server) implicitChildren() map[string][]implicitChild {
	out := map[string][]implicitChild{}
	for _, rt := range s.routes {
		d := rt.byVersion[rt.versions[len(rt.versions)-1]]
		pr := s.profileOf(d)
		i := strings.LastIndex(rt.armType, "/")
		if pr == nil || pr.CreatedWithParent == nil || i < 0 {
			continue
		}
		parent := strings.ToLower(rt.armType[:i])
		out[parent] = append(out[parent], implicitChild{d: d, segment: rt.armType[i+1:], names: pr.CreatedWithParent.Names})
	}
	return out
}

// createImplicit makes the children the service creates with a new
// resource, as the child types' profiles name them (createdWithParent: a
// Service Bus namespace's RootManageSharedAccessKey rule). They start
// with an empty body, to which rendering adds the type's defaults.
func (s *Server) createImplicit(parent *resource) {
	for _, c := range s.implicit[strings.ToLower(parent.ARMType)] {
		for _, name := range c.names {
			id := parent.ID + "/" + c.segment + "/" + name
			if s.resources[strings.ToLower(id)] != nil {
				continue
			}
			child := &resource{ID: id, ARMType: c.d.ARMType, APIVersion: c.d.APIVersion, Desired: map[string]any{"properties": map[string]any{}},
				ETag: newETag(), State: stateSucceeded, Created: parent.Created, Modified: parent.Modified, d: c.d}
			s.resources[strings.ToLower(id)] = child
			s.render(child)
		}
	}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, m match, d *descriptor.Descriptor) {
	key := strings.ToLower(m.id)
	s.mu.RLock()
	res := s.resources[key]
	busy := res != nil && res.Op != ""
	var body []byte
	var etag string
	if res != nil {
		body, etag = res.rendered, res.ETag
	}
	s.mu.RUnlock()
	if busy {
		// Observing a resource moves its operation on, as time would.
		s.mu.Lock()
		if res = s.resources[key]; res != nil && res.Op != "" {
			if op := s.ops[res.Op]; op != nil {
				s.advance(op)
			}
		}
		if res = s.resources[key]; res != nil {
			body, etag = res.rendered, res.ETag
		}
		s.mu.Unlock()
	}
	if res == nil {
		s.mu.RLock()
		defer s.mu.RUnlock()
		s.notFound(w, m, d)
		return
	}
	w.Header().Set("ETag", etag)
	writeRaw(w, http.StatusOK, body)
}

// notFound answers a GET or PATCH of a resource that does not exist: with
// the profile's error (the provider's own code, such as QueueNotFound)
// when its parent exists, as recorded; a top-level resource in a resource
// group that does not exist is the gateway's 404 ResourceGroupNotFound, as
// for every other verb (issue 28.1: ARM's gateway resolves the group
// before the provider, recorded for DELETEs of 8 types of 6 providers,
// see checkParent; learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-not-found);
// else ARM's gateway ResourceNotFound. A group being deleted still exists:
// the GETs recorded while a group's deletion ran
// (Test_Networking_LoadBalancer_CRUD.yaml #13,
// Test_Networking_VirtualNetworkPeering_CRUD.yaml #24, #25) answer
// ResourceNotFound. The caller holds s.mu.
func (s *Server) notFound(w http.ResponseWriter, m match, d *descriptor.Descriptor) {
	e := s.checkParent(m, d)
	if p := s.profileOf(d); p != nil && p.NotFound != nil && e == nil {
		profileError(w, p.NotFound, fmt.Sprintf("The Resource '%s/%s' was not found.", d.ARMType, strings.Join(m.names, "/")), "")
		return
	}
	if e != nil && e.code == "ResourceGroupNotFound" {
		e.write(w)
		return
	}
	notFound(w, m, d)
}

func notFound(w http.ResponseWriter, m match, d *descriptor.Descriptor) {
	name := m.names[len(m.names)-1]
	if strings.EqualFold(d.ARMType, "Microsoft.Resources/resourceGroups") {
		armError(w, http.StatusNotFound, "ResourceGroupNotFound", fmt.Sprintf("Resource group '%s' could not be found.", name), "")
		return
	}
	armError(w, http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("The Resource '%s/%s' was not found.", d.ARMType, strings.Join(m.names, "/")), "")
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, m match, d *descriptor.Descriptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(m.id)
	res := s.resources[key]
	if e := precondition(r, res); e != nil {
		e.write(w)
		return
	}
	if res == nil {
		if e := s.checkParent(m, d); e != nil { // the group is gone: ARM's gateway says so
			e.write(w)
			return
		}
		status := http.StatusNoContent
		if p := s.profileOf(d); p != nil && p.DeleteMissing != nil {
			status = p.DeleteMissing.Status
		}
		w.WriteHeader(status)
		return
	}
	if s.deleteBlocked(w, d, key) || s.deleteInUse(w, d, key) {
		return
	}
	lro, fsv := longRunning(d, "DELETE")
	opStyle, status, withBody := style(http.MethodDelete, fsv), http.StatusOK, false
	if ans := s.answerFor(d, http.MethodDelete, false); ans != nil {
		lro, status = ans.LongRunning(), ans.Status
		withBody = !ans.EmptyBody && status == http.StatusOK
		if lro {
			opStyle = styleOf(ans)
		}
	}
	if !lro {
		body := res.rendered
		s.remove(key)
		s.persist()
		if withBody {
			// Authorization answers a DELETE with what it deleted.
			writeRaw(w, status, body)
			return
		}
		w.WriteHeader(status)
		return
	}
	if res.State == stateDeleting && res.Op != "" {
		if op := s.ops[res.Op]; op != nil {
			s.opHeaders(w, r, op)
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	res.State = stateDeleting
	op := s.startOp(res, "DELETE", opStyle)
	res.Op = op.ID
	s.render(res)
	s.persist()
	s.opHeaders(w, r, op)
	w.WriteHeader(http.StatusAccepted)
}

// remove deletes a resource and everything below it, and renders again
// the parent whose embedded collection showed it.
func (s *Server) remove(key string) {
	res := s.resources[key]
	if isVault(res) {
		s.softDelete(res) // keyvault.go
	}
	delete(s.resources, key)
	prefix := key + "/"
	for k, c := range s.resources {
		if strings.HasPrefix(k, prefix) {
			if isVault(c) { // a resource group's vaults are soft-deleted with it
				s.softDelete(c)
			}
			delete(s.resources, k)
		}
	}
	if res == nil || res.d == nil {
		return
	}
	if p := s.parentOfEmbedded(res); p != nil {
		s.renderOnly(p)
	}
}

func newETag() string { return `W/"` + newID() + `"` }

// envelope are the top-level members of every ARM resource body.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "location": true, "tags": true, "etag": true, "systemData": true}

// foldedName is the table's spelling of the last step of an unknown table
// path that differs from a known one only in case.
func foldedName(d *descriptor.Descriptor, tp descriptor.Path) (string, bool) {
	if len(tp) == 0 {
		return "", false
	}
	parent := tp.Parent()
	for _, p := range d.Properties {
		if len(p.Path) == len(tp) && p.Path.HasPrefix(parent) && strings.EqualFold(p.Path.Last(), tp.Last()) {
			return p.Path.Last(), true
		}
	}
	return "", false
}
