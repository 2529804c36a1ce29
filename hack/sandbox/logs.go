package main

import (
	"os"
	"path/filepath"
	"strings"
)

// logFiles are the log files of the sandbox's folder; each start
// truncates them, a stop keeps them.
type logFiles struct {
	operator, apiserver, etcd *os.File
}

func openLogs(dir string) (*logFiles, error) {
	l := &logFiles{}
	for name, f := range map[string]**os.File{"operator.log": &l.operator, "kube-apiserver.log": &l.apiserver, "etcd.log": &l.etcd} {
		var err error
		if *f, err = os.Create(filepath.Join(dir, name)); err != nil {
			return l, err
		}
	}
	return l, nil
}

func (l *logFiles) close() {
	for _, f := range []*os.File{l.operator, l.apiserver, l.etcd} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// hints tells, on standard error, how to use the sandbox: kubectl, the
// credential Secret of a namespace other than default, the emulator's CA.
func hints(s *sandbox) {
	kubectl := filepath.Join(s.cp.Assets, "kubectl")
	if _, err := os.Stat(kubectl); err == nil {
		progress("kubectl: export KUBECONFIG=%s; %s get resourcegroups -A", s.kubeconfig, kubectl)
	} else {
		progress("kubectl is not in %s: `ARMATURE_K8S_KUBECTL=ensure hack/setup-envtest.sh` builds it there", s.cp.Assets)
	}
	progress("namespace %s uses the operator's own identity (subscription %s); another namespace needs a credential Secret:", strings.Join(defaultNamespaces, ", "), operatorSubscription)
	progress("  kubectl -n NAMESPACE create secret generic armature-credential --from-literal=tenantId=%s --from-literal=clientId=%s --from-literal=clientSecret=%s --from-literal=subscriptionId=%s",
		teamTenant, teamClientID, teamSecret, teamSubscription)
	progress("the emulator's CA: %s (curl --cacert %s %s/_admin/resources)", s.arm.CAFile, s.arm.CAFile, s.arm.URL)
	progress("stop with Ctrl-C (SIGINT) or SIGTERM; logs stay in %s", s.dir)
}
