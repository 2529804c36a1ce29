// Command appstack-operator is the operator of cmd/operator with the
// AppStack composition of examples/composite on the configurator: a build
// of the example. The production binary does not carry example code.
//
//	go run ./examples/composite/cmd/appstack-operator [operator flags]
//
// Install examples/composite/crd.yaml beside the generated CRDs first.
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/examples/composite"
	"github.com/armature-dev/armature/operator"
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
		fmt.Fprintln(os.Stderr, "appstack-operator: kubeconfig:", err)
		os.Exit(1)
	}
	if err := operator.Run(ctrl.SetupSignalHandler(), restCfg, cfg, operator.WithComposition(composite.Register)); err != nil {
		fmt.Fprintln(os.Stderr, "appstack-operator:", err)
		os.Exit(1)
	}
}
