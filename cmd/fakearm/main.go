package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "conformance" {
		os.Exit(runConformance(os.Args[2:], os.Stdout, os.Stderr))
	}
	var (
		opts    fakearm.StartOptions
		certOut string
	)
	flag.StringVar(&opts.Addr, "addr", "127.0.0.1:8443", "address to listen on")
	flag.BoolVar(&opts.PlainHTTP, "plain-http", false, "serve plain HTTP instead of HTTPS (azcore's bearer-token policy needs HTTPS)")
	flag.StringVar(&certOut, "cert-out", filepath.Join(os.TempDir(), "fakearm-ca.pem"), "where to write the self-signed CA certificate, for clients to trust")
	flag.StringVar(&opts.Token, "token", "", "the only bearer token accepted (default: any)")
	flag.StringVar(&opts.StateFile, "state", "", "file that keeps resources across restarts (default: memory only)")
	flag.IntVar(&opts.LROPolls, "lro-polls", 1, "polls an operation answers InProgress at most before it ends")
	flag.DurationVar(&opts.LRODuration, "lro-duration", 10*time.Second, "how long an operation runs when nobody polls it (negative: until polled)")
	flag.DurationVar(&opts.RetryAfter, "retry-after", time.Second, "Retry-After of long-running operations")
	flag.DurationVar(&opts.QuotaWindow, "quota-window", time.Minute, "time a rate-limit bucket takes to refill from empty (ARM: --read-budget 250 --quota-window 10s is 25 reads per second)")
	flag.IntVar(&opts.ReadBudget, "read-budget", 100000, "size of a subscription's read bucket, refilled over --quota-window")
	flag.IntVar(&opts.WriteBudget, "write-budget", 10000, "size of a subscription's write bucket, refilled over --quota-window")
	flag.IntVar(&opts.DeleteBudget, "delete-budget", 10000, "size of a subscription's delete bucket, refilled over --quota-window")
	armLimits := flag.Bool("arm-limits", false, "ARM's published per-subscription limits: reads 250 refilled at 25/s, writes and deletes 200 refilled at 10/s (overrides the budget flags)")
	flag.IntVar(&opts.PageSize, "page-size", fakearm.DefaultPageSize, "items per page of a LIST (the rest at its nextLink)")
	flag.Float64Var(&opts.Faults.ThrottleRate, "fault-429-rate", 0, "share of requests answered 429 with Retry-After")
	flag.Float64Var(&opts.Faults.ErrorRate, "fault-500-rate", 0, "share of requests answered 500")
	flag.IntVar(&opts.Faults.LatencyMillis, "fault-latency-ms", 0, "latency added to every request")
	flag.Float64Var(&opts.Faults.DropRate, "fault-drop-rate", 0, "share of connections dropped without an answer")
	flag.BoolVar(&opts.Faults.FailLROs, "fault-fail-lros", false, "long-running operations end Failed")
	flag.Parse()
	if *armLimits {
		opts.ARMLimits()
	}

	descs := apis.Descriptors()
	r, err := fakearm.Start(descs, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakearm:", err)
		os.Exit(1)
	}
	fmt.Printf("fakearm: serving %d resource types at %s\n", len(descs), r.URL)
	if r.CertPEM != nil {
		if err := os.WriteFile(certOut, r.CertPEM, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakearm:", err)
			os.Exit(1)
		}
		fmt.Printf("fakearm: certificate written to %s\n", certOut)
	}
	fmt.Printf("fakearm: admin: %s/_admin/journal, /_admin/counters, /_admin/faults, /_admin/resources\n", r.URL)
	fmt.Println("fakearm: point the operator at it with:")
	if r.CertPEM != nil {
		fmt.Printf("  export ARMATURE_ARM_ENDPOINT=%s ARMATURE_ARM_CA_FILE=%s\n", r.URL, certOut)
	} else {
		fmt.Printf("  export ARMATURE_ARM_ENDPOINT=%s\n", r.URL)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	_ = r.Close()
	fmt.Println("fakearm: stopped")
}
