package profile

import (
	"net/http"
	"strings"

	"github.com/armature-dev/armature/recording"
)

// The hand-written rules: the only behaviour in the profiles that no
// recording, x-ms-examples response or swagger says. Each is ARM's general
// behaviour (the Azure Resource Manager RPC contract, and what the
// recordings show for the types they do cover); the profiles name the rule
// in Source wherever one decided a value. Keep every rule here, in this
// one file, and document it in docs/emulator.md.
const (
	// ruleCreated: a PUT that creates answers 201 Created when no example
	// lists its codes.
	ruleCreated = "rule: a create answers 201 when no example lists codes"
	// ruleUpdated: a PUT or PATCH of an existing resource answers 200.
	ruleUpdated = "rule: an update answers 200 when no example lists codes"
	// ruleLROAsync: a long-running verb whose swagger names no
	// final-state-via answers with Azure-AsyncOperation (and, for DELETE,
	// Location too), as most providers in the recordings do.
	ruleLROAsync = "rule: a long-running verb without final-state-via answers with Azure-AsyncOperation (DELETE: 202 with Azure-AsyncOperation and Location)"
	// ruleLROLocation: a long-running verb answered 202, or whose
	// final-state-via is location, names its operation in Location and
	// has no body.
	ruleLROLocation = "rule: a long-running 202 (or final-state-via location) names its operation in Location, without a body"
	// ruleDeleted: a synchronous DELETE answers 200 when no example lists
	// codes.
	ruleDeleted = "rule: a synchronous delete answers 200 when no example lists codes"
	// ruleDeleteMissing: a DELETE of a resource that does not exist
	// answers 204 No Content (ARM RPC; recorded for storage accounts).
	ruleDeleteMissing = "rule: a delete of a missing resource answers 204"
	// ruleNotFound: a GET of a missing resource is answered by ARM's
	// gateway: 404 ResourceNotFound (ResourceGroupNotFound for a group).
	ruleNotFound = "rule: a missing resource is the gateway's 404 ResourceNotFound (ResourceGroupNotFound for a group)"
	// ruleNameNotEnforced: the swagger's name pattern is listed but not
	// enforced without a recorded refusal: the error code a provider
	// answers is unknown, and providers enforce their patterns unevenly.
	ruleNameNotEnforced = "rule: enforced only with a recorded refusal"
	// ruleUpdateLikeCreate: when only creates are recorded, an update
	// answers in the recorded create's style: long-running the same way
	// (same status and headers), or synchronously (200, no operation)
	// when the create was synchronous, whatever the swagger says.
	ruleUpdateLikeCreate = "rule: no update recorded; answered in the style of the recorded create"
)

// updateLikeCreate applies ruleUpdateLikeCreate: the update answer when
// creates are recorded and updates are not; spec otherwise.
func updateLikeCreate(creates []seen, create, spec *recording.Answer) *recording.Answer {
	if len(creates) == 0 || create == nil {
		return spec
	}
	a := *create
	if !a.LongRunning() {
		a = recording.Answer{Status: http.StatusOK}
	}
	a.Source = ruleUpdateLikeCreate + " (" + create.Source + ")"
	return &a
}

// resourceGroupType is the ARM type of resource groups.
const resourceGroupType = "Microsoft.Resources/resourceGroups"

// lroStyle sets the headers of a long-running answer of status: what
// final-state-via says, else ruleLROLocation (a 202 of a PUT, PATCH or
// POST) or ruleLROAsync. It returns the rule it applied, or "" when the
// swagger decided.
func lroStyle(a *recording.Answer, verb string, status int, finalStateVia string) string {
	a.Status = status
	viaLocation := strings.EqualFold(finalStateVia, "location")
	viaAsync := strings.EqualFold(finalStateVia, "azure-async-operation")
	switch {
	case viaLocation || status == http.StatusAccepted && verb != http.MethodDelete && !viaAsync:
		a.Location, a.EmptyBody = recording.LocationOperation, true
		if viaLocation {
			return ""
		}
		return ruleLROLocation
	case verb == http.MethodDelete:
		a.AsyncOperation, a.Location, a.EmptyBody = true, recording.LocationOperation, true
	default:
		a.AsyncOperation = true
		a.EmptyBody = status == http.StatusAccepted
	}
	if viaAsync {
		return ""
	}
	return ruleLROAsync
}

// notFoundRule is ruleNotFound for a type.
func notFoundRule(armType string) *recording.Error {
	code := "ResourceNotFound"
	if strings.EqualFold(armType, resourceGroupType) {
		code = "ResourceGroupNotFound"
	}
	return &recording.Error{Status: http.StatusNotFound, Code: code, Gateway: true, Source: ruleNotFound}
}
