// Command operator runs armature's generic reconciler for every installed
// generated kind (and, with --webhook, the admission webhook). "operator
// plan -f cr.yaml" prints what it would send for custom resources without
// sending anything; "operator import --resource-group NAME" writes custom
// resources that adopt the resources of an Azure resource group
// (docs/import.md). Point it at the local ARM emulator with --arm-endpoint
// and --arm-ca-file (see cmd/fakearm), or at Azure with azidentity's usual
// environment.
package main

import (
	"fmt"
	"os"

	"github.com/armature-dev/armature/operator"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "plan" {
		if err := plan(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "operator plan:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "import" {
		if err := importGroup(os.Args[2:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "operator import:", err)
			os.Exit(1)
		}
		return
	}
	operator.Main("operator")
}
