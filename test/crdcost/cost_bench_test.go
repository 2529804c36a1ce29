package crdcost

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/armature-dev/armature/test/envtestutil"
)

// settle is how long the apiserver is left alone before its memory is read:
// installing CRDs starts work (OpenAPI aggregation, CEL compilation) that
// goes on after they are Established.
const settle = 20 * time.Second

// BenchmarkCRDCost starts kube-apiserver and etcd (envtest) bare, reads the
// apiserver's resident memory, installs every CRD under config/crd (the
// shipped kinds, as a user installs them) and reads it again: the memory
// per installed CRD that issue 30 bounds. CRD_DIR measures another folder
// of CRD YAML (say, every kind of the wide corpus).
func BenchmarkCRDCost(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	root := os.Getenv("CRD_DIR")
	if root == "" {
		root = filepath.Join(envtestutil.RepoRoot(), "config", "crd")
	}
	dirs, files, bytes, err := crdFolders(root)
	if err != nil {
		b.Fatal(err)
	}
	env, cfg, err := envtestutil.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	pid, err := envtestutil.APIServerPID(env)
	if err != nil {
		b.Fatal(err)
	}
	status := fmt.Sprintf("/proc/%d/status", pid)
	time.Sleep(settle)
	bare := envtestutil.ProcStatusMiB(status, "VmRSS:")

	b.ResetTimer()
	start := time.Now()
	crds, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: dirs, ErrorIfPathMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	install := time.Since(start)
	b.StopTimer()
	time.Sleep(settle)
	with := envtestutil.ProcStatusMiB(status, "VmRSS:")
	if bare == 0 || with == 0 || len(crds) == 0 {
		b.Fatalf("nothing measured: bare %.0f MiB, with %.0f MiB, %d CRDs", bare, with, len(crds))
	}
	b.ReportMetric(float64(len(crds)), "CRDs")
	b.ReportMetric(float64(bytes)/float64(files)/1024, "KiB-per-CRD-file")
	b.ReportMetric(bare, "apiserver-RSS-MiB-bare")
	b.ReportMetric(with, "apiserver-RSS-MiB-installed")
	b.ReportMetric((with-bare)/float64(len(crds)), "apiserver-MiB-per-CRD")
	b.ReportMetric(install.Seconds(), "s-to-install")
	b.ReportMetric(envtestutil.ProcStatusMiB(status, "VmHWM:"), "apiserver-peak-RSS-MiB")
	b.Logf("%d CRDs from %s (%d files, %.1f MiB of YAML): apiserver RSS %.0f MiB bare, %.0f MiB installed, installed in %v",
		len(crds), root, files, float64(bytes)/(1<<20), bare, with, install.Round(time.Millisecond))
}

// crdFolders lists the folders below root that hold CRD YAML (config/crd
// has one per API group), and the files' count and size.
func crdFolders(root string) (dirs []string, files int, bytes int64, err error) {
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || d.Name() == "kustomization.yaml" {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files++
		bytes += info.Size()
		if dir := filepath.Dir(p); !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err == nil && files == 0 {
		err = fmt.Errorf("no CRD YAML below %s", root)
	}
	return dirs, files, bytes, err
}
