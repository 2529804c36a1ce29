// Package composite is the example user composition on the configurator:
// an AppStack (examples.armature.dev/v1alpha1, CRD in crd.yaml) names a
// ResourceGroup and a storage account; it declares the StorageAccount, its
// blob service and a blob container, and its status summarises whether
// they are Ready.
//
// # Select
//
// Select reads, through the Tracker, the ResourceGroup named by
// spec.resourceGroup and the three declared resources. Each read is
// tracked: the group or a declared resource changing (turning Ready, being
// deleted) re-selects exactly the AppStacks that read it. The output keeps
// only what Render needs — the spec, the location and, per resource,
// existence, readiness and reason — so a change that does not move those
// (a resync, a spec rewrite, a new ARM property in status) renders nothing.
//
// # Render
//
// Render declares the three resources with their spec.owner chain
// (group ← account ← blob service ← container) and returns the status. The
// configurator applies them with server-side apply and an owner reference
// to the AppStack, writes the status only when it changed, and deletes a
// resource the AppStack no longer declares (a changed containerName
// replaces the container).
//
// # Location
//
// spec.location, else the ResourceGroup's spec.location, else the
// location already in status: once declared, the account keeps its location
// even if the group disappears for a while, so it is not pruned and
// re-created.
package composite
