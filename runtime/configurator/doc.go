// Package configurator is the select/render layer: a Registry watches
// kinds, runs a Select and a Render per resource, and writes only what
// changed. Owner resolution, outputs (ConfigMaps and Secrets other
// workloads read) and user compositions (examples/composite) run on it.
//
//	reg := configurator.New(mgr.GetClient(), mgr.GetCache())
//	reg.Watch(gvk, selector)
//	reg.Register(configurator.Kind{GVK: gvk, Select: sel, Render: render})
//	mgr.Add(reg)
//
// # Select and tracked reads
//
// Select gets the resource (kind, identity, labels, annotations, spec,
// status) and returns a Selected map. It runs when the resource's spec
// (generation) or status changes, never on a metadata-only update. Inside
// it, ix.Of(gvk, name) reads another resource from the informer cache and
// records the read in an Index (tracked → dependents). The informer
// handler of every watched or read kind looks the changed object up in
// that index: a change of a tracked resource re-selects exactly the
// resources whose last Select read it. The edge is recorded before the
// read, so a change that lands after the read always finds it; the edges
// of the previous run that this run did not read are dropped after it.
// Kinds read through Of and not watched get their informer at the first
// read (the read blocks until it synced); Watch starts it up front.
//
// # Render and the shallow diff
//
// Render gets Select's output and runs only when that output differs from
// the previous one by Equal: same map → equal, different key counts →
// changed, any key whose value differs by identity or equality → changed.
// Scalars compare with ==; a *Resource is equal to another version of the
// same object with the same resourceVersion or visible content; other
// values are equal when identical or reflect.DeepEqual, because Select
// rebuilds its maps on every run (see Equal).
//
// # Writes
//
// Render returns a Status and declares resources (ix.Resource). The result
// is compared with what was written before and only differences are sent:
// the status is merge-patched on the status subresource only when a key
// differs (keys Render never returned are left alone); declared resources
// are server-side applied (field owner "armature-configurator", forced)
// with a controller owner reference and the armature.dev/rendered-by label,
// only when their content changed since the last apply; resources declared
// last time and not now are deleted. The set of declared resources is kept
// in the armature.dev/rendered-resources annotation of the rendered
// resource, so a restarted operator still prunes. A status event that only
// echoes what Render wrote does not re-select. Owner references need
// update permission on the owner kind's finalizers where the
// OwnerReferencesPermissionEnforcement admission plugin runs.
//
// # Records
//
// Records() returns the managed data structure of the KEP,
// {kind: {name: {input, selected: {tracked: {kind: {name: read}}, output},
// rendered: {status, resources}}}}, and Handler serves it as JSON (mount it
// at RecordsPath). Tracked reads are kept as resourceVersion and digest,
// declared resources as reference and digest, *Resource values as
// references and SecretValue values redacted: no Secret value reaches the
// records.
//
// # Owners and references
//
// OwnerOf reads spec.owner through a Tracker: a child tracks its owner, and
// the owner turning Ready re-selects exactly its children. A controller
// that is not a Registry uses the same Index directly: Index.Track in its
// reconcile, Index.EnqueueDependents as the handler of its watch on the
// owner kind.
//
// # Outputs
//
// An OperatorSpec (spec.operatorSpec: configMaps and secrets of {name, key,
// value path}) selects values of a resource (Values) and declares the
// ConfigMaps and Secrets holding them (Outputs.Declare); OutputsKind is the
// ready-made Kind. Values from outside the resource (an ARM listKeys
// answer) come in as extra sources named by the path's first field.
//
// # Counters
//
// Stats counts Selects, Renders and apiserver writes; the same figures are
// the Prometheus counters armature_configurator_selects_total,
// _renders_total and _writes_total{verb}, which RegisterMetrics registers
// (operator.Run: on controller-runtime's metrics registry).
package configurator
