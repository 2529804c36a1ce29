package arm_test

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/runtime/arm"
)

var update = flag.Bool("update", false, "rewrite docs/errors.md from the error table")

func TestClassify(t *testing.T) {
	type want struct {
		Class  arm.Class
		Reason string
	}
	cases := map[string]struct {
		reason string
		err    error
		call   arm.Call
		want   want
		ok     bool
	}{
		"Throttled": {
			reason: "429 without a code is retried",
			err:    &arm.Error{Status: 429}, want: want{arm.ClassRetry, "TooManyRequests"}, ok: true,
		},
		"ServerError": {
			reason: "5xx keeps ARM's code as the reason",
			err:    fmt.Errorf("PUT x: %w", &arm.Error{Status: 503, Code: "ServiceUnavailable"}), want: want{arm.ClassRetry, "ServiceUnavailable"}, ok: true,
		},
		"Conflict": {
			err:  &arm.Error{Status: 409, Code: "conflict"},
			want: want{arm.ClassRetry, "conflict"}, ok: true,
		},
		"ReadAfterWrite": {
			reason: "a 404 on GET right after a write is lag",
			err:    &arm.Error{Status: 404, Code: "ResourceGroupNotFound"}, call: arm.Call{Method: http.MethodGet, AfterWrite: true},
			want: want{arm.ClassRetry, "ResourceGroupNotFound"}, ok: true,
		},
		"ParentMissing": {
			reason: "a parent created in parallel is waited for with backoff",
			err:    &arm.Error{Status: 404, Code: "ResourceGroupNotFound"}, call: arm.Call{Method: http.MethodPut},
			want: want{arm.ClassRetry, "ResourceGroupNotFound"}, ok: true,
		},
		"QuotaText": {
			err:  &arm.Error{Status: 409, Code: "OperationNotAllowed", Message: "Operation results in exceeding quota limits of Core."},
			want: want{arm.ClassObjectChange, "OperationNotAllowed"}, ok: true,
		},
		"InvalidParameter": {
			err: &arm.Error{Status: 400, Code: "InvalidParameter"}, want: want{arm.ClassObjectChange, "InvalidParameter"}, ok: true,
		},
		"SubnetInUse": {
			reason: "a DELETE of a subnet a NIC uses is a 400 that the NIC's deletion cures: retried",
			err:    &arm.Error{Status: 400, Code: "InUseSubnetCannotBeDeleted", Message: "Subnet default is in use by .../ipConfigurations/ipconfig1 and cannot be deleted."},
			call:   arm.Call{Method: http.MethodDelete},
			want:   want{arm.ClassRetry, "InUseSubnetCannotBeDeleted"}, ok: true,
		},
		"FailedOperationUnknownCode": {
			reason: "an operation that ended Failed with a code the table does not know is sent again, not terminal",
			err:    &arm.Error{Status: 200, Code: "AzureCacheForRedisLongRunningOperationFailure", Message: "failed", Operation: true},
			want:   want{arm.ClassRetry, "AzureCacheForRedisLongRunningOperationFailure"}, ok: true,
		},
		"FailedOperationKnownCode": {
			reason: "a Failed operation with a code the table knows keeps its row",
			err:    &arm.Error{Status: 200, Code: "InvalidParameter", Operation: true},
			want:   want{arm.ClassObjectChange, "InvalidParameter"}, ok: true,
		},
		"FailedLocationOperationUnknownCode": {
			reason: "a Location-style operation that ended Failed answers its poll with the error as a 4xx: an unknown code is sent again",
			err:    &arm.Error{Status: 400, Code: "ContosoLongRunningOperationFailure", Message: "failed"}, call: arm.Call{Poll: true},
			want: want{arm.ClassRetry, "ContosoLongRunningOperationFailure"}, ok: true,
		},
		"FailedLocationOperationKnownCode": {
			reason: "a known code answering a poll keeps its row",
			err:    &arm.Error{Status: 400, Code: "InvalidParameter"}, call: arm.Call{Poll: true},
			want: want{arm.ClassObjectChange, "InvalidParameter"}, ok: true,
		},
		"UnknownCodeNotPolled": {
			reason: "the same 400 answering a request (not a poll) waits for a change of the object",
			err:    &arm.Error{Status: 400, Code: "ContosoLongRunningOperationFailure"}, call: arm.Call{Method: http.MethodPut},
			want: want{arm.ClassObjectChange, "ContosoLongRunningOperationFailure"}, ok: true,
		},
		"PublicIPInUse": {
			err:  &arm.Error{Status: 400, Code: "PublicIPAddressCannotBeDeleted"},
			want: want{arm.ClassRetry, "PublicIPAddressCannotBeDeleted"}, ok: true,
		},
		"Unknown4xx": {
			reason: "an unknown 4xx waits for a change of the object",
			err:    &arm.Error{Status: 422, Code: "SomethingNew"}, want: want{arm.ClassObjectChange, "SomethingNew"}, ok: true,
		},
		"Forbidden": {
			err: &arm.Error{Status: 403, Code: "AuthorizationFailed"}, want: want{arm.ClassWorldChange, "AuthorizationFailed"}, ok: true,
		},
		"Unregistered": {
			reason: "a 409 whose code says registration is not a conflict",
			err:    &arm.Error{Status: 409, Code: "MissingSubscriptionRegistration"}, want: want{arm.ClassWorldChange, "MissingSubscriptionRegistration"}, ok: true,
		},
		"SoftDeletedVault": {
			err:  &arm.Error{Status: 409, Code: "ConflictError", Message: "Exist soft deleted vault with the same name."},
			want: want{arm.ClassNameTaken, "ConflictError"}, ok: true,
		},
		"SoftDeletedVaultToday": {
			reason: "the newer wording of the same refusal",
			err:    &arm.Error{Status: 409, Code: "ConflictError", Message: "A vault with the same name already exists in deleted state. You need to either recover or purge existing deleted vault."},
			want:   want{arm.ClassNameTaken, "ConflictError"}, ok: true,
		},
		"VaultConflict": {
			reason: "ConflictError without soft-delete text is two operations at once",
			err:    &arm.Error{Status: 409, Code: "ConflictError", Message: "You're requesting multiple operations on same item."},
			want:   want{arm.ClassRetry, "ConflictError"}, ok: true,
		},
		"SpacesInCode": {
			reason: "codes match without spaces and are made valid condition reasons",
			err:    &arm.Error{Status: 409, Code: "Subscription Not Registered"}, want: want{arm.ClassWorldChange, "SubscriptionNotRegistered"}, ok: true,
		},
		"Token": {
			err: &arm.TokenError{Err: errors.New("invalid_client")}, want: want{arm.ClassWorldChange, "CredentialRejected"}, ok: true,
		},
		"NotARM": {
			reason: "a connection failure is not classified",
			err:    errors.New("dial tcp: connection refused"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, ok := arm.Classify(tc.err, tc.call)
			if ok != tc.ok {
				t.Fatalf("%s: ok = %v", tc.reason, ok)
			}
			if diff := cmp.Diff(tc.want, want{c.Class, c.Reason}); ok && diff != "" {
				t.Errorf("%s: -want +got\n%s", tc.reason, diff)
			}
		})
	}
}

// TestClassifyMessage: the condition message is ARM's, then the row's hint.
func TestClassifyMessage(t *testing.T) {
	c, _ := arm.Classify(&arm.Error{Status: 409, Code: "StorageAccountAlreadyTaken", Message: "The storage account named x is already taken."}, arm.Call{})
	if !strings.HasPrefix(c.Message, "The storage account named x is already taken. ") || !strings.Contains(c.Message, "spec.azureName") {
		t.Errorf("message %q", c.Message)
	}
	c, _ = arm.Classify(&arm.Error{Status: 400, Code: "InvalidParameter", Message: "Bad value.", Target: "sku"}, arm.Call{})
	if c.Message != "Bad value. (target sku)" {
		t.Errorf("message %q", c.Message)
	}
}

// TestCreateOnlyRefusal: the create-only rows name the property ARM's
// answer names: its target, else the property its message quotes, else the
// row's own.
func TestCreateOnlyRefusal(t *testing.T) {
	type want struct {
		Class      arm.Class
		CreateOnly bool
		Property   string
	}
	cases := map[string]struct {
		reason string
		err    *arm.Error
		want   want
	}{
		"Target": {
			reason: "AKS answers with a target (Azure/terraform-azurerm-avm-res-containerservice-managedcluster#166)",
			err:    &arm.Error{Status: 400, Code: "PropertyChangeNotAllowed", Message: "Changing property 'dnsPrefix' is not allowed.", Target: "dnsPrefix"},
			want:   want{arm.ClassObjectChange, true, "dnsPrefix"},
		},
		"QuotedInMessage": {
			reason: "without a target, the property the message quotes",
			err:    &arm.Error{Status: 400, Code: "PropertyChangeNotAllowed", Message: "Changing property 'linuxConfiguration.ssh.publicKeys' is not allowed."},
			want:   want{arm.ClassObjectChange, true, "linuxConfiguration.ssh.publicKeys"},
		},
		"StorageQuoted": {
			reason: "Storage quotes the property (Azure/azure-rest-api-specs#18441)",
			err:    &arm.Error{Status: 400, Code: "AccountPropertyCannotBeUpdated", Message: "The property 'isHnsEnabled' was specified in the input, but it cannot be updated as it is read-only. For more information, see - https://aka.ms/storageaccountupdate"},
			want:   want{arm.ClassObjectChange, true, "isHnsEnabled"},
		},
		"RoleAssignment": {
			reason: "the message names no property path: the reconciler falls back to what the write changed",
			err:    &arm.Error{Status: 400, Code: "RoleAssignmentUpdateNotPermitted", Message: "Tenant ID, application ID, principal ID, and scope are not allowed to be updated."},
			want:   want{arm.ClassObjectChange, true, ""},
		},
		"ResourceGroupLocation": {
			reason: "the code itself says which property: location",
			err:    &arm.Error{Status: 409, Code: "InvalidResourceGroupLocation", Message: "Invalid resource group location 'eastus'. The Resource group already exists in location 'westus'."},
			want:   want{arm.ClassObjectChange, true, "location"},
		},
		"ResourceLocation": {
			reason: "a resource that exists in another location",
			err:    &arm.Error{Status: 400, Code: "InvalidResourceLocation", Message: "The resource 'x' already exists in location 'westus' in resource group 'helm'. A resource with the same name cannot be created in location 'eastus'."},
			want:   want{arm.ClassObjectChange, true, "location"},
		},
		"NotCreateOnly": {
			reason: "an ordinary object-change error is no create-only refusal",
			err:    &arm.Error{Status: 400, Code: "InvalidParameter", Message: "The property 'sku' is bad.", Target: "sku"},
			want:   want{arm.ClassObjectChange, false, ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, ok := arm.Classify(tc.err, arm.Call{Method: "PUT"})
			if !ok {
				t.Fatalf("%s: not classified", tc.reason)
			}
			if diff := cmp.Diff(tc.want, want{c.Class, c.CreateOnly, c.Property}); diff != "" {
				t.Errorf("%s: -want +got\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRules: every row has a class, a source and something to match, and
// no row is shadowed by an earlier one.
func TestRules(t *testing.T) {
	for i, r := range arm.Rules {
		if r.Class == "" || r.Source == "" || r.Match == (arm.Match{}) {
			t.Errorf("row %d %+v: class, source and a match are required", i+1, r)
		}
		if r.Code == "" && r.Reason == "" && !r.Token {
			t.Errorf("row %d: a row without a code needs a Reason", i+1)
		}
		for j, earlier := range arm.Rules[:i] {
			if shadows(earlier.Match, r.Match) {
				t.Errorf("row %d (%s) is shadowed by row %d (%s)", i+1, describe(r.Match), j+1, describe(earlier.Match))
			}
		}
	}
}

// shadows reports whether every error b matches, a matches too.
func shadows(a, b arm.Match) bool {
	eq := func(x, y string) bool { return x == "" || strings.EqualFold(x, y) }
	status := a.Status == "" || a.Status == b.Status || (strings.HasSuffix(a.Status, "xx") && b.Status != "" && a.Status[0] == b.Status[0])
	return a.Token == b.Token && status && eq(a.Code, b.Code) && eq(a.MessageContains, b.MessageContains) && eq(a.Method, b.Method) && (!a.AfterWrite || b.AfterWrite) && (!a.Operation || b.Operation)
}

// TestErrorsDoc: docs/errors.md is the table; -update rewrites it.
func TestErrorsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "errors.md")
	want := errorsDoc()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("docs/errors.md differs from runtime/arm Rules (go test ./runtime/arm -run TestErrorsDoc -update): -want +got\n%s", diff)
	}
}

func describe(m arm.Match) string {
	var parts []string
	if m.Token {
		parts = append(parts, "no token")
	}
	if m.Method != "" {
		parts = append(parts, m.Method)
	}
	if m.AfterWrite {
		parts = append(parts, "right after an accepted write")
	}
	if m.MessageContains != "" {
		parts = append(parts, "message contains “"+m.MessageContains+"”")
	}
	if m.Operation {
		parts = append(parts, "a long-running operation that ended Failed (its status says so, or its Location poll answers a 4xx)")
	}
	return strings.Join(parts, ", ")
}

var classNames = map[arm.Class]string{
	arm.ClassRetry:        "retry with backoff",
	arm.ClassObjectChange: "wait for a change of the object",
	arm.ClassWorldChange:  "wait for a change of the world (slow retry)",
	arm.ClassNameTaken:    "name taken (slow retry)",
}

func errorsDoc() string {
	var b strings.Builder
	b.WriteString(errorsDocHead)
	b.WriteString("| # | Status | ARM code | Also | Class | Reason without a code | Register | Create-only refusal | Source |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, r := range arm.Rules {
		cell := func(s string) string {
			if s == "" {
				return "·"
			}
			return s
		}
		reg := "·"
		if r.Register {
			reg = "yes"
		}
		co := "·"
		switch {
		case r.CreateOnly && r.Property != "":
			co = "yes (`" + r.Property + "`)"
		case r.CreateOnly:
			co = "yes"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", i+1, cell(r.Status), cell("`"+r.Code+"`"), cell(describe(r.Match)), classNames[r.Class], cell(r.Reason), reg, co, links(r.Source))
	}
	b.WriteString("\nHints appended to ARM's message, by row:\n\n")
	seen := map[string]bool{}
	for i, r := range arm.Rules {
		if r.Hint == "" {
			continue
		}
		if !seen[r.Hint] {
			seen[r.Hint] = true
			fmt.Fprintf(&b, "- row %d", i+1)
			for j := i + 1; j < len(arm.Rules); j++ {
				if arm.Rules[j].Hint == r.Hint {
					fmt.Fprintf(&b, ", %d", j+1)
				}
			}
			fmt.Fprintf(&b, ": “%s”\n", r.Hint)
		}
	}
	return strings.ReplaceAll(b.String(), "| `` |", "| · |")
}

// links makes every URL of a source a Markdown link named by its page
// (common-deployment-errors) or, on GitHub, owner/repo#number.
func links(src string) string {
	words := strings.Split(src, " ")
	for i, w := range words {
		if !strings.HasPrefix(w, "https://") {
			continue
		}
		tail := ""
		if t := strings.TrimRight(w, ";,"); t != w {
			w, tail = t, w[len(t):]
		}
		name := strings.TrimPrefix(w[strings.LastIndex(w, "/")+1:], "#")
		if rest, ok := strings.CutPrefix(w, "https://github.com/"); ok {
			if p := strings.Split(rest, "/"); len(p) == 4 {
				name = p[0] + "/" + p[1] + "#" + p[3]
			}
		}
		words[i] = "[" + name + "](" + w + ")" + tail
	}
	return strings.Join(words, " ")
}

const errorsDocHead = `# ARM errors: what the operator does

<!-- Generated from runtime/arm Rules by go test ./runtime/arm -run TestErrorsDoc -update. Do not edit: the test fails when this file and the table differ. -->

Every error ARM answers a reconcile with is looked up in one table,
` + "`runtime/arm` `Rules`" + ` (classify.go): the first row whose match holds gives the
class. Each row names its source: ARM's documentation of the code, or a
recording under ../shared/recordings.

| Class | What the reconciler does | ActionRequired |
|---|---|---|
| retry with backoff | Ready=False, requeue after ` + "`RetryBackoff`" + ` (1s doubling to 5m; a longer Retry-After wins), once azcore's own retries of 408/429/5xx are spent. Also a parent that is not there yet (an owner given by ` + "`armId`" + `, created in parallel) | False |
| wait for a change of the object | Ready=False and a terminal error: nothing is sent again until the custom resource changes | True |
| wait for a change of the world | Ready=False, requeue after ` + "`WorldBackoff`" + ` (1m doubling to 30m): a role assignment, a provider registration or a credential cures it without a change of the object | True |
| name taken | Ready=False with how to recover or purge, requeue after ` + "`NameTakenBackoff`" + ` (5m doubling to 1h) | True |

For every class the condition's reason is ARM's code (the "reason without
a code" when the answer has none) and its message is ARM's message, then
the row's hint. A Warning Event is recorded once per distinct (reason,
message), not on every retry. ` + "`armature_arm_errors_total{code,class}`" + ` counts the
errors a reconcile ended on.

- **Read-after-write lag.** A 404 on the GET that follows a write ARM
  accepted (in the same reconcile, or within ` + "`ReadAfterWrite`" + `, 1 minute) is
  retried; later, a 404 means the resource was deleted outside the operator,
  and it is created again.
- **Provider registration.** ` + "`MissingSubscriptionRegistration`" + ` waits, with the
  ` + "`az provider register`" + ` command in the message. With the operator's
  ` + "`--register-providers`" + ` it POSTs
  ` + "`/subscriptions/{id}/providers/{namespace}/register?api-version=2021-04-01`" + ` as the
  portal does (once per credential, subscription and namespace per 10
  minutes), records a ` + "`RegisteringProvider`" + ` Event and retries. azcore's own
  registration policy, which blocks a request for minutes, is off.
- **Unmatched answers.** 408, 429 and 5xx are retried; any other status waits
  for a change of the object. Errors that are not ARM answers (a connection
  refused) go to controller-runtime's backoff.
- **Create-only refusals.** The rows marked create-only are Azure refusing
  to change a property it sets only at create (a managed cluster's
  ` + "`dnsPrefix`" + `, a storage account's ` + "`isHnsEnabled`" + `, a location, a role
  assignment's principal). The condition names the property — ARM's
  ` + "`target`" + `, else the one its message quotes, else the row's, else the
  properties this write changed — says it is create-only in Azure, how to
  recover, and the ` + "`specs/armature.yaml`" + ` override that makes admission refuse
  such edits. ` + "`armature_create_only_refusals_total{kind,path}`" + ` counts them.
- **Credentials.** A credential that cannot get a token (Azure AD refused its
  secret) is row 1; a credential Secret that is missing or lacks a key is
  the reconciler's own ` + "`CredentialNotFound`" + ` / ` + "`CredentialInvalid`" + ` (wait for a change of
  the world) — see credentials.md.

The emulator produces any row: ` + "`fakearm.CodeFault`" + ` (method, path substring,
status, code, message, count or rate), from Go (` + "`Server.AddCodeFault`" + `,
` + "`Options.Faults.Codes`" + `) or over HTTP:

` + "```" + `sh
curl -k -X POST https://127.0.0.1:8443/_admin/faults/codes -d \
  '{"method":"PUT","pathContains":"storageAccounts/media","status":403,"code":"AuthorizationFailed","count":3}'
` + "```" + `

test/reconciler/errors_test.go has one envtest per class, asserting the
number of requests in a window on the emulator's journal.

## The table

`
