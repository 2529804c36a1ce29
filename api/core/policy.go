package core

import (
	"fmt"
	"strings"
)

// Policy is what the operator may do to an object's Azure resource, set by
// the annotation armature.dev/reconcile-policy.
type Policy string

// The policies.
const (
	// PolicyManage creates, updates, corrects drift and deletes. The
	// default, when the annotation is absent or empty.
	PolicyManage Policy = "manage"
	// PolicySkip only observes: GETs into status, nothing written, nothing
	// deleted.
	PolicySkip Policy = "skip"
	// PolicyDetachOnDelete manages as PolicyManage but leaves the resource
	// in Azure when the custom resource is deleted.
	PolicyDetachOnDelete Policy = "detach-on-delete"
	// PolicyPlan computes what would be sent and writes it to status; it
	// reads ARM and writes nothing.
	PolicyPlan Policy = "plan"
)

// Policies lists the valid policies, for messages.
var Policies = []Policy{PolicyManage, PolicySkip, PolicyDetachOnDelete, PolicyPlan}

// ParsePolicy reads the value of the reconcile-policy annotation: exactly
// one of the policies ("" is manage). Anything else — another case, a
// space, a typo — is an error: an unknown policy must never mean manage.
func ParsePolicy(s string) (Policy, error) {
	if s == "" {
		return PolicyManage, nil
	}
	for _, p := range Policies {
		if s == string(p) {
			return p, nil
		}
	}
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown reconcile policy %q (annotation %s): want one of %s", s, AnnotationPolicy, strings.Join(names, ", "))
}

// PolicyOf returns the policy of an object from its annotations.
func PolicyOf(annotations map[string]string) (Policy, error) {
	return ParsePolicy(annotations[AnnotationPolicy])
}

// Writes reports whether the policy sends PUT and PATCH to ARM.
func (p Policy) Writes() bool { return p == PolicyManage || p == PolicyDetachOnDelete }

// Deletes reports whether deleting the custom resource deletes the Azure
// resource.
func (p Policy) Deletes() bool { return p == PolicyManage }

// CorrectsDrift reports whether a live value that differs from spec, or a
// resource deleted outside the operator, is put back.
func (p Policy) CorrectsDrift() bool { return p.Writes() }

// OnlyPlans reports whether the policy computes the write without sending it.
func (p Policy) OnlyPlans() bool { return p == PolicyPlan }

// NeedsFinalizer reports whether the operator must see the deletion of the
// custom resource before it goes: only when it deletes, or may have written.
func (p Policy) NeedsFinalizer() bool { return p.Writes() }
