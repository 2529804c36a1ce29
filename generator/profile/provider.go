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

// serviceOf is the spec folder that describes a kind, lower-case
// (specification/compute/resource-manager/microsoft.compute/diskrp): the
// service that implements it. One namespace is often several services,
// each with its own habits — Compute's DiskRP (disks, snapshots, disk
// encryption sets) and ComputeRP (images, capacity reservation groups),
// Network and Private DNS, Redis and Redis Enterprise — so a service's
// recorded types can agree where its namespace's do not. "" when the
// swagger's path has no stable or preview folder.
func serviceOf(k *model.Kind) string {
	for _, verb := range []string{"GET", "PUT", "DELETE", "PATCH"} {
		op := k.Resource.Ops[verb]
		if op == nil {
			continue
		}
		f := strings.ToLower(op.Origin.File)
		for _, sep := range []string{"/stable/", "/preview/"} {
			if i := strings.Index(f, sep); i > 0 {
				return f[:i]
			}
		}
	}
	return ""
}

// providerRules are the errors a provider's types agree on, by provider
// and level, and by service (serviceOf) and level where the namespace's
// types disagree.
type providerRules struct {
	notFound, parentNotFound map[string]*recording.Error
	// referenceNotFound are the refusals of a PUT naming a missing
	// resource, by provider, and ARM-wide (armWide) when the types of at
	// least minAgreeing providers agree.
	referenceNotFound map[string]*recording.Error
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
		notFound:          agreeing(kinds, ev, func(e *evidence) []seen { return e.notFound }, "a missing resource"),
		parentNotFound:    agreeing(kinds, ev, func(e *evidence) []seen { return e.parentNotFound }, "a resource whose parent is gone"),
		referenceNotFound: agreeingWide(kinds, ev),
	}
}

// agreeingWide returns the refusal of a PUT that names a missing resource
// that a provider's recorded types agree on (at least minAgreeing, none
// otherwise — a type recorded accepting such a PUT disagrees; key: the
// provider), and the one the recorded types of at least minAgreeing
// providers agree on, none otherwise (key: armWide):
// the check is ARM's dependency check before the provider works, whatever
// the level (a web site's plan, a virtual machine's network interface).
func agreeingWide(kinds []*model.Kind, ev map[string]*evidence) map[string]*recording.Error {
	type entry struct {
		t   string
		err *recording.Error
	}
	by := map[string][]entry{}
	seenType := map[string]bool{}
	for _, k := range kinds {
		t := k.Resource.ARMType
		e := ev[strings.ToLower(t)]
		if e == nil || seenType[strings.ToLower(t)] {
			continue
		}
		picked := pickError(e.referenceNotFound)
		if picked == nil && len(e.referenceAccepted) > 0 {
			// A type recorded accepting such a PUT disagrees with any
			// refusal.
			picked = &recording.Error{Source: recorded([]string{e.referenceAccepted[0].where})}
		}
		if picked == nil {
			continue
		}
		seenType[strings.ToLower(t)] = true
		by[providerOf(t)] = append(by[providerOf(t)], entry{t, picked})
		by[armWide] = append(by[armWide], entry{t, picked})
	}
	out := map[string]*recording.Error{}
	for _, key := range slices.Sorted(maps.Keys(by)) {
		es := by[key]
		providers := map[string]bool{}
		for _, e := range es {
			providers[providerOf(e.t)] = true
		}
		if len(es) < minAgreeing || key == armWide && len(providers) < minAgreeing {
			continue
		}
		slices.SortFunc(es, func(a, b entry) int { return strings.Compare(strings.ToLower(a.t), strings.ToLower(b.t)) })
		first, agree := es[0].err, true
		var cites []string
		for _, e := range es {
			if e.err.Status != first.Status || e.err.Code != first.Code {
				agree = false
				break
			}
			cites = append(cites, e.t+" "+firstWhere(e.err.Source))
		}
		if !agree {
			continue
		}
		rule := *first
		scope := "provider rule: the types of the provider"
		if key == armWide {
			scope = fmt.Sprintf("ARM-wide rule: the types of %d providers", len(providers))
		}
		rule.Source = fmt.Sprintf("%s recorded refusing a PUT that names a missing resource answer %d %s: %s", scope, rule.Status, rule.Code, strings.Join(cites, ", "))
		out[key] = &rule
	}
	return out
}

// referenceNotFoundFor is the provider or else ARM-wide refusal of a PUT
// naming a missing resource, or nil.
func (r providerRules) referenceNotFoundFor(armType string) *recording.Error {
	if e := r.referenceNotFound[providerOf(armType)]; e != nil {
		return e
	}
	return r.referenceNotFound[armWide]
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
		keys := []string{providerOf(t) + " " + levelOf(t)}
		if svc := serviceOf(k); svc != "" {
			keys = append(keys, svc+" "+levelOf(t))
		}
		for _, key := range keys {
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
		scope, level, _ := strings.Cut(key, " ")
		of := "provider rule: for %s, the %d %s types of the provider recorded answer %d %s: %s"
		if strings.Contains(scope, "/") {
			of = "service rule (" + scope + "): for %s, the %d %s types of the service recorded answer %d %s: %s"
		}
		rule.Source = fmt.Sprintf(of, what, len(g.types), level, rule.Status, rule.Code, strings.Join(cites, ", "))
		out[key] = &rule
	}
	return out
}

// notFoundFor is the provider or else service rule for a kind's missing
// resource, or nil.
func (r providerRules) notFoundFor(k *model.Kind) *recording.Error {
	return ruleFor(r.notFound, k)
}

// parentNotFoundFor is the provider or else service rule for a kind whose
// parent is gone, or nil.
func (r providerRules) parentNotFoundFor(k *model.Kind) *recording.Error {
	return ruleFor(r.parentNotFound, k)
}

// ruleFor is the namespace's rule for a kind's level, else its service's
// (the namespace's types agree, then so do its service's: the rule is the
// same, and cites more types).
func ruleFor(rules map[string]*recording.Error, k *model.Kind) *recording.Error {
	t := k.Resource.ARMType
	if e := rules[providerOf(t)+" "+levelOf(t)]; e != nil {
		return e
	}
	if svc := serviceOf(k); svc != "" {
		return rules[svc+" "+levelOf(t)]
	}
	return nil
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
