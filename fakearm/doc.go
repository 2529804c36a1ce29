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
// ResourceGroupNotFound (also for a DELETE); missing parent → 404
// ParentResourceNotFound; missing resource → 404 ResourceNotFound or the
// profile's code, all with ARM's error body.
//
// # Embedded children and extension resources
//
// A parent's embedded child collection (Descriptor.EmbeddedChildren: a
// virtual network's properties.subnets) and the child paths are one set of
// resources (embedded.go): a child PUT or DELETE shows in the parent's
// GET, and a parent PUT replaces the children with its collection,
// deleting those it does not name (also when it has none, as Network
// does); the journal lists them in Entry.Removed. An extension resource
// (/{scope}/providers/…) is served below any scope that exists; below a
// missing one ARM's 404 ResourceNotFound (ResourceGroupNotFound for a
// group) answers, and it goes when its scope is deleted.
//
// # Playback and conformance
//
// Playback is another ARM: it answers only with a recorded conversation's
// responses (test/playback runs the operator against it). The conformance
// package replays recordings against the emulator and measures how much it
// answers as Azure did (`fakearm conformance`, docs/conformance.md).
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
// # Like real ARM: the behaviour profiles
//
// Per type and api-version the emulator follows the behaviour profile the
// generator learned from recorded real ARM traffic, the x-ms-examples and
// the swagger (generated/profiles, package recording,
// docs/emulator.md): whether a verb is synchronous or long-running and
// with which header, its status codes (PUT 200 or 201, DELETE 200, 202 or
// 204, DELETE of a missing resource 204), the provider's not-found code
// (QueueNotFound…), refused names (AccountNameInvalid) and regions, the
// conflict of a PUT during a delete, and the defaults real GET answers
// carry. Options.Profiles replaces them; a type without a profile follows
// its swagger.
//
// # Long-running operations
//
// Long-running answers take one of the styles the recordings show:
// Azure-AsyncOperation (201/200 with the body, then an operation resource
// that reports InProgress and then Succeeded or Failed), Location (202,
// then the Location URL answers 202 until done and finally 200 with the
// resource; 200 with no body for DELETE), or both (202 with both headers,
// as most DELETEs). Operations run on the clock: one ends LRODuration after
// it started, polled or not (a resource group DELETE removes its children
// by itself), or earlier after LROPolls polls. Operation URLs name the
// resource's region. All carry Retry-After.
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
// status, code, message, count or rate; codes.go) — also as the error of
// the operations matching requests start (CodeFault.Operation: "fail the
// next create's operation once with this code"). A subscription can be
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
