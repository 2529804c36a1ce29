package profile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/recording"
)

// Provider rules (issue 28.1): an error a provider's types agree on in the
// recordings is that provider's answer for its other types of the same
// level, which no recording shows. A type's own recorded answer always
// wins; a provider rule needs at least minAgreeing types recorded with the
// same status and code and none recorded otherwise (Compute's disks answer
// NotFound and its capacity reservation groups the gateway's
// ResourceNotFound: no rule), and it names them in Source. Nothing is
// inferred from a type without a recording.

// minAgreeing is the number of a provider's types, recorded alike, that
// make a provider rule.
const minAgreeing = 2

// Levels of a resource type, for provider rules: a provider's top-level
// types and its nested ones answer differently (Network: the gateway's
// ResourceNotFound for a virtual network, the provider's NotFound for a
// security rule, a route, a peering).
const (
	levelTop    = "top-level"
	levelNested = "nested"
)

// levelOf is the level of an ARM type (Microsoft.Network/virtualNetworks
// is top-level, …/virtualNetworks/subnets nested).
func levelOf(armType string) string {
	if strings.Count(armType, "/") > 1 {
		return levelNested
	}
	return levelTop
}

// providerOf is the namespace of an ARM type, lower-case.
func providerOf(armType string) string {
	p, _, _ := strings.Cut(armType, "/")
	return strings.ToLower(p)
}

// providerRules are the errors a provider's types agree on, by provider
// and level.
type providerRules struct {
	notFound, parentNotFound map[string]*recording.Error
	// answers are the verb answers recorded types agree on
	// (answerrules.go; set by Learn, which knows the swagger's answers).
	answers answerRules
	// operations are the finished operation shapes they agree on
	// (answerrules.go; set by Learn too).
	operations operationRules
}

// learnProviderRules finds the provider rules of the recorded not-found
// answers: a GET of a missing resource whose parent exists (notFound), and
// a verb on a resource whose parent resource is gone (parentNotFound).
func learnProviderRules(kinds []*model.Kind, ev map[string]*evidence) providerRules {
	return providerRules{
		notFound:       agreeing(kinds, ev, func(e *evidence) []seen { return e.notFound }, "a missing resource"),
		parentNotFound: agreeing(kinds, ev, func(e *evidence) []seen { return e.parentNotFound }, "a resource whose parent is gone"),
	}
}

// agreeing returns, by provider and level, the error every recorded type
// of that provider and level answers (each type's own pick), when at
// least minAgreeing types are recorded.
func agreeing(kinds []*model.Kind, ev map[string]*evidence, obs func(*evidence) []seen, what string) map[string]*recording.Error {
	type group struct {
		errs  map[string]*recording.Error // by lower ARM type
		types []string                    // ARM types, as spelled
	}
	groups := map[string]*group{}
	for _, k := range kinds {
		t := k.Resource.ARMType
		e := ev[strings.ToLower(t)]
		if e == nil {
			continue
		}
		picked := pickError(obs(e))
		if picked == nil {
			continue
		}
		key := providerOf(t) + " " + levelOf(t)
		g := groups[key]
		if g == nil {
			g = &group{errs: map[string]*recording.Error{}}
			groups[key] = g
		}
		if _, ok := g.errs[strings.ToLower(t)]; !ok {
			g.types = append(g.types, t)
		}
		g.errs[strings.ToLower(t)] = picked
	}
	out := map[string]*recording.Error{}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		if len(g.types) < minAgreeing {
			continue
		}
		first := g.errs[strings.ToLower(g.types[0])]
		agree := true
		var cites []string
		slices.SortFunc(g.types, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
		for _, t := range g.types {
			e := g.errs[strings.ToLower(t)]
			if e.Status != first.Status || e.Code != first.Code {
				agree = false
				break
			}
			cites = append(cites, shortType(t)+" "+firstWhere(e.Source))
		}
		if !agree {
			continue
		}
		rule := *first
		_, level, _ := strings.Cut(key, " ")
		rule.Source = fmt.Sprintf("provider rule: for %s, the %d %s types of the provider recorded answer %d %s: %s", what, len(g.types), level, rule.Status, rule.Code, strings.Join(cites, ", "))
		out[key] = &rule
	}
	return out
}

// notFoundFor is the provider rule for a type's missing resource, or nil.
func (r providerRules) notFoundFor(armType string) *recording.Error {
	return r.notFound[providerOf(armType)+" "+levelOf(armType)]
}

// parentNotFoundFor is the provider rule for a type whose parent is gone,
// or nil.
func (r providerRules) parentNotFoundFor(armType string) *recording.Error {
	return r.parentNotFound[providerOf(armType)+" "+levelOf(armType)]
}

// shortType drops an ARM type's namespace.
func shortType(armType string) string {
	_, t, _ := strings.Cut(armType, "/")
	return t
}

// firstWhere is the first place a recorded Source names
// ("recorded 2×: A.yaml #3, …" → "(A.yaml #3)").
func firstWhere(source string) string {
	_, where, _ := strings.Cut(source, ": ")
	first, _, _ := strings.Cut(where, ", ")
	return "(" + first + ")"
}
