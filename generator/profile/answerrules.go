package profile

import (
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
//  1. the type's own recorded answer (always wins);
//  2. a provider rule: at least minAgreeing types of the provider, of the
//     same level and whose swagger marks the verb long-running alike, are
//     recorded with the same answer and none otherwise (Network's
//     long-running top-level DELETEs: 202 with Azure-AsyncOperation and
//     Location, 7 types);
//  3. an ARM-wide rule: the same, over the recorded types of every
//     provider;
//  4. what the examples, the swagger and rules.go say (as before).
//
// The swagger's long-running flag is part of the key because it splits
// what a provider answers (Private DNS record sets are Microsoft.Network
// and synchronous; its long-running types answer with operations).
// Nothing is inferred from a type without a recording.

// verbOfCase is the HTTP method of an answer case.
var verbOfCase = map[string]string{
	caseCreate: http.MethodPut,
	caseUpdate: http.MethodPut,
	casePatch:  http.MethodPatch,
	caseDelete: http.MethodDelete,
}

// armWide is the provider part of an ARM-wide rule's key.
const armWide = "*"

// answerRules are the answers recorded types agree on, by key (case,
// provider or armWide, level, long-running).
type answerRules map[string]*recording.Answer

// answerKey is the key of a rule.
func answerKey(c, provider, level string, longRunning bool) string {
	lro := "synchronous"
	if longRunning {
		lro = "long-running"
	}
	return c + " " + provider + " " + level + " " + lro
}

// learnAnswerRules finds the provider and ARM-wide answer rules of the
// cases create, update, patch and delete.
func learnAnswerRules(kinds []*model.Kind, ev map[string]*evidence) answerRules {
	type group struct {
		answers map[string]*recording.Answer // by lower ARM type
		types   []string                     // ARM types, as spelled
	}
	groups := map[string]*group{}
	add := func(key, armType string, a *recording.Answer) {
		g := groups[key]
		if g == nil {
			g = &group{answers: map[string]*recording.Answer{}}
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
			op := k.Resource.Ops[verbOfCase[c]]
			if op == nil || len(e.answers[c]) == 0 {
				continue
			}
			a := pick(e.answers[c], nil)
			add(answerKey(c, providerOf(t), levelOf(t), op.LongRunning), t, a)
			add(answerKey(c, armWide, levelOf(t), op.LongRunning), t, a)
		}
	}
	out := answerRules{}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		if len(g.types) < minAgreeing {
			continue
		}
		parts := strings.Fields(key) // case, provider, level, long-running
		wide := parts[1] == armWide
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
		if !agree {
			continue
		}
		kind, who := "provider rule", "of the provider"
		if wide {
			kind, who = "ARM-wide rule", "of all providers"
		}
		rule := first
		rule.Source = fmt.Sprintf("%s: the %s answer of the %d %s types %s whose swagger has the verb %s, as recorded: %s; %s",
			kind, parts[0], len(g.types), parts[2], who, parts[3], describe(rule), strings.Join(cites, ", "))
		out[key] = &rule
	}
	return out
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

// answerFor is the rule for a case of a type whose swagger marks the verb
// long-running or not: the provider's, else the ARM-wide one, else
// fallback.
func (r answerRules) answerFor(c, armType string, longRunning bool, fallback *recording.Answer) *recording.Answer {
	if a := r[answerKey(c, providerOf(armType), levelOf(armType), longRunning)]; a != nil {
		return a
	}
	if a := r[answerKey(c, armWide, levelOf(armType), longRunning)]; a != nil {
		return a
	}
	return fallback
}
