// Package fakearm is a local Azure Resource Manager: the embedded default
// "Azure" that tests, the demo and benchmarks run against. cmd/fakearm serves
// it; tests start it in-process with Start.
//
// # What it serves
//
// Every resource type of the Descriptors it is given, at ARM's real paths
// and api-versions: PUT (create or replace), PATCH (JSON merge), GET, DELETE
// (children go with their parent) and list in a scope. Unknown api-version →
// 400 InvalidApiVersionParameter; missing resource group → 404
// ResourceGroupNotFound; missing parent → 404 ParentResourceNotFound; missing
// resource → 404 ResourceNotFound, all with ARM's error body.
//
// # Like ARM
//
// Request bodies are checked against the Descriptor's property classes:
// readOnly values are ignored, an unknown property is 400
// InvalidRequestContent, a changed create-only property is 400
// PropertyChangeNotAllowed naming the property. The server computes id,
// name, type, etag (new on every write), systemData and
// properties.provisioningState, and fills the other readOnly properties the
// table lists with placeholders of their JSON type, so a GET has the shape of
// a real one. Secret and writeOnly values are never returned. If-Match and
// If-None-Match are honoured (412).
//
// # Lists
//
// A LIST (GET of a type's collection in a scope) and a resource group's
// inventory (GET …/resourceGroups/{g}/resources: the group's top-level
// resources of any type, with id, name, type, location, kind, sku and tags)
// answer in pages of Options.PageSize items (default DefaultPageSize), in
// id order, each with a nextLink carrying a $skiptoken until the last.
// Every page is journaled with its number and item count and counted as
// "LIST" besides "GET".
//
// # Long-running operations
//
// Verbs marked long-running answer as ARM does, in one of the two styles the
// recordings in ../shared/recordings show: Azure-AsyncOperation (201/200
// with the body, then an operation resource that reports InProgress N times
// and then Succeeded or Failed) or Location (202, then the Location URL
// answers 202 until done and finally 200 with the resource; 200 with no body
// for DELETE). Both carry Retry-After. Storage accounts use Location, as the
// recordings show; other types use Azure-AsyncOperation (DELETE also sends
// Location).
//
// # Actions
//
// POST <resource id>/<action> runs any action of the Descriptor
// (regenerateKey, listKeys, failover…) generically (actions.go): 404
// ResourceNotFound when the resource does not exist, 409 while an operation
// on it runs, 400 InvalidRequestContent naming the property when the body or
// a query parameter does not fit the action's schema. The response is
// synthesised from the response schema: secret fields (keys) are stable per
// resource until a regenerate action names them, so listKeys after
// regenerateKey returns the new key. Long-running actions answer 202 and
// run as operations of either style, with the response at Location.
//
// # Limits and faults
//
// Every response carries x-ms-ratelimit-remaining-subscription-reads,
// -writes or -deletes, counting down per window; an exhausted budget answers
// 429 with Retry-After. Faults are injected by Options, by the admin
// endpoint POST /_admin/faults or by Server.SetFaults: 429, 500 or 503 at a
// rate, added latency, dropped connections, LROs that end Failed, and any
// ARM error by code (Faults.Codes, POST /_admin/faults/codes: method, path,
// status, code, message, count or rate; codes.go). A subscription can be
// left unregistered with a provider (Options.Unregistered): its calls
// answer 409 MissingSubscriptionRegistration until POST
// /subscriptions/{id}/providers/{namespace}/register (providers.go).
//
// # Azure AD
//
// A minimal token endpoint (aad.go) serves azidentity's client-secret and
// workload-identity credentials pointed at the emulator with instance
// discovery off. Once an app is registered (Options.Apps, POST
// /_admin/apps), ARM calls need a token issued for an app allowed the
// subscription of the path, or Options.Token: else 401 or 403
// AuthorizationFailed, as ARM answers.
//
// # Journal
//
// Every request is journaled (method, path, status, body) and counted; the
// journal is read with Server.Journal or GET /_admin/journal, so tests can
// assert "this reconcile sent exactly one PATCH and no PUT".
//
// # Transport
//
// HTTPS with a generated self-signed certificate by default, so azcore's
// bearer-token policy works unchanged; plain HTTP with an option. Any bearer
// token is accepted unless one is configured or apps are registered. State lives in memory and is
// optionally saved to a file after every write, so a restart keeps it.
package fakearm
