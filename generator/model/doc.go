// Package model turns classified resources into Go-shaped packages: one
// package per API group and version, a kind per resource, and the structs and
// enums of their bodies, shared where the swagger shares a definition.
//
// # Kind names
//
// A kind is named from its ARM type segments: the parents as written, the
// last one singular (storageAccounts/blobServices/containers →
// StorageAccountsBlobServicesContainer; see KindName). A segment written all
// in lower case takes the casing of the PUT's operationId group when that
// spells the same word (classic Microsoft.Insights `alertrules` with
// `AlertRules_CreateOrUpdate` → AlertRule, not Alertrule; KindNameOf).
// A name longer than MaxKindName (58) writes its parents as their initials,
// outermost first, until it fits (AAHybridRunbookWorkerGroupsHybridRunbookWorker):
// Kubernetes refuses a CRD whose list kind or plural is longer than 63
// characters (24 kinds of the wide corpus, such as Recovery Services'
// replication items and Automation's hybrid runbook workers). Initials keep
// apart the types that only their parents tell apart (Security and
// Compliance's private endpoint connections of five services).
//
// Users write the kind name in `kind:`, so it is never changed to make room
// for anything else. Kinds take their names (Kind, KindSpec, KindStatus,
// KindList) before any struct or enum of the package is named. Because a
// kind name carries its parents' segments, two kinds of one package can only
// share a name when their ARM types differ in case alone, or when initials
// made two long names one: the second, in ARM type order, is an
// error and is left out.
//
// # Struct and enum names
//
// A struct is named after its swagger definition (x-ms-client-name does not
// apply to definitions; it renames properties), or, for an inline schema,
// after the path that leads to it (WidgetPropertiesLimits). Status-side
// structs end in _STATUS. A definition whose name a kind owns — ARM embeds
// whole resources in others: the NetworkSecurityGroup definition inside a
// NetworkInterface, while networkSecurityGroups is a kind — gets the suffix
// Object (NetworkSecurityGroupObject). Enums are named by x-ms-enum's name
// or the path, with the same suffix rule. A struct or enum whose name is
// still taken, and which is not identical to the one holding it, gets a
// number (Sku2). Identical structs and enums of one name are one type.
//
// # Bodies
//
// The spec is the PUT body plus the operator fields azureName, owner and
// resourceID; the status is the GET response plus conditions. A PUT without
// a body parameter (ARM creates the resource from its path alone) gives a
// spec of the operator fields only, and the descriptor's PutWithoutBody
// tells clients to send no body.
package model
