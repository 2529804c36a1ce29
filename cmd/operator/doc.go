// Command operator runs armature's generic reconciler for every installed
// generated kind (and, with --webhook, the admission webhook). "operator
// plan -f cr.yaml" prints what it would send for custom resources without
// sending anything; "operator import --resource-group NAME" writes custom
// resources that adopt the resources of an Azure resource group
// (docs/import.md). Point it at the local ARM emulator with --arm-endpoint
// and --arm-ca-file (see cmd/fakearm), or at Azure with azidentity's usual
// environment.
package main
