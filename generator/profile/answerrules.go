package profile

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/recording"
)

// Answer rules (issue 28.1, point 1): how a verb is answered — status,
// synchronous or long-running, which of Azure-AsyncOperation and Location,
// a body or none — for a type with no recording of that verb, from the
// types that have one. The same rule style as the not-found rules of
// provider.go, refined by level:
//
//  1. the type's own recorded answer (always wins; rule 9 of rules.go
//     counts as its own: an update in the style of its recorded create);
//  2. a provider rule: at least minAgreeing types of the provider, of the
//     same level and for which the swagger says the same (the answer
//     specAnswer gives from the examples, the swagger and rules.go), are
//     recorded answering alike and none otherwise (Network's top-level
//     DELETEs, final-state-via location in the swagger: 202 with
//     Azure-AsyncOperation and Location, 7 types);
//  3. an ARM-wide rule: the same over the recorded types of every
//     provider, when they are of at least minAgreeing providers;
//  4. what the swagger says (specAnswer), as before.
//
// What the swagger says is part of the key because it splits what a
// provider answers: Private DNS record sets are Microsoft.Network and
// synchronous, its long-running types answer with operations; Compute's
// disk types, for which the swagger's examples say 202, answer with both
// headers, its capacity reservation groups and images as the swagger says.
// A rule says how the recordings depart from the swagger: one that agrees
// with it is not made (the swagger stays the source). Nothing is inferred
// from a type without a recording.

// verbOfCase is the HTTP method of an answer case that rules cover.
var verbOfCase = map[string]string{
	caseCreate: http.MethodPut,
	caseUpdate: http.MethodPut,
	casePatch:  http.MethodPatch,
	caseDelete: http.MethodDelete,
}

// armWide is the provider part of an ARM-wide rule's key.
const armWide = "*"

// answerRules are the answers recorded types agree on, by key (case,
// provider or armWide, level, what the swagger says).
type answerRules map[string]*recording.Answer

// answerKey is the key of a rule; spec is what the swagger says of the
// case.
func answerKey(c, provider, level string, spec *recording.Answer) string {
	return c + " " + provider + " " + level + " " + describe(*spec)
}

// learnAnswerRules finds the provider and ARM-wide answer rules of the
// cases create, update, patch and delete; spec is what the swagger says
// of a case of a kind (nil: the kind has no such verb).
func learnAnswerRules(kinds []*model.Kind, ev map[string]*evidence, spec func(*model.Kind, string) *recording.Answer) answerRules {
	type group struct {
		c, level, provider, says string
		answers                  map[string]*recording.Answer // by lower ARM type
		types                    []string                     // ARM types, as spelled
	}
	groups := map[string]*group{}
	add := func(c, provider, level string, says *recording.Answer, armType string, a *recording.Answer) {
		key := answerKey(c, provider, level, says)
		g := groups[key]
		if g == nil {
			g = &group{c: c, level: level, provider: provider, says: describe(*says), answers: map[string]*recording.Answer{}}
			groups[key] = g
		}
		if _, ok := g.answers[strings.ToLower(armType)]; !ok {
			g.types = append(g.types, armType)
		}
		g.answers[strings.ToLower(armType)] = a
	}
	for _, k := range kinds {
		t := k.Resource.ARMType
		e := ev[strings.ToLower(t)]
		if e == nil {
			continue
		}
		for _, c := range slices.Sorted(maps.Keys(verbOfCase)) {
			says := spec(k, c)
			if says == nil || len(e.answers[c]) == 0 {
				continue
			}
			a := pick(e.answers[c], nil)
			add(c, providerOf(t), levelOf(t), says, t, a)
			add(c, armWide, levelOf(t), says, t, a)
		}
	}
	out := answerRules{}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		if len(g.types) < minAgreeing {
			continue
		}
		wide := g.provider == armWide
		slices.SortFunc(g.types, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
		first := *g.answers[strings.ToLower(g.types[0])]
		first.Source = ""
		agree := true
		var cites []string
		for _, t := range g.types {
			a := *g.answers[strings.ToLower(t)]
			src := a.Source
			a.Source = ""
			if a != first {
				agree = false
				break
			}
			name := shortType(t)
			if wide {
				name = t
			}
			cites = append(cites, name+" "+firstWhere(src))
		}
		// A rule that says what the swagger says changes nothing; an
		// ARM-wide rule needs minAgreeing providers (one provider's habit is
		// its provider rule).
		if !agree || describe(first) == g.says || wide && providers(g.types) < minAgreeing {
			continue
		}
		kind, who := "provider rule", "of the provider"
		if wide {
			kind, who = "ARM-wide rule", "of all providers"
		}
		rule := first
		rule.Source = fmt.Sprintf("%s: the %s of the %d %s types %s for which the swagger says (%s) is recorded (%s): %s",
			kind, g.c, len(g.types), g.level, who, g.says, describe(rule), strings.Join(cites, ", "))
		out[key] = &rule
	}
	return out
}

// providers counts the provider namespaces of ARM types.
func providers(types []string) int {
	seen := map[string]bool{}
	for _, t := range types {
		seen[providerOf(t)] = true
	}
	return len(seen)
}

// describe says an answer's shape: "202 Azure-AsyncOperation+Location, no
// body".
func describe(a recording.Answer) string {
	var hs []string
	if a.AsyncOperation {
		hs = append(hs, "Azure-AsyncOperation")
	}
	switch a.Location {
	case recording.LocationOperation:
		hs = append(hs, "Location")
	case recording.LocationResource:
		hs = append(hs, "Location of the resource")
	}
	s := fmt.Sprint(a.Status)
	if len(hs) == 0 {
		s += " synchronous"
	} else {
		s += " " + strings.Join(hs, "+")
	}
	if a.EmptyBody {
		s += ", no body"
	}
	return s
}

// answerFor is the rule for a case of a type for which the swagger says
// spec: the provider's, else the ARM-wide one, else spec itself.
func (r answerRules) answerFor(c, armType string, spec *recording.Answer) *recording.Answer {
	if spec == nil {
		return nil
	}
	if a := r[answerKey(c, providerOf(armType), levelOf(armType), spec)]; a != nil {
		return a
	}
	if a := r[answerKey(c, armWide, levelOf(armType), spec)]; a != nil {
		return a
	}
	return spec
}

// Operation rules: what a finished operation's Azure-AsyncOperation status
// carries (recording.Operation: Compute's disk operations name the
// resource under properties.output) for a type none of whose operations a
// recording polled to its end, by the same rule: at least minAgreeing
// types of the provider, of the same level and for which the swagger says
// the same of a create, polled alike (a plain status counts: capacity
// reservation groups answer no output) and none otherwise. A provider's
// only; the shapes are providers' own.

// operationKey is the key of an operation rule; spec is what the swagger
// says of a create ("" when the type has no PUT).
func operationKey(provider, level, spec string) string {
	return provider + " " + level + " " + spec
}

// operationRules are the finished operation shapes recorded types agree
// on, by key; a nil shape is a plain status.
type operationRules map[string]*recording.Operation

// learnOperationRules finds the operation rules; spec is as for
// learnAnswerRules.
func learnOperationRules(kinds []*model.Kind, ev map[string]*evidence, spec func(*model.Kind, string) *recording.Answer) operationRules {
	type group struct {
		shapes map[string]*recording.Operation // by lower ARM type
		types  []string
	}
	groups := map[string]*group{}
	for _, k := range kinds {
		t := k.Resource.ARMType
		e := ev[strings.ToLower(t)]
		if e == nil || len(e.ops) == 0 {
			continue
		}
		key := operationKey(providerOf(t), levelOf(t), saysOfCreate(k, spec))
		g := groups[key]
		if g == nil {
			g = &group{shapes: map[string]*recording.Operation{}}
			groups[key] = g
		}
		if _, ok := g.shapes[strings.ToLower(t)]; !ok {
			g.types = append(g.types, t)
		}
		g.shapes[strings.ToLower(t)] = operationShape(e.ops)
	}
	out := operationRules{}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		if len(g.types) < minAgreeing {
			continue
		}
		slices.SortFunc(g.types, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
		first := shapeOf(g.shapes[strings.ToLower(g.types[0])])
		if first == "" { // a plain status is what the emulator answers anyway
			continue
		}
		agree := true
		var cites []string
		for _, t := range g.types {
			s := g.shapes[strings.ToLower(t)]
			if shapeOf(s) != first {
				agree = false
				break
			}
			cites = append(cites, shortType(t)+" "+firstWhere(s.Source))
		}
		if !agree {
			continue
		}
		rule := *g.shapes[strings.ToLower(g.types[0])]
		parts := strings.SplitN(key, " ", 3)
		rule.Source = fmt.Sprintf("provider rule: the finished operations of the %d %s types of the provider for which the swagger says (%s) of a create, as recorded: %s", len(g.types), parts[1], parts[2], strings.Join(cites, ", "))
		out[key] = &rule
	}
	return out
}

// operationFor is the operation rule of a kind, or nil.
func (r operationRules) operationFor(k *model.Kind, spec func(*model.Kind, string) *recording.Answer) *recording.Operation {
	t := k.Resource.ARMType
	return r[operationKey(providerOf(t), levelOf(t), saysOfCreate(k, spec))]
}

// saysOfCreate is what the swagger says of a kind's create, "" without a
// PUT.
func saysOfCreate(k *model.Kind, spec func(*model.Kind, string) *recording.Answer) string {
	if a := spec(k, caseCreate); a != nil {
		return describe(*a)
	}
	return ""
}

// shapeOf is an operation shape without its source, as JSON ("" for a
// plain status).
func shapeOf(o *recording.Operation) string {
	if o == nil {
		return ""
	}
	c := *o
	c.Source = ""
	c.Members = slices.Clone(c.Members)
	for i := range c.Members {
		c.Members[i].Source = ""
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "?"
	}
	return string(b)
}
