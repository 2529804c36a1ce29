// Command operator runs armature's generic reconciler for every installed
// generated kind (and, with --webhook, the admission webhook). Point it at
// the local ARM emulator with --arm-endpoint and --arm-ca-file (see
// cmd/fakearm), or at Azure with azidentity's usual environment.
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/runtime/operator"
)

func main() {
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
