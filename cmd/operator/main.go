// Command operator runs armature's generic reconciler for every installed
// generated kind (and, with --webhook, the admission webhook). "operator
// plan -f cr.yaml" prints what it would send for custom resources without
// sending anything. Point it at
// the local ARM emulator with --arm-endpoint and --arm-ca-file (see
// cmd/fakearm), or at Azure with azidentity's usual environment.
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

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
	var cfg operator.Config
	cfg.BindFlags(flag.CommandLine)
	zopts := zap.Options{Development: true}
	zopts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))
	restCfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "operator: kubeconfig:", err)
		os.Exit(1)
	}
	if err := operator.Run(ctrl.SetupSignalHandler(), restCfg, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}
