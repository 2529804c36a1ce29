package profile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Options configure Learn.
type Options struct {
	// SpecRoot is the folder the swagger and example paths are relative
	// to. Required.
	SpecRoot string
	// Recordings are the real ARM traffic to learn from. Defaults to none.
	Recordings []Recording
	// Header is the first line of every generated file. Required.
	Header string
}

// Learn returns the profile files of a model's kinds, by slash path below
// the output folder: profiles/<provider>.yaml per provider, and
// profiles/profiles.go, which embeds them. It also returns notes on what
// could not be read.
func Learn(m *model.Model, opts Options) (map[string][]byte, []string, error) {
	var kinds []*model.Kind
	matcher := &typeMatcher{}
	for _, p := range m.Packages {
		for _, k := range p.Kinds {
			kinds = append(kinds, k)
			matcher.add(k.Resource.ARMType, k.Resource.Path)
		}
	}
	ev := gather(opts.Recordings, matcher)
	l := &learner{root: opts.SpecRoot, providers: learnProviderRules(kinds, ev), codes: map[*tree.Operation]codeSet{}}
	l.providers.answers = learnAnswerRules(kinds, ev, l.specOf)
	l.providers.operations = learnOperationRules(kinds, ev, l.specOf)
	byProvider := map[string][]recording.Profile{}
	for _, k := range kinds {
		t := l.learn(k, ev[strings.ToLower(k.Resource.ARMType)])
		byProvider[k.Resource.Provider] = append(byProvider[k.Resource.Provider], t)
	}
	out := map[string][]byte{}
	for _, prov := range slices.Sorted(maps.Keys(byProvider)) {
		types := byProvider[prov]
		sort.Slice(types, func(i, j int) bool {
			if !strings.EqualFold(types[i].ARMType, types[j].ARMType) {
				return strings.ToLower(types[i].ARMType) < strings.ToLower(types[j].ARMType)
			}
			return types[i].APIVersion < types[j].APIVersion
		})
		f := recording.ProfileFile{Provider: prov, Types: types}
		b, err := f.Marshal(fileHeader(opts.Header, prov, opts.Recordings))
		if err != nil {
			return nil, nil, fmt.Errorf("profile of %s: %w", prov, err)
		}
		out["profiles/"+strings.ToLower(prov)+".yaml"] = b
	}
	if len(out) > 0 { // go:embed needs a file to embed
		out["profiles/profiles.go"] = []byte("// " + opts.Header + "\n\n" + embedGo)
	}
	return out, l.notes, nil
}

func fileHeader(header, provider string, recs []Recording) string {
	return fmt.Sprintf(`# %s
# The behaviour profile of %s: how ARM answers, per type and api-version.
# Learned by generator/profile from %d recordings of real ARM traffic (the
# "recordings" folders of specs/armature.yaml), the x-ms-examples responses
# and the swagger, in that order; hand-written rules (generator/profile/rules.go)
# only where none of them says. Every value names its source. fakearm applies
# it (docs/emulator.md); docs/conformance.md measures the result.
`, header, provider, len(recs))
}

// embedGo is profiles.go.
const embedGo = `// Package profiles holds the behaviour profiles of the generated resource
// types, one YAML file per provider (the format: package recording).
package profiles

import "embed"

// Files are the profile files.
//
//go:embed *.yaml
var Files embed.FS
`

// learner learns the profile of one kind after another.
type learner struct {
	root  string
	notes []string
	// providers are the errors and answers a provider's recorded types
	// agree on.
	providers providerRules
	// codes are the example codes read, by operation.
	codes map[*tree.Operation]codeSet
}

// learn builds the profile of one kind: recorded answers first, then what
// the examples and the swagger say, then the rules.
func (l *learner) learn(k *model.Kind, ev *evidence) recording.Profile {
	r := k.Resource
	if ev == nil {
		ev = &evidence{answers: map[string][]seen{}}
	}
	t := recording.Profile{ARMType: r.ARMType, APIVersion: r.APIVersion}
	put, del, patch := r.Ops[http.MethodPut], r.Ops[http.MethodDelete], r.Ops[http.MethodPatch]
	if put != nil {
		t.Create = pick(ev.answers[caseCreate], l.answerRule(caseCreate, r.ARMType, l.specOf(k, caseCreate)))
		t.Update = pick(ev.answers[caseUpdate], updateLikeCreate(ev.answers[caseCreate], t.Create, l.answerRule(caseUpdate, r.ARMType, l.specOf(k, caseUpdate))))
	}
	if patch != nil {
		t.Patch = pick(ev.answers[casePatch], l.answerRule(casePatch, r.ARMType, l.specOf(k, casePatch)))
	}
	if del != nil {
		t.Delete = pick(ev.answers[caseDelete], l.answerRule(caseDelete, r.ARMType, l.specOf(k, caseDelete)))
		t.DeleteMissing = pick(ev.answers[caseDeleteMissing], l.specOf(k, caseDeleteMissing))
	}
	t.NotFound = cmp.Or(pickError(ev.notFound), l.providers.notFoundFor(k), notFoundRule(r.ARMType))
	t.BeingDeleted = pickError(ev.beingDeleted)
	t.ReferenceNotFound = pickError(ev.referenceNotFound)
	if t.ReferenceNotFound == nil && len(ev.referenceAccepted) == 0 {
		t.ReferenceNotFound = l.providers.referenceNotFoundFor(r.ARMType)
	}
	t.ParentNotFound = cmp.Or(pickError(ev.parentNotFound), l.providers.parentNotFoundFor(k))
	// Below a group that is gone: what the type's recordings show there,
	// else what they show below a deleted parent (ARM's gateway sees a
	// deleted group for a while after its deletion ends: the recordings
	// cannot tell the two apart), else nothing (the gateway's
	// ResourceGroupNotFound).
	t.GroupNotFound = cmp.Or(pickError(ev.groupGone), pickError(ev.parentNotFound))
	t.CreatedWithParent = implicitOf(ev.implicit)
	t.Name = nameRule(r, ev.refused)
	t.Locations = locationRule(ev.refused)
	t.Defaults = withExampleDefaults(defaults(k.Table, ev.gets), l.exampleDefaults(k))
	t.Answered = answered(k.Table, append(slices.Clip(ev.gets), ev.puts...), r.Singleton != "")
	t.DeleteBlocked = pickBlocked(ev.blocked)
	t.Operation = operationShape(ev.ops)
	if len(ev.ops) == 0 {
		t.Operation = l.providers.operations.operationFor(k, l.specOf)
	}
	return t
}

// answerRule is the provider or ARM-wide rule for a case of a type no
// recording shows answering it (answerrules.go), else spec.
func (l *learner) answerRule(c, armType string, spec *recording.Answer) *recording.Answer {
	return l.providers.answers.answerFor(c, armType, spec)
}

// specOf is what the examples, the swagger and the rules say of a case of
// a kind, or nil when the kind has no such verb.
func (l *learner) specOf(k *model.Kind, c string) *recording.Answer {
	verb := verbOfCase[c]
	if c == caseDeleteMissing {
		verb = http.MethodDelete
	}
	op := k.Resource.Ops[verb]
	if op == nil {
		return nil
	}
	return specAnswer(op, l.exampleCodes(op), c)
}

// operationShape is what recorded finished operation statuses carry
// besides ARM's status, name, id and times, or nil.
func operationShape(ops []seen) *recording.Operation {
	if len(ops) == 0 {
		return nil
	}
	o := &recording.Operation{}
	var where []string
	members := map[string]json.RawMessage{}
	for _, s := range ops {
		for k, v := range s.body {
			switch k {
			case "status", "name", "id", "startTime", "endTime", "percentComplete":
				continue
			case "properties":
				if p, ok := v.(map[string]any); ok && p["output"] != nil {
					o.Output = true
					where = append(where, s.where)
				}
				continue
			}
			if v == nil {
				continue
			}
			if _, ok := members[k]; !ok {
				b, err := json.Marshal(v)
				if err != nil {
					continue
				}
				members[k] = b
				where = append(where, s.where)
			}
		}
	}
	if !o.Output && len(members) == 0 {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		o.Members = append(o.Members, recording.Member{Path: k, Value: members[k], Source: "recorded"})
	}
	slices.Sort(where)
	o.Source = recorded(slices.Compact(where))
	return o
}

// pickBlocked is the refusal of a DELETE while children exist that most
// recordings show, or nil.
func pickBlocked(obs []seen) *recording.Blocked {
	if len(obs) == 0 {
		return nil
	}
	e := pickError(obs)
	b := &recording.Blocked{Error: recording.Error{Status: e.Status, Code: e.Code, Gateway: e.Gateway}, Source: e.Source}
	for _, o := range obs {
		for _, c := range o.children {
			if !slices.Contains(b.Children, c) {
				b.Children = append(b.Children, c)
			}
		}
	}
	slices.Sort(b.Children)
	return b
}

// answered are the members recorded GET answers carry, at the top level
// and under properties, that the emulator would not render from the
// swagger: members the swagger does not define, with their values
// templated by the answering resource's names (the most frequent value
// wins), and writeOnly or secret members ARM answers anyway — echoing the
// request when the answer starts with what the request sent, else masked
// with the recorded constant.
func answered(t *classify.Table, gets []seen, singleton bool) []recording.Member {
	found := tally{}
	for _, g := range gets {
		members(g, func(path descriptor.Path, v, sent any, _ bool) {
			if v == nil {
				return
			}
			c, known := t.Class(path)
			switch {
			case !known:
			case c == classify.WriteOnly || c == classify.Secret:
				if s, ok := sent.(string); ok && s != "" {
					if vs, ok := v.(string); ok && strings.HasPrefix(vs, s) {
						found.echo(path.String(), g.where)
						return
					}
				}
			default:
				return
			}
			found.add(path.String(), templated(v, g.path, singleton), g.where)
		})
	}
	var out []recording.Member
	for _, key := range slices.Sorted(maps.Keys(found)) {
		vs := found[key]
		value, where := vs.best()
		if len(vs.echoes) >= len(where) {
			out = append(out, recording.Member{Path: key, Echo: true, Source: recorded(vs.echoes)})
			continue
		}
		out = append(out, recording.Member{Path: key, Value: value, Source: recorded(where)})
	}
	return out
}

// tally counts, per property path, the values recorded answers carry.
type tally map[string]*values

// values are the recorded values of one path, as compact JSON, each with
// where it was seen, and where an answer echoed the request.
type values struct {
	where  map[string][]string
	echoes []string
}

func (t tally) at(path string) *values {
	if t[path] == nil {
		t[path] = &values{where: map[string][]string{}}
	}
	return t[path]
}

// add notes a value (not one JSON cannot hold).
func (t tally) add(path string, v any, where string) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	vs := t.at(path)
	vs.where[string(b)] = append(vs.where[string(b)], where)
}

// echo notes an answer that echoed the request.
func (t tally) echo(path, where string) {
	vs := t.at(path)
	vs.echoes = append(vs.echoes, where)
}

// best is the most frequent value (ties: the smallest JSON), compacted,
// and where it was seen; nil when only echoes were seen.
func (vs *values) best() (json.RawMessage, []string) {
	best := ""
	for v, w := range vs.where {
		if n, m := len(w), len(vs.where[best]); best == "" || n > m || n == m && v < best {
			best = v
		}
	}
	if best == "" {
		return nil, nil
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, []byte(best))
	return json.RawMessage(buf.Bytes()), vs.where[best]
}

// members calls f with each member of a recorded answer at the top level
// (the envelope aside) and under properties, with what the request that
// made the resource sent there and whether it sent it.
func members(g seen, f func(path descriptor.Path, v, sent any, wasSent bool)) {
	for k, v := range g.body {
		switch k {
		case "id", "name", "type", "etag", "systemData", "location", "properties":
			continue
		}
		sent, ok := g.request[k]
		f(descriptor.P(k), v, sent, ok)
	}
	props, _ := g.body["properties"].(map[string]any)
	sentProps, _ := g.request["properties"].(map[string]any)
	for k, v := range props {
		sent, ok := sentProps[k]
		f(descriptor.P("properties", k), v, sent, ok)
	}
}

// templated replaces, in the strings of a recorded value, the answering
// resource's subscription, group and name by {subscriptionId},
// {resourceGroup} and {name} (a singleton's fixed name is kept).
func templated(v any, path string, singleton bool) any {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var pairs []string
	if !singleton && len(segs) > 0 && len(segs[len(segs)-1]) >= 3 {
		pairs = append(pairs, segs[len(segs)-1], "{name}")
	}
	for i := 0; i+1 < len(segs); i++ {
		switch strings.ToLower(segs[i]) {
		case "resourcegroups":
			pairs = append(pairs, segs[i+1], "{resourceGroup}")
		case "subscriptions":
			pairs = append(pairs, segs[i+1], "{subscriptionId}")
		}
	}
	if len(pairs) == 0 {
		return v
	}
	r := strings.NewReplacer(pairs...)
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return r.Replace(x)
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = walk(e)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		}
		return v
	}
	return walk(v)
}

// codeSet counts the x-ms-examples that list each response code.
type codeSet struct {
	count map[int]int
	n     int
}

func (c codeSet) has(code int) bool { return c.count[code] > 0 }

func (c codeSet) String() string {
	var codes []string
	for _, code := range slices.Sorted(maps.Keys(c.count)) {
		codes = append(codes, strconv.Itoa(code))
	}
	return fmt.Sprintf("x-ms-examples (%d) list %s", c.n, strings.Join(codes, ", "))
}

// exampleCodes reads the response codes of an operation's examples.
func (l *learner) exampleCodes(op *tree.Operation) codeSet {
	if cs, ok := l.codes[op]; ok {
		return cs
	}
	cs := codeSet{count: map[int]int{}}
	if l.codes != nil {
		defer func() { l.codes[op] = cs }()
	}
	for _, title := range slices.Sorted(maps.Keys(op.Examples)) {
		file := op.Examples[title]
		b, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(file)))
		if err != nil {
			l.notes = append(l.notes, "profile: example "+file+": "+err.Error())
			continue
		}
		var doc struct {
			Responses map[string]json.RawMessage `json:"responses"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			l.notes = append(l.notes, "profile: example "+file+": "+err.Error())
			continue
		}
		cs.n++
		for code := range doc.Responses {
			if c, err := strconv.Atoi(code); err == nil {
				cs.count[c]++
			}
		}
	}
	return cs
}

// specAnswer is what the examples, the swagger and the rules say of a case.
func specAnswer(op *tree.Operation, codes codeSet, c string) *recording.Answer {
	a := &recording.Answer{}
	var src []string
	status := 0
	switch c {
	case caseCreate:
		switch {
		case codes.has(http.StatusCreated):
			status = http.StatusCreated
		case codes.has(http.StatusAccepted) && op.LongRunning:
			status = http.StatusAccepted
		case codes.has(http.StatusOK):
			status = http.StatusOK
		}
		if status == 0 {
			status, src = http.StatusCreated, append(src, ruleCreated)
		}
	case caseUpdate, casePatch:
		status = http.StatusOK
		if !codes.has(http.StatusOK) {
			src = append(src, ruleUpdated)
		}
	case caseDelete:
		switch {
		case op.LongRunning:
			status = http.StatusAccepted
		case codes.has(http.StatusOK) || codes.n == 0:
			status = http.StatusOK
		case codes.has(http.StatusNoContent):
			status = http.StatusNoContent
		default:
			status = http.StatusOK
		}
		if codes.n == 0 && !op.LongRunning {
			src = append(src, ruleDeleted)
		}
		a.EmptyBody = true
	case caseDeleteMissing:
		a.Status, a.EmptyBody = http.StatusNoContent, true
		if codes.has(http.StatusNoContent) {
			a.Source = codes.String()
		} else {
			a.Source = ruleDeleteMissing
		}
		return a
	}
	if codes.n > 0 {
		src = append([]string{codes.String()}, src...)
	}
	a.Status = status
	if op.LongRunning {
		lroSrc := "swagger: x-ms-long-running-operation"
		if op.FinalStateVia != "" {
			lroSrc += ", final-state-via " + op.FinalStateVia
		}
		src = append(src, lroSrc)
		// An update of a Location-style resource answers 202 too.
		if c != caseCreate && c != caseDelete && strings.EqualFold(op.FinalStateVia, "location") {
			status = http.StatusAccepted
		}
		if rule := lroStyle(a, op.Method, status, op.FinalStateVia); rule != "" {
			src = append(src, rule)
		}
	}
	a.Source = strings.Join(src, "; ")
	return a
}

// implicitOf names the resources recordings used without creating them
// (each name once, in the order first seen), or nil.
func implicitOf(obs []seen) *recording.Implicit {
	if len(obs) == 0 {
		return nil
	}
	out := &recording.Implicit{}
	var where []string
	for _, o := range obs {
		where = append(where, o.where)
		if !slices.ContainsFunc(out.Names, func(n string) bool { return strings.EqualFold(n, o.name) }) {
			out.Names = append(out.Names, o.name)
		}
	}
	out.Source = "used without being created, below a parent the recording made: " + recorded(where)
	return out
}

// pick chooses the answer most of the newest recordings show, else the
// fallback.
func pick(obs []seen, fallback *recording.Answer) *recording.Answer {
	if len(obs) == 0 {
		return fallback
	}
	obs = newest(obs)
	type group struct {
		a     recording.Answer
		where []string
	}
	var groups []*group
	for _, o := range obs {
		i := slices.IndexFunc(groups, func(g *group) bool { return g.a == o.answer })
		if i < 0 {
			groups = append(groups, &group{a: o.answer})
			i = len(groups) - 1
		}
		groups[i].where = append(groups[i].where, o.where)
	}
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i].where) > len(groups[j].where) })
	best := groups[0].a
	src := recorded(groups[0].where)
	for _, g := range groups[1:] {
		src += fmt.Sprintf("; also %d× %d", len(g.where), g.a.Status)
	}
	best.Source = src
	return &best
}

// recorded names where something was recorded: a count and the first two.
func recorded(where []string) string {
	s := fmt.Sprintf("recorded %d×: %s", len(where), strings.Join(where[:min(2, len(where))], ", "))
	if len(where) > 2 {
		s += ", …"
	}
	return s
}

// pickError chooses the error most of the newest recordings show, or nil.
func pickError(obs []seen) *recording.Error {
	if len(obs) == 0 {
		return nil
	}
	obs = newest(obs)
	counts := map[recording.Error][]string{}
	var order []recording.Error
	for _, o := range obs {
		if _, ok := counts[o.err]; !ok {
			order = append(order, o.err)
		}
		counts[o.err] = append(counts[o.err], o.where)
	}
	sort.SliceStable(order, func(i, j int) bool { return len(counts[order[i]]) > len(counts[order[j]]) })
	best := order[0]
	best.Source = recorded(counts[best])
	return &best
}

// nameRule is the swagger's name rule (read by the tree stage), with the
// error a recording shows for a name that breaks it.
func nameRule(r *tree.Resource, refused []seen) *recording.NameRule {
	p := r.Name
	if p == nil {
		return nil
	}
	rule := &recording.NameRule{Pattern: p.Pattern, MinLength: p.MinLength, MaxLength: p.MaxLength, Source: "swagger: " + p.Origin.String()}
	var re *regexp.Regexp
	if p.Pattern != "" {
		var err error
		if re, err = regexp.Compile(p.Pattern); err != nil {
			re = nil // a pattern Go cannot run (lookahead): lengths only
			rule.Source += "; pattern not checked (not RE2)"
		}
	}
	var bad []seen
	for _, o := range refused {
		n := len(o.name)
		if re != nil && !re.MatchString(o.name) || p.MinLength > 0 && n < p.MinLength || p.MaxLength > 0 && n > p.MaxLength {
			bad = append(bad, o)
		}
	}
	rule.Error = pickError(bad)
	if rule.Error == nil {
		rule.Source += "; " + ruleNameNotEnforced
	}
	return rule
}

// locationRule is the list of regions a recorded refusal names.
func locationRule(refused []seen) *recording.LocationRule {
	for _, o := range refused {
		if len(o.allowed) > 0 {
			return &recording.LocationRule{Allowed: o.allowed, Error: recording.Error{Status: o.err.Status, Code: o.err.Code, Gateway: o.err.Gateway}, Source: "recorded: " + o.where}
		}
	}
	return nil
}

// defaults are the values recorded GET answers carry at the top level and
// under properties that the request that made the resource left out, for
// writable and create-only properties of the served api-version (readOnly
// ones are the emulator's to compute). Where answers differ, the most
// frequent value wins.
func defaults(t *classify.Table, gets []seen) []recording.Default {
	found := tally{}
	for _, g := range gets {
		if g.request == nil {
			continue
		}
		members(g, func(path descriptor.Path, v, sent any, wasSent bool) {
			// A null sent at the top level is nothing sent.
			if v == nil || wasSent && (len(path) > 1 || sent != nil) {
				return
			}
			if c, ok := t.Class(path); !ok || c != classify.Writable && c != classify.CreateOnly {
				return
			}
			found.add(path.String(), v, g.where)
		})
	}
	var out []recording.Default
	for _, key := range slices.Sorted(maps.Keys(found)) {
		value, where := found[key].best()
		out = append(out, recording.Default{Path: key, Value: value, Source: recorded(where)})
	}
	return out
}

// LearnSet learns the profiles as Learn does and reads them back as the
// emulator loads generated/profiles, so that a set learned from other
// recordings (fakearm/conformance's leave-one-out) goes through the same
// files the generator writes.
func LearnSet(m *model.Model, opts Options) (*recording.ProfileSet, error) {
	files, _, err := Learn(m, opts)
	if err != nil {
		return nil, err
	}
	var types []recording.Profile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		f, err := recording.ParseProfile(files[name])
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", name, err)
		}
		types = append(types, f.Types...)
	}
	return recording.NewProfileSet(types), nil
}
