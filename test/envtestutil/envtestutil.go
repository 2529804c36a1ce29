package envtestutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// RepoRoot is the repository root, found from this file.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Assets returns the folder holding kube-apiserver and etcd:
// KUBEBUILDER_ASSETS when set, else what hack/setup-envtest.sh prints (it
// builds the binaries on first use, which takes minutes once).
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	cmd := exec.Command(filepath.Join(RepoRoot(), "hack", "setup-envtest.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/setup-envtest.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Start starts an apiserver with the CRDs in crdDirs installed.
func Start(crdDirs ...string) (*envtest.Environment, *rest.Config, error) {
	assets, err := Assets()
	if err != nil {
		return nil, nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("start envtest with %s: %w", assets, err)
	}
	// Many objects are created quickly: lift client-side throttling.
	cfg.QPS, cfg.Burst = 500, 1000
	return env, cfg, nil
}
