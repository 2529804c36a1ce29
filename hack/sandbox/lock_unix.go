//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lock takes the folder's lock (.lock, holding the pid), or says which
// sandbox holds it. The kernel releases it when the process ends, however
// it ends.
func lock(dir string) (unlock func(), err error) {
	name := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(name)
		_ = f.Close()
		return nil, fmt.Errorf("a sandbox already runs in %s (pid %s); stop it, or set SANDBOX_DIR to another folder", dir, strings.TrimSpace(string(pid)))
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { _ = f.Close() }, nil
}

// reapOrphans stops the kube-apiserver and etcd processes whose arguments
// name the folder's tmp/ — those a sandbox started there and could not
// stop because it was killed — and returns how many. The caller holds the
// folder's lock, so no running sandbox owns them. It reads /proc (Linux);
// elsewhere it finds none.
func reapOrphans(dir string) int {
	pids := children(dir)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for syscall.Kill(p, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	return len(pids)
}

// children lists the kube-apiserver and etcd processes whose arguments
// name dir/tmp/.
func children(dir string) []int {
	tmp := []byte(filepath.Join(dir, "tmp") + string(filepath.Separator))
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(cmdline, []byte{0})
		if bin := filepath.Base(string(args[0])); (bin == "kube-apiserver" || bin == "etcd") && bytes.Contains(cmdline, tmp) {
			out = append(out, pid)
		}
	}
	return out
}
