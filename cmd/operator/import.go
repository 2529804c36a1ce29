package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/term"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/operator/importer"
	"github.com/armature-dev/armature/runtime/arm"
)

// importGroup writes one custom resource per resource of an Azure resource
// group, adopting it (spec.resourceID), and a kustomization.yaml:
//
//	operator import --resource-group NAME [--subscription ID] [--kinds PATTERNS]
//	                [--policy manage|skip|detach-on-delete] [-o DIR] [-n NAMESPACE]
//
// It reads ARM (GET and LIST) with the operator's credential and writes
// nothing to Azure. Progress goes to standard error (one line redrawn on a
// terminal), the summary to stdout. See docs/import.md.
func importGroup(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg operator.Config
	cfg.BindFlags(fs)
	group := fs.String("resource-group", "", "the resource group to import (required)")
	fs.StringVar(group, "g", "", "short for --resource-group")
	sub := fs.String("subscription", "", "subscription of the group (default --subscription-id, env AZURE_SUBSCRIPTION_ID)")
	policy := fs.String("policy", "", "reconcile policy of the custom resources: manage (default: no annotation), skip (observe only) or detach-on-delete")
	out := fs.String("o", "", "folder to write to (default: the resource group's name)")
	ns := fs.String("n", "", "namespace the kustomization.yaml sets (default: none; kubectl apply -n chooses)")
	concurrency := fs.Int("concurrency", 8, "ARM requests in flight at most")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *group == "" {
		return errors.New("--resource-group is required")
	}
	if *sub == "" {
		*sub = cfg.Reconciler.SubscriptionID
	}
	if *sub == "" {
		return errors.New("--subscription (or --subscription-id, env AZURE_SUBSCRIPTION_ID) is required")
	}
	switch core.Policy(*policy) {
	case "", core.PolicyManage, core.PolicySkip, core.PolicyDetachOnDelete:
	default:
		return fmt.Errorf("--policy %q: want manage, skip or detach-on-delete", *policy)
	}
	if *out == "" {
		*out = *group
	}
	cred, err := cfg.Credential()
	if err != nil {
		return err
	}
	conf, err := cfg.CloudConfiguration()
	if err != nil {
		return err
	}
	c, err := arm.NewClient(arm.Options{Cloud: conf, CAFile: cfg.ARMCAFile, Credential: cred})
	if err != nil {
		return err
	}
	reader, ok := c.(importer.Reader)
	if !ok {
		return errors.New("the ARM client cannot list")
	}
	var kinds []string
	for _, k := range strings.Split(cfg.Kinds, ",") {
		if k = strings.TrimSpace(k); k != "" {
			kinds = append(kinds, k)
		}
	}
	progress, done := importer.Printer(stderr, false, 0)
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		width, _, _ := term.GetSize(int(f.Fd()))
		progress, done = importer.Printer(stderr, true, width)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := importer.Run(ctx, importer.Options{
		ARM: reader, Descriptors: apis.Descriptors(), SubscriptionID: *sub, ResourceGroup: *group,
		Kinds: kinds, PreferredVersions: cfg.Reconciler.PreferredVersions, Policy: core.Policy(*policy),
		Defaults: apis.Defaults(), Concurrency: *concurrency, Progress: progress,
	})
	done()
	if err != nil {
		return err
	}
	files, werr := res.Write(*out, *ns)
	res.Summary(stdout)
	if werr != nil {
		return werr
	}
	fmt.Fprintf(stdout, "Wrote %d files to %s: fill in the Secrets, if any, then kubectl apply -k %s\n", len(files), *out, *out)
	if err := res.Err(); err != nil {
		return fmt.Errorf("%d reads failed: the resources below them are missing", len(res.Errors))
	}
	return nil
}
