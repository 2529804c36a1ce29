package profile

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/recording"
)

// TestAnswerRules learns the answers of types no recording shows from
// the types that are recorded (answerrules.go): the type's own recording,
// else its provider's, else the ARM-wide rule, else the swagger.
func TestAnswerRules(t *testing.T) {
	// A long-running DELETE whose swagger says final-state-via location:
	// the swagger alone answers 202 with Location only (Network's swagger).
	lroDelete := &tree.Operation{Method: http.MethodDelete, LongRunning: true, FinalStateVia: "location"}
	syncDelete := &tree.Operation{Method: http.MethodDelete}
	lroPut := &tree.Operation{Method: http.MethodPut, LongRunning: true, FinalStateVia: "azure-async-operation"}
	syncPut := &tree.Operation{Method: http.MethodPut}
	kind := func(armType string, ops ...*tree.Operation) *model.Kind {
		r := &tree.Resource{ARMType: armType, Ops: map[string]*tree.Operation{}}
		for _, op := range ops {
			r.Ops[op.Method] = op
		}
		return &model.Kind{Resource: r}
	}
	both := recording.Answer{Status: 202, AsyncOperation: true, Location: recording.LocationOperation, EmptyBody: true}
	asyncOnly := recording.Answer{Status: 201, AsyncOperation: true}
	located := recording.Answer{Status: 201, Location: recording.LocationResource}
	locOnly := recording.Answer{Status: 202, Location: recording.LocationOperation, EmptyBody: true}
	// A long-running PUT whose swagger says final-state-via location.
	locPut := &tree.Operation{Method: http.MethodPut, LongRunning: true, FinalStateVia: "location"}
	answered := func(c string, a recording.Answer, where string) *evidence {
		return &evidence{answers: map[string][]seen{c: {{where: where, answer: a}}}}
	}
	const (
		vnet    = "Microsoft.Network/virtualNetworks"
		nsg     = "Microsoft.Network/networkSecurityGroups"
		nic     = "Microsoft.Network/networkInterfaces"
		rules   = "Microsoft.Network/networkSecurityGroups/securityRules"
		route   = "Microsoft.Network/routeTables/routes"
		disks   = "Microsoft.Compute/disks"
		crg     = "Microsoft.Compute/capacityReservationGroups"
		image   = "Microsoft.Compute/images"
		fw      = "Microsoft.Cache/redis/firewallRules"
		fic     = "Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials"
		keys    = "Microsoft.KeyVault/vaults/keys"
		sqlDB   = "Microsoft.Sql/servers/databases"
		sqlPool = "Microsoft.Sql/servers/elasticPools"
		cosmos  = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases"
	)
	cases := map[string]struct {
		reason string
		kinds  []*model.Kind
		ev     map[string]*evidence
		ask    string // the ARM type asked, the last kind
		c      string // the case asked
		want   string // "status headers" of the answer
		source string // how the answer's source starts
	}{
		"ProviderRule": {
			reason: "two top-level types of a provider whose swagger marks DELETE long-running, recorded alike, decide a third's DELETE over its swagger",
			kinds:  []*model.Kind{kind(vnet, lroDelete), kind(nsg, lroDelete), kind(nic, lroDelete)},
			ev:     map[string]*evidence{strings.ToLower(vnet): answered(caseDelete, both, "a.yaml #1"), strings.ToLower(nsg): answered(caseDelete, both, "b.yaml #2")},
			ask:    nic, c: caseDelete,
			want:   "202 async+operation empty",
			source: "provider rule: the delete of the 2 top-level types of the provider for which the swagger says (202 Location, no body) is recorded (202 Azure-AsyncOperation+Location, no body): networkSecurityGroups (b.yaml #2), virtualNetworks (a.yaml #1)",
		},
		"OneType": {
			reason: "one recorded type makes no rule: the swagger decides",
			kinds:  []*model.Kind{kind(vnet, lroDelete), kind(nic, lroDelete)},
			ev:     map[string]*evidence{strings.ToLower(vnet): answered(caseDelete, both, "a.yaml #1")},
			ask:    nic, c: caseDelete,
			want:   "202 operation empty",
			source: "swagger: x-ms-long-running-operation, final-state-via location",
		},
		"Disagree": {
			reason: "a provider whose recorded types answer a create differently has no rule (Compute: disks 202 with both headers, capacity reservation groups 201 with Azure-AsyncOperation)",
			kinds:  []*model.Kind{kind(disks, lroPut), kind(crg, lroPut), kind(image, lroPut)},
			ev:     map[string]*evidence{strings.ToLower(disks): answered(caseCreate, both, "a.yaml #1"), strings.ToLower(crg): answered(caseCreate, asyncOnly, "b.yaml #2")},
			ask:    image, c: caseCreate,
			want:   "201 async",
			source: "rule: a create answers 201",
		},
		"OtherLevel": {
			reason: "nested types make no rule for a top-level type",
			kinds:  []*model.Kind{kind(rules, lroDelete), kind(route, lroDelete), kind(nic, lroDelete)},
			ev:     map[string]*evidence{strings.ToLower(rules): answered(caseDelete, both, "a.yaml #1"), strings.ToLower(route): answered(caseDelete, both, "b.yaml #2")},
			ask:    nic, c: caseDelete,
			want:   "202 operation empty",
			source: "swagger:",
		},
		"SwaggerSplits": {
			reason: "types whose swagger marks DELETE long-running make no rule for one whose swagger says synchronous",
			kinds:  []*model.Kind{kind(vnet, lroDelete), kind(nsg, lroDelete), kind(nic, syncDelete)},
			ev:     map[string]*evidence{strings.ToLower(vnet): answered(caseDelete, both, "a.yaml #1"), strings.ToLower(nsg): answered(caseDelete, both, "b.yaml #2")},
			ask:    nic, c: caseDelete,
			want:   "200 empty",
			source: "rule: a synchronous delete answers 200",
		},
		"ARMWide": {
			reason: "nested types of two providers, none recorded otherwise, decide a third provider's (Redis firewall rules and federated credentials: a create answers 201 with a Location naming the resource, the swagger says 201 alone)",
			kinds:  []*model.Kind{kind(fw, syncPut), kind(fic, syncPut), kind(keys, syncPut)},
			ev:     map[string]*evidence{strings.ToLower(fw): answered(caseCreate, located, "a.yaml #1"), strings.ToLower(fic): answered(caseCreate, located, "b.yaml #2")},
			ask:    keys, c: caseCreate,
			want:   "201 resource",
			source: "ARM-wide rule: the create of the 2 nested types of all providers for which the swagger says (201 synchronous) is recorded (201 Location of the resource): Microsoft.Cache/redis/firewallRules (a.yaml #1), Microsoft.ManagedIdentity/",
		},
		"ARMWideOtherSwagger": {
			reason: "an ARM-wide rule of types for which the swagger says a synchronous 201 does not decide a type for which it says long-running",
			kinds:  []*model.Kind{kind(fw, syncPut), kind(fic, syncPut), kind(keys, lroPut)},
			ev:     map[string]*evidence{strings.ToLower(fw): answered(caseCreate, located, "a.yaml #1"), strings.ToLower(fic): answered(caseCreate, located, "b.yaml #2")},
			ask:    keys, c: caseCreate,
			want:   "201 async",
			source: "rule: a create answers 201",
		},
		"ARMWideOneProvider": {
			reason: "types of one provider make no ARM-wide rule (SQL's nested types answer 202 with both headers where the swagger says Location; Cosmos is not told so)",
			kinds:  []*model.Kind{kind(sqlDB, locPut), kind(sqlPool, locPut), kind(cosmos, locPut)},
			ev:     map[string]*evidence{strings.ToLower(sqlDB): answered(caseCreate, both, "a.yaml #1"), strings.ToLower(sqlPool): answered(caseCreate, both, "a.yaml #2")},
			ask:    cosmos, c: caseCreate,
			want:   "201 operation empty",
			source: "rule: a create answers 201",
		},
		"SameAsSwagger": {
			reason: "recorded types answering as the swagger says make no rule: the swagger stays the source",
			kinds:  []*model.Kind{kind(vnet, lroDelete), kind(nsg, lroDelete), kind(nic, lroDelete)},
			ev:     map[string]*evidence{strings.ToLower(vnet): answered(caseDelete, locOnly, "a.yaml #1"), strings.ToLower(nsg): answered(caseDelete, locOnly, "b.yaml #2")},
			ask:    nic, c: caseDelete,
			want:   "202 operation empty",
			source: "swagger:",
		},
		"OwnRecordingWins": {
			reason: "a type's recorded create decides its update (rule 9) before the provider's recorded updates do",
			kinds:  []*model.Kind{kind(vnet, lroPut), kind(nsg, lroPut), kind(nic, lroPut)},
			ev: map[string]*evidence{
				strings.ToLower(vnet): answered(caseUpdate, recording.Answer{Status: 200, AsyncOperation: true}, "a.yaml #1"),
				strings.ToLower(nsg):  answered(caseUpdate, recording.Answer{Status: 200, AsyncOperation: true}, "b.yaml #2"),
				strings.ToLower(nic):  answered(caseCreate, recording.Answer{Status: 201}, "c.yaml #3"),
			},
			ask: nic, c: caseUpdate,
			want:   "200",
			source: ruleUpdateLikeCreate,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := &learner{providers: learnProviderRules(tc.kinds, tc.ev)}
			l.providers.answers = learnAnswerRules(tc.kinds, tc.ev, l.specOf)
			p := l.learn(tc.kinds[len(tc.kinds)-1], tc.ev[strings.ToLower(tc.ask)])
			a := map[string]*recording.Answer{caseCreate: p.Create, caseUpdate: p.Update, casePatch: p.Patch, caseDelete: p.Delete}[tc.c]
			if a == nil {
				t.Fatalf("%s\nno %s answer", tc.reason, tc.c)
			}
			if diff := cmp.Diff(tc.want, shape(a)); diff != "" {
				t.Errorf("%s\n%s answer of %s (-want +got):\n%s", tc.reason, tc.c, tc.ask, diff)
			}
			if !strings.HasPrefix(a.Source, tc.source) {
				t.Errorf("%s\nsource %q, want it to start with %q", tc.reason, a.Source, tc.source)
			}
		})
	}
}

// shape is an answer as "status [async][+operation|+resource] [empty]".
func shape(a *recording.Answer) string {
	s := strconv.Itoa(a.Status)
	var hs []string
	if a.AsyncOperation {
		hs = append(hs, "async")
	}
	if a.Location != "" {
		hs = append(hs, a.Location)
	}
	if len(hs) > 0 {
		s += " " + strings.Join(hs, "+")
	}
	if a.EmptyBody {
		s += " empty"
	}
	return s
}

// TestOperationRules learns the finished operation status of a type none
// of whose operations a recording polled to its end from its provider's
// types (Compute's disk types name the resource under properties.output).
func TestOperationRules(t *testing.T) {
	diskPut := &tree.Operation{Method: http.MethodPut, LongRunning: true, FinalStateVia: "location"}
	otherPut := &tree.Operation{Method: http.MethodPut, LongRunning: true}
	kind := func(armType string, put *tree.Operation) *model.Kind {
		return &model.Kind{Resource: &tree.Resource{ARMType: armType, Ops: map[string]*tree.Operation{http.MethodPut: put}}}
	}
	withOutput := func(where string) *evidence {
		return &evidence{answers: map[string][]seen{}, ops: []seen{{where: where, body: map[string]any{"status": "Succeeded", "properties": map[string]any{"output": map[string]any{}}}}}}
	}
	plain := func(where string) *evidence {
		return &evidence{answers: map[string][]seen{}, ops: []seen{{where: where, body: map[string]any{"status": "Succeeded"}}}}
	}
	const (
		disks = "Microsoft.Compute/disks"
		snaps = "Microsoft.Compute/snapshots"
		des   = "Microsoft.Compute/diskEncryptionSets"
	)
	cases := map[string]struct {
		reason string
		kinds  []*model.Kind
		ev     map[string]*evidence
		want   string // "output", "" for a plain status
		source string
	}{
		"Agree": {
			reason: "two types of a provider, for which the swagger says the same of a create, polled alike, decide a third's",
			kinds:  []*model.Kind{kind(disks, diskPut), kind(snaps, diskPut), kind(des, diskPut)},
			ev:     map[string]*evidence{strings.ToLower(disks): withOutput("a.yaml #3"), strings.ToLower(snaps): withOutput("b.yaml #4")},
			want:   "output",
			source: "provider rule: the finished operations of the 2 top-level types of the provider for which the swagger says (201 Location, no body) of a create, as recorded: disks (a.yaml #3), snapshots (b.yaml #4)",
		},
		"Disagree": {
			reason: "a plain status of one type is a disagreement",
			kinds:  []*model.Kind{kind(disks, diskPut), kind(snaps, diskPut), kind(des, diskPut)},
			ev:     map[string]*evidence{strings.ToLower(disks): withOutput("a.yaml #3"), strings.ToLower(snaps): plain("b.yaml #4")},
		},
		"OtherSwagger": {
			reason: "types for which the swagger says otherwise of a create make no rule",
			kinds:  []*model.Kind{kind(disks, diskPut), kind(snaps, diskPut), kind(des, otherPut)},
			ev:     map[string]*evidence{strings.ToLower(disks): withOutput("a.yaml #3"), strings.ToLower(snaps): withOutput("b.yaml #4")},
		},
		"OwnWins": {
			reason: "a type's own polled operations, plain, win",
			kinds:  []*model.Kind{kind(disks, diskPut), kind(snaps, diskPut), kind(des, diskPut)},
			ev:     map[string]*evidence{strings.ToLower(disks): withOutput("a.yaml #3"), strings.ToLower(snaps): withOutput("b.yaml #4"), strings.ToLower(des): plain("c.yaml #5")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := &learner{providers: learnProviderRules(tc.kinds, tc.ev)}
			l.providers.operations = learnOperationRules(tc.kinds, tc.ev, l.specOf)
			p := l.learn(tc.kinds[len(tc.kinds)-1], tc.ev[strings.ToLower(des)])
			got, source := "", ""
			if p.Operation != nil {
				source = p.Operation.Source
				if p.Operation.Output {
					got = "output"
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\noperation of %s (-want +got):\n%s", tc.reason, des, diff)
			}
			if diff := cmp.Diff(tc.source, source); diff != "" {
				t.Errorf("%s\nsource (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
