package arm

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Class is what the reconciler does about an ARM error.
type Class string

// The classes. Their values are the class label of the
// armature_arm_errors_total metric.
const (
	// ClassRetry is a transient error: retried with backoff (429, 5xx, an
	// operation in progress, ARM's read-after-write lag, a parent created
	// in parallel).
	ClassRetry Class = "retry"
	// ClassObjectChange is a request Azure refuses as it is: nothing is
	// retried until the custom resource changes (a terminal error).
	ClassObjectChange Class = "object-change"
	// ClassWorldChange needs something outside the custom resource to change
	// (a role assignment, a provider registration, a credential): retried
	// slowly.
	ClassWorldChange Class = "world-change"
	// ClassNameTaken is a name Azure already gives to another resource
	// (another subscription's account, a soft-deleted vault): the condition
	// says how to recover; retried slowly, since purging or deleting the
	// other resource frees the name without a change of the object.
	ClassNameTaken Class = "name-taken"
)

// Classes lists the classes in the order docs/errors.md shows them.
var Classes = []Class{ClassRetry, ClassObjectChange, ClassWorldChange, ClassNameTaken}

// Call describes the request an error answered, for the rows that depend on
// it.
type Call struct {
	// Method is the HTTP method ("" when unknown).
	Method string
	// AfterWrite is set for a read of a resource that ARM accepted a write
	// of moments ago (the same reconcile, or within the reconciler's
	// read-after-write window).
	AfterWrite bool
	// Poll is set for the answer to a poll of a long-running operation. A
	// Location-style operation that ended Failed answers its poll with
	// the operation's error as a 4xx (ARM RPC, async operations), not a
	// 200 status body: such an answer counts as an operation that ended
	// Failed (Match.Operation).
	Poll bool
}

// Match selects errors. Empty fields match anything; a Rule matches when
// every set field does.
type Match struct {
	// Status is an HTTP status ("409") or a class of them ("5xx", "4xx").
	Status string
	// Code is ARM's error code, compared case-insensitively and without
	// spaces ("Subscription Not Registered" is SubscriptionNotRegistered).
	Code string
	// MessageContains is a text ARM's message must contain
	// (case-insensitive).
	MessageContains string
	// Method is the request's HTTP method.
	Method string
	// AfterWrite matches only a read right after an accepted write.
	AfterWrite bool
	// Token matches the failure to get a token from the credential (no ARM
	// answer at all: Azure AD refused the client's secret or assertion).
	Token bool
	// Operation matches a long-running operation that ended Failed
	// (Error.Operation, or a 4xx answering a poll: Call.Poll).
	Operation bool
}

// Rule is one row of the error table.
type Rule struct {
	Match
	// Class is what to do.
	Class Class
	// Reason, when set, replaces ARM's code as the condition reason (for
	// rows without an ARM code: token failures, answers without a body).
	Reason string
	// Hint is appended to ARM's message in the condition: how to recover.
	Hint string
	// Register marks the row whose error a provider registration cures
	// (the operator's --register-providers).
	Register bool
	// CreateOnly marks a create-only refusal: Azure refuses to change, on a
	// resource that exists, a property it sets only at create (class
	// object-change). The reconciler's condition names the property (ARM's
	// target, else the one the message quotes, else Property, else what the
	// write changed) and says how to recover.
	CreateOnly bool
	// Property is the property a CreateOnly row's code is about, from the
	// body root ("location"); "" when the answer must say which.
	Property string
	// Source is where the row's behaviour comes from: ARM's documentation
	// of the code, or a recording.
	Source string
}

// Sources of the rows.
const (
	srcCommon     = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/common-deployment-errors"
	srcRegister   = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/error-register-resource-provider"
	srcQuota      = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/error-resource-quota"
	srcSku        = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/error-sku-not-available"
	srcStorage    = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/troubleshooting/error-storage-account-name"
	srcStorageRP  = "https://learn.microsoft.com/en-us/rest/api/storagerp/srp_error_codes_common"
	srcKeyVault   = "https://learn.microsoft.com/en-us/azure/key-vault/general/common-error-codes"
	srcKVRecovery = "https://learn.microsoft.com/en-us/azure/key-vault/general/key-vault-recovery"
	srcThrottling = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/request-limits-and-throttling"
	srcRetryOn    = "https://learn.microsoft.com/en-us/azure/azure-resource-manager/bicep/bicep-retryon"
	srcAzcore     = "https://pkg.go.dev/github.com/Azure/azure-sdk-for-go/sdk/azcore/policy#RetryOptions"
	srcAzidentity = "https://pkg.go.dev/github.com/Azure/azure-sdk-for-go/sdk/azidentity#AuthenticationFailedError"
	srcRecordedRG = "recording ../shared/recordings/Test_NewResourceGroup_Error.yaml (400 LocationNotAvailableForResourceGroup)"
	srcIssue      = "issue 17 (no ARM page documents this code; its name says it is transient)"
	srcNested     = "recording test/recordings/Test_Networking_PrivateDnsZone_CRUD.yaml (409 CannotDeleteResource while a virtual network link exists, 202 once it is deleted)"
	srcReferenced = "recording test/recordings/Test_Networking_PrivateEndpoint_CRUD.yaml (a DNS zone group DELETE answered 400 ReferencedResourceNotProvisioned while its endpoint was deleted, 204 on the next try)"
	// Deletions refused while another resource uses the resource.
	srcInUseSubnet = "https://github.com/kubernetes-sigs/cluster-api-provider-azure/issues/172 (400 InUseSubnetCannotBeDeleted: “Subnet … is in use by …/loadBalancers/…/frontendIPConfigurations/…”); https://github.com/Azure/azure-quickstart-templates/issues/5450"
	srcInUseNSG    = "https://github.com/pulumi/pulumi-azure-native/issues/3051 (InUseNetworkSecurityGroupCannotBeDeleted: “Network security group … cannot be deleted because it is in use by the following resources: …/subnets/…”)"
	srcPIPInUse    = "https://github.com/ernestio/ernest/issues/514 (400 PublicIPAddressCannotBeDeleted: “Public IP address … can not be deleted since it is still allocated to resource …/networkInterfaces/…”); https://github.com/hashicorp/terraform-provider-azurerm/issues/688"
	srcIPGroupRefs = "https://github.com/Azure/azure-rest-api-specs/issues/25739 (IpGroupsHasFirewallPolicyReferences: “IpGroups … cannot be deleted since there are firewall policies using this resource.”)"
	srcRGBlocked   = "https://github.com/MicrosoftDocs/azure-docs/issues/52282 (ResourceGroupDeletionBlocked: “Deletion of resource group … failed as resources with identifiers … could not be deleted”)"
	srcFailedOp    = "Azure Service Operator's recording of Redis 2024-11-01 (issue 28: an operation Failed with AzureCacheForRedisLongRunningOperationFailure, the PUT sent again answered 409 while busy, then 201); ARM RPC async-api-reference (Azure/azure-resource-manager-rpc): a Failed operation leaves the resource Failed and the request may be sent again"
	srcATPBusy     = "recording test/recordings/Test_SQL_Server_v20211101_CRUD.yaml (#18: a server's advancedThreatProtectionSettings PUT answered 409 ServerAdvancedThreatProtectionInProgress while its securityAlertPolicies and auditingSettings PUTs ran, 202 when sent again, #28)"
	srcPrincipal   = "recording test/recordings/Test_Authorization_RoleAssignment_OnResourceGroup_CRUD.yaml (400 PrincipalNotFound four times for an identity created seconds before, then 201); https://learn.microsoft.com/en-us/azure/role-based-access-control/troubleshooting"
	// Create-only refusals: ARM answers quoted in public reports.
	srcPropertyChange = srcCommon + " (some properties of a deployed resource cannot be changed); AKS: https://github.com/Azure/terraform-azurerm-avm-res-containerservice-managedcluster/issues/166 (400, target dnsPrefix: “Changing property 'dnsPrefix' is not allowed.”)"
	srcAccountProp    = "https://github.com/Azure/azure-rest-api-specs/issues/18441 (Storage, 400 AccountPropertyCannotBeUpdated: “The property 'isHnsEnabled' was specified in the input, but it cannot be updated as it is read-only.”)"
	srcRoleUpdate     = "https://github.com/JetBrains/teamcity-azure-template/issues/10 (a role assignment name PUT again with another principal: “Tenant ID, application ID, principal ID, and scope are not allowed to be updated.”)"
	srcRGLocation     = "https://github.com/Azure/azure-cli/issues/22242 (“Invalid resource group location 'eastus'. The Resource group already exists in location 'westus'.”)"
	srcResLocation    = srcCommon + "; https://github.com/Azure/azure-service-operator/issues/784 (“The resource '…' already exists in location 'westus' in resource group 'helm'. A resource with the same name cannot be created in location 'eastus'.”)"
)

const (
	hintNameTaken  = "The name is used by another resource (maybe in another subscription): choose another spec.azureName."
	hintSoftDelete = "A soft-deleted key vault has this name: recover it (spec.properties.createMode: recover) or purge it (az keyvault purge --name <name>), or choose another spec.azureName; the operator retries."
	hintVault      = "The vault name is taken, maybe by a soft-deleted vault (az keyvault list-deleted): recover it (spec.properties.createMode: recover), purge it (az keyvault purge --name <name>), or choose another spec.azureName; the operator retries."
	hintRegister   = "Register the resource provider (az provider register --namespace <namespace>), or run the operator with --register-providers; the operator retries."
	hintAccess     = "Grant the operator's identity a role on the scope (or fix the credential); the operator retries."
	hintCredential = "Fix the credential (its Secret, or the operator's identity); the operator retries."
	hintInUse      = "Another resource still uses it (the message names it): the operator retries the DELETE until that resource is deleted or no longer uses it."
	hintPrincipal  = "A principal created moments ago may not have replicated in Microsoft Entra ID yet (spec.properties.principalType skips the lookup); the operator retries."
)

// Rules is the error table, first match wins. docs/errors.md is generated
// from it (go test ./runtime/arm -run TestErrorsDoc -update) and a test
// fails when the two differ. An ARM answer no row matches is retried when
// it is 408, 429 or 5xx and waits for a change of the object otherwise;
// errors that are not ARM answers (connection failures) are not classified.
var Rules = []Rule{
	// No ARM answer: the credential could not get a token.
	{Match: Match{Token: true}, Class: ClassWorldChange, Reason: "CredentialRejected", Hint: hintCredential, Source: srcAzidentity},
	// ARM's read-after-write lag: before any 404 row.
	{Match: Match{Status: "404", Method: http.MethodGet, AfterWrite: true}, Class: ClassRetry, Reason: "NotFound", Source: srcRetryOn},

	// Name taken. Before the conflict rows: these are 409s too.
	{Match: Match{Code: "StorageAccountAlreadyTaken"}, Class: ClassNameTaken, Hint: hintNameTaken, Source: srcStorage},
	{Match: Match{Code: "StorageAccountAlreadyExists"}, Class: ClassNameTaken, Hint: hintNameTaken, Source: srcCommon},
	{Match: Match{Code: "StorageAccountInAnotherResourceGroup"}, Class: ClassNameTaken, Hint: hintNameTaken, Source: srcCommon},
	{Match: Match{Code: "VaultAlreadyExists"}, Class: ClassNameTaken, Hint: hintVault, Source: srcKeyVault},
	{Match: Match{Code: "ConflictError", MessageContains: "soft deleted"}, Class: ClassNameTaken, Hint: hintSoftDelete, Source: srcKVRecovery},
	// Today's wording: "A vault with the same name already exists in
	// deleted state. You need to either recover or purge existing deleted
	// vault." (reported in alan-turing-institute/data-safe-haven#2523).
	{Match: Match{Code: "ConflictError", MessageContains: "in deleted state"}, Class: ClassNameTaken, Hint: hintSoftDelete, Source: srcKVRecovery},
	{Match: Match{Code: "DnsRecordInUse"}, Class: ClassNameTaken, Hint: hintNameTaken, Source: srcCommon},

	// World change: access, registration, credentials, capacity.
	{Match: Match{Code: "MissingSubscriptionRegistration"}, Class: ClassWorldChange, Hint: hintRegister, Register: true, Source: srcRegister},
	{Match: Match{Code: "MissingRegistrationForResourceProvider"}, Class: ClassWorldChange, Hint: hintRegister, Register: true, Source: srcRegister},
	{Match: Match{Code: "SubscriptionNotRegistered"}, Class: ClassWorldChange, Hint: hintRegister, Register: true, Source: srcCommon},
	{Match: Match{Code: "InvalidSubscriptionRegistrationState"}, Class: ClassWorldChange, Hint: hintRegister, Register: true, Source: srcCommon},
	{Match: Match{Code: "MissingRegistrationForLocation"}, Class: ClassWorldChange, Source: srcCommon},
	{Match: Match{Code: "AuthorizationFailed"}, Class: ClassWorldChange, Hint: hintAccess, Source: srcCommon},
	{Match: Match{Code: "LinkedAuthorizationFailed"}, Class: ClassWorldChange, Hint: hintAccess, Source: srcCommon},
	{Match: Match{Code: "InvalidAuthenticationTokenTenant"}, Class: ClassWorldChange, Hint: hintCredential, Source: srcCommon},
	{Match: Match{Code: "SubscriptionNotFound"}, Class: ClassWorldChange, Source: srcCommon},
	{Match: Match{Code: "AllocationFailed"}, Class: ClassWorldChange, Source: srcCommon},

	// Retry with backoff.
	{Match: Match{Code: "AnotherOperationInProgress"}, Class: ClassRetry, Source: srcCommon},
	{Match: Match{Code: "Conflict", Status: "409"}, Class: ClassRetry, Source: srcCommon},
	{Match: Match{Code: "ConflictError"}, Class: ClassRetry, Source: srcKeyVault},
	{Match: Match{Code: "StorageAccountBeingCreated"}, Class: ClassRetry, Source: srcStorageRP},
	{Match: Match{Code: "DeploymentActiveAndUneditable"}, Class: ClassRetry, Source: srcCommon},
	{Match: Match{Code: "ResourceGroupBeingDeleted"}, Class: ClassRetry, Source: srcCommon},
	{Match: Match{Code: "RetryableError"}, Class: ClassRetry, Source: srcIssue},
	// A parent created in parallel (an owner given by armId): ARM's
	// advice is to order the deployment; the doubling backoff waits.
	{Match: Match{Code: "ResourceGroupNotFound"}, Class: ClassRetry, Source: srcCommon},
	{Match: Match{Code: "ParentResourceNotFound"}, Class: ClassRetry, Source: srcCommon},
	{Match: Match{Code: "SubscriptionRequestsThrottled"}, Class: ClassRetry, Source: srcCommon},
	// Children are being deleted (a Private DNS zone's links).
	{Match: Match{Code: "CannotDeleteResource"}, Class: ClassRetry, Source: srcNested},
	// A 400, but transient: a resource it references is being changed
	// (a private endpoint while its DNS zone group is deleted).
	{Match: Match{Code: "ReferencedResourceNotProvisioned"}, Class: ClassRetry, Source: srcReferenced},
	// A 409 while the server's Defender settings are being changed.
	{Match: Match{Code: "ServerAdvancedThreatProtectionInProgress"}, Class: ClassRetry, Source: srcATPBusy},
	// A DELETE refused while another resource uses this one (deleted
	// together, the user goes first; the backoff waits for it).
	{Match: Match{Code: "InUseSubnetCannotBeDeleted"}, Class: ClassRetry, Hint: hintInUse, Source: srcInUseSubnet},
	{Match: Match{Code: "InUseNetworkSecurityGroupCannotBeDeleted"}, Class: ClassRetry, Hint: hintInUse, Source: srcInUseNSG},
	{Match: Match{Code: "PublicIPAddressCannotBeDeleted"}, Class: ClassRetry, Hint: hintInUse, Source: srcPIPInUse},
	{Match: Match{Code: "IpGroupsHasFirewallPolicyReferences"}, Class: ClassRetry, Hint: hintInUse, Source: srcIPGroupRefs},
	{Match: Match{Code: "ResourceGroupDeletionBlocked"}, Class: ClassRetry, Hint: hintInUse, Source: srcRGBlocked},
	// A 400, but transient: Entra ID replicates a new principal.
	{Match: Match{Code: "PrincipalNotFound"}, Class: ClassRetry, Hint: hintPrincipal, Source: srcPrincipal},

	// Create-only refusals (object change): a property Azure sets only at
	// create was changed on a resource that exists.
	{Match: Match{Code: "PropertyChangeNotAllowed"}, Class: ClassObjectChange, CreateOnly: true, Source: srcPropertyChange},
	{Match: Match{Code: "AccountPropertyCannotBeUpdated"}, Class: ClassObjectChange, CreateOnly: true, Source: srcAccountProp},
	{Match: Match{Code: "RoleAssignmentUpdateNotPermitted"}, Class: ClassObjectChange, CreateOnly: true, Source: srcRoleUpdate},
	{Match: Match{Code: "InvalidResourceGroupLocation"}, Class: ClassObjectChange, CreateOnly: true, Property: "location", Source: srcRGLocation},
	{Match: Match{Code: "InvalidResourceLocation"}, Class: ClassObjectChange, CreateOnly: true, Property: "location", Source: srcResLocation},

	// Wait for a change of the object.
	{Match: Match{Code: "OperationNotAllowed", MessageContains: "quota"}, Class: ClassObjectChange, Source: srcQuota},
	{Match: Match{Code: "ResourceQuotaExceeded"}, Class: ClassObjectChange, Source: srcQuota},
	{Match: Match{Code: "QuotaExceeded"}, Class: ClassObjectChange, Source: srcQuota},
	{Match: Match{Code: "OperationNotAllowed"}, Class: ClassObjectChange, Source: srcCommon},
	{Match: Match{Code: "SkuNotAvailable"}, Class: ClassObjectChange, Source: srcSku},
	{Match: Match{Code: "LocationNotAvailableForResourceGroup"}, Class: ClassObjectChange, Source: srcRecordedRG},
	{Match: Match{Code: "InvalidParameter"}, Class: ClassObjectChange, Source: srcCommon},
	{Match: Match{Code: "BadRequest"}, Class: ClassObjectChange, Source: srcCommon},
	{Match: Match{Code: "InvalidRequestContent"}, Class: ClassObjectChange, Source: srcCommon},
	{Match: Match{Code: "RequestDisallowedByPolicy"}, Class: ClassObjectChange, Source: srcCommon},

	// A long-running operation that ended Failed with a code no row above
	// names: ARM's answer to a failed operation is to send the request
	// again (the resource's provisioningState is Failed; a PUT retries it).
	{Match: Match{Operation: true}, Class: ClassRetry, Reason: "OperationFailed", Source: srcFailedOp},

	// By status, for the codes above none names.
	{Match: Match{Status: "401"}, Class: ClassWorldChange, Reason: "AuthenticationFailed", Hint: hintCredential, Source: srcStorageRP},
	{Match: Match{Status: "403"}, Class: ClassWorldChange, Reason: "Forbidden", Hint: hintAccess, Source: srcCommon},
	{Match: Match{Status: "429"}, Class: ClassRetry, Reason: "TooManyRequests", Source: srcThrottling},
	{Match: Match{Status: "5xx"}, Class: ClassRetry, Reason: "InternalServerError", Source: srcCommon},
	{Match: Match{Status: "408"}, Class: ClassRetry, Reason: "RequestTimeout", Source: srcAzcore},
	{Match: Match{Status: "404"}, Class: ClassRetry, Reason: "NotFound", Source: srcCommon},
	{Match: Match{Status: "4xx"}, Class: ClassObjectChange, Reason: "BadRequest", Source: srcCommon},
}

// Classification is an error's row and what the condition says.
type Classification struct {
	Class Class
	// Reason is the condition reason: ARM's code (made a valid condition
	// reason), else the row's Reason.
	Reason string
	// Code is ARM's error code as sent ("" without one).
	Code string
	// Message is ARM's message, then the row's hint.
	Message string
	// Rule is the row that matched; nil for the fallback of an answer no
	// row matches.
	Rule *Rule
	// CreateOnly is set for a create-only refusal (the row's CreateOnly).
	CreateOnly bool
	// Property is, for a create-only refusal, the property the answer
	// names: ARM's target, else the one its message quotes ('isHnsEnabled'),
	// else the row's Property; "" when none says. It is ARM's spelling
	// (often relative to properties: "dnsPrefix").
	Property string
}

// Classify finds the row of err, an error from a Client (it unwraps). ok is
// false for errors that are neither ARM answers nor token failures.
func Classify(err error, call Call) (c Classification, ok bool) {
	var ae *Error
	var te *TokenError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &te):
		for i := range Rules {
			if r := &Rules[i]; r.Token {
				return Classification{Class: r.Class, Reason: r.Reason, Message: join(te.Message(), r.Hint), Rule: r}, true
			}
		}
		return Classification{}, false
	default:
		return Classification{}, false
	}
	for i := range Rules {
		r := &Rules[i]
		if !r.matches(ae, call) {
			continue
		}
		c := Classification{Class: r.Class, Reason: reason(ae, r.Reason), Code: ae.Code, Message: join(message(ae), r.Hint), Rule: r, CreateOnly: r.CreateOnly}
		if r.CreateOnly {
			c.Property = refusedProperty(ae, r.Property)
		}
		return c, true
	}
	class := ClassObjectChange
	if ae.Status == http.StatusRequestTimeout || ae.Status == http.StatusTooManyRequests || ae.Status >= 500 {
		class = ClassRetry
	}
	return Classification{Class: class, Reason: reason(ae, "HTTP"+strconv.Itoa(ae.Status)), Code: ae.Code, Message: message(ae)}, true
}

// quotedProperty finds the property a refusal's message quotes: "Changing
// property 'dnsPrefix' is not allowed.", "The property 'isHnsEnabled' was
// specified in the input, but it cannot be updated".
var quotedProperty = regexp.MustCompile(`(?i)\bproperty '([^']+)'`)

// refusedProperty is the property a create-only refusal names: ARM's
// target, else the one its message quotes, else the row's.
func refusedProperty(e *Error, row string) string {
	if t := strings.TrimSpace(e.Target); t != "" {
		return t
	}
	if m := quotedProperty.FindStringSubmatch(e.Message); m != nil {
		return m[1]
	}
	return row
}

func (r *Rule) matches(e *Error, call Call) bool {
	m := r.Match
	switch {
	case m.Token:
		return false
	case m.Status != "" && !statusMatches(m.Status, e.Status):
		return false
	case m.Code != "" && !strings.EqualFold(m.Code, strings.ReplaceAll(e.Code, " ", "")):
		return false
	case m.MessageContains != "" && !strings.Contains(strings.ToLower(e.Message), strings.ToLower(m.MessageContains)):
		return false
	case m.Method != "" && !strings.EqualFold(m.Method, call.Method):
		return false
	case m.AfterWrite && !call.AfterWrite:
		return false
	case m.Operation && !e.Operation && !(call.Poll && e.Status >= 400 && e.Status < 500):
		return false
	}
	return true
}

func statusMatches(pattern string, status int) bool {
	if len(pattern) == 3 && strings.HasSuffix(pattern, "xx") {
		return strconv.Itoa(status/100) == pattern[:1]
	}
	return pattern == strconv.Itoa(status)
}

// reason makes ARM's code a Kubernetes condition reason (letters, digits,
// '_', ',', ':'; starting with a letter), else fallback.
func reason(e *Error, fallback string) string {
	var b strings.Builder
	for _, r := range e.Code {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case b.Len() > 0 && (r >= '0' && r <= '9' || r == '_'):
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

func message(e *Error) string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
		if msg == "" {
			msg = "HTTP " + strconv.Itoa(e.Status)
		}
	}
	if e.Target != "" {
		msg += " (target " + e.Target + ")"
	}
	return msg
}

func join(msg, hint string) string {
	if hint == "" {
		return msg
	}
	if msg != "" && !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, ")") {
		msg += "."
	}
	return strings.TrimSpace(msg + " " + hint)
}
