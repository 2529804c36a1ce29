package envtestutil

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ProcStatusMiB reads one kB figure (VmRSS:, VmHWM:, RssAnon:…) of a
// /proc/<pid>/status file, in MiB; 0 when the file or the key is missing.
func ProcStatusMiB(path, key string) float64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), key); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// APIServerPID returns the process id of env's kube-apiserver, found in
// /proc by its --secure-port argument (envtest does not expose it).
func APIServerPID(env *envtest.Environment) (int, error) {
	port := env.ControlPlane.APIServer.SecureServing.ListenAddr.Port
	flag := "--secure-port=" + port
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return 0, err
	}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) == 0 || filepath.Base(args[0]) != "kube-apiserver" {
			continue
		}
		for _, a := range args {
			if a == flag {
				pid, _ := strconv.Atoi(filepath.Base(d))
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no kube-apiserver with %s in /proc", flag)
}

// StopProcess stops a started process: SIGTERM, then SIGKILL after 20 s.
// A process not started or already waited for is left alone.
func StopProcess(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Tail is the last 4,000 bytes of a file (a process's log, for failures).
func Tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
