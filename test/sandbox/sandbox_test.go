//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/test/envtestutil"
)

// The sandbox's identities, as docs/sandbox.md gives them.
const (
	operatorSubscription = "00000000-0000-0000-0000-000000000000"
	teamSubscription     = "11111111-1111-1111-1111-111111111111"
)

// teamCredential is the credential Secret docs/sandbox.md tells users to
// create in a namespace other than default.
func teamCredential(ns string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "armature-credential", Namespace: ns},
		StringData: map[string]string{"tenantId": "sandbox", "clientId": "sandbox-team", "clientSecret": "sandbox-secret", "subscriptionId": teamSubscription},
	}
}

// TestSandbox starts the sandbox, creates a resource group in default
// (the operator's identity), one in a namespace without a credential
// (refused, nothing sent to ARM) and one in a namespace with the
// documented credential Secret (the team's subscription), lists them with
// the cache's kubectl, and stops it with SIGINT.
func TestSandbox(t *testing.T) {
	assets, err := envtestutil.Assets()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sb := start(t, build(t), dir, assets)
	if !filepath.IsAbs(sb.kubeconfig) || filepath.Dir(sb.kubeconfig) != dir {
		t.Errorf("KUBECONFIG=%s, want an absolute path in SANDBOX_DIR %s", sb.kubeconfig, dir)
	}
	k := kubeClient(t, sb.kubeconfig)

	def := resourceGroup("default", "sandbox-default")
	create(t, k, def)
	if id := waitReason(t, k, def, "True", "Succeeded"); id != "/subscriptions/"+operatorSubscription+"/resourceGroups/sandbox-default" {
		t.Errorf("default's group has id %q, want it in the operator's subscription", id)
	}

	for _, ns := range []string{"team-none", "team-a"} {
		create(t, k, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	none := resourceGroup("team-none", "sandbox-none")
	create(t, k, none)
	waitReason(t, k, none, "False", "CredentialNotFound")
	if sent := sb.armRequests(t, "resourceGroups/sandbox-none"); len(sent) > 0 {
		t.Errorf("ARM got requests for a namespace without a credential: %v", sent)
	}
	if sent := sb.armRequests(t, "resourceGroups/sandbox-default"); len(sent) == 0 {
		t.Error("the journal holds no request for default's group: the check above proves nothing")
	}

	create(t, k, teamCredential("team-a"))
	team := resourceGroup("team-a", "sandbox-team")
	create(t, k, team)
	if id := waitReason(t, k, team, "True", "Succeeded"); id != "/subscriptions/"+teamSubscription+"/resourceGroups/sandbox-team" {
		t.Errorf("team-a's group has id %q, want it in the team's subscription", id)
	}

	kubectlLists(t, assets, sb.kubeconfig, "sandbox-default", "sandbox-none", "sandbox-team")
	sb.interrupt(t)
}

// build builds hack/sandbox: `go run` would not pass SIGTERM on, and the
// test signals the sandbox itself.
func build(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "sandbox")
	cmd := exec.Command("go", "build", "-o", bin, "./hack/sandbox")
	cmd.Dir = envtestutil.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./hack/sandbox: %v\n%s", err, out)
	}
	return bin
}

// running is a started sandbox.
type running struct {
	dir, kubeconfig, arm string
	cmd                  *exec.Cmd
	stdout               []string // every line it printed there
	exited               chan struct{}
	err                  error // of Wait, once exited is closed
	stderr               *syncBuffer
}

// start runs the sandbox with SANDBOX_DIR=dir and waits for its two lines;
// a cleanup stops it if the test ends first.
func start(t *testing.T, bin, dir, assets string) *running {
	sb := &running{dir: dir, exited: make(chan struct{}), stderr: &syncBuffer{}}
	sb.cmd = exec.Command(bin)
	sb.cmd.Env = append(os.Environ(), "SANDBOX_DIR="+dir, "KUBEBUILDER_ASSETS="+assets)
	sb.cmd.Stderr = sb.stderr
	out, err := sb.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := sb.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		for s := bufio.NewScanner(out); s.Scan(); {
			lines <- s.Text()
		}
	}()
	t.Cleanup(func() { sb.kill(t) })
	timeout := time.After(120 * time.Second)
	for sb.kubeconfig == "" || sb.arm == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the sandbox ended before its two lines; stderr:\n%s", sb.stderr)
			}
			sb.stdout = append(sb.stdout, l)
			k, v, _ := strings.Cut(l, "=")
			switch k {
			case "KUBECONFIG":
				sb.kubeconfig = v
			case "ARM":
				sb.arm = v
			default:
				t.Errorf("unexpected line on stdout: %q", l)
			}
		case <-timeout:
			t.Fatalf("no KUBECONFIG= and ARM= lines within 120s; stderr:\n%s", sb.stderr)
		}
	}
	t.Logf("sandbox ready in %s", time.Since(began).Round(100*time.Millisecond))
	go func() {
		for l := range lines {
			sb.stdout = append(sb.stdout, l)
		}
		sb.err = sb.cmd.Wait()
		close(sb.exited)
	}()
	return sb
}

// interrupt sends SIGINT and checks that the sandbox ends with status 0,
// printed nothing more on stdout, and leaves no kube-apiserver or etcd
// running, nor its emulator serving.
func (sb *running) interrupt(t *testing.T) {
	procs := children(sb.dir)
	if len(procs) < 2 {
		t.Fatalf("found %d kube-apiserver/etcd processes of the sandbox (%v), want 2: the check after the stop would prove nothing", len(procs), procs)
	}
	began := time.Now()
	if err := sb.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sb.exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the sandbox did not end within 60s of SIGINT; stderr:\n%s", sb.stderr)
	}
	t.Logf("sandbox stopped in %s", time.Since(began).Round(100*time.Millisecond))
	if sb.err != nil {
		t.Errorf("the sandbox ended with %v after SIGINT; stderr:\n%s", sb.err, sb.stderr)
	}
	if len(sb.stdout) != 2 {
		t.Errorf("stdout had %d lines, want exactly KUBECONFIG= and ARM=: %q", len(sb.stdout), sb.stdout)
	}
	if left := children(sb.dir); len(left) > 0 {
		t.Errorf("processes left after SIGINT: %v", left)
	}
	if _, err := http.Get(sb.arm); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("the emulator at %s still answers after SIGINT (err %v)", sb.arm, err)
	}
	if _, err := os.Stat(sb.kubeconfig); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the kubeconfig is still there after the stop (err %v)", err)
	}
}

// kill ends what the test did not stop (it failed before): the sandbox
// (SIGINT, SIGKILL after 30s), then any kube-apiserver or etcd of its
// folder still running.
func (sb *running) kill(t *testing.T) {
	select {
	case <-sb.exited:
	default:
		_ = sb.cmd.Process.Signal(os.Interrupt)
		select {
		case <-sb.exited:
		case <-time.After(30 * time.Second):
			_ = sb.cmd.Process.Kill()
		}
		t.Logf("sandbox stderr:\n%s", sb.stderr)
	}
	for _, p := range children(sb.dir) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// armRequests are the paths of the emulator's journal that contain part.
func (sb *running) armRequests(t *testing.T, part string) []string {
	ca, err := os.ReadFile(filepath.Join(sb.dir, "arm-ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}, Timeout: 10 * time.Second}
	resp, err := c.Get(sb.arm + "/_admin/journal")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var journal []fakearm.Entry
	if err := json.NewDecoder(resp.Body).Decode(&journal); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range journal {
		if strings.Contains(e.Path, part) {
			out = append(out, e.Method+" "+e.Path)
		}
	}
	return out
}

// process is a kube-apiserver or etcd of a sandbox.
type process struct {
	pid  int
	name string
}

func (p process) String() string { return fmt.Sprintf("%s (pid %d)", p.name, p.pid) }

// children lists the kube-apiserver and etcd processes whose arguments
// name the sandbox's folder (their data and certificates are in it).
func children(dir string) []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []process
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		name := filepath.Base(string(bytes.SplitN(cmdline, []byte{0}, 2)[0]))
		if (name == "kube-apiserver" || name == "etcd") && bytes.Contains(cmdline, []byte(dir+string(filepath.Separator))) {
			out = append(out, process{pid: pid, name: name})
		}
	}
	return out
}

func kubeClient(t *testing.T, kubeconfig string) client.Client {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewScheme()
	_ = corev1.AddToScheme(s)
	k, err := envtestutil.Client(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func resourceGroup(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "resources.azure.armature.dev/v20240301", "kind": "ResourceGroup",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"location": "westeurope"},
	}}
}

func create(t *testing.T, k client.Client, o client.Object) {
	t.Helper()
	if err := k.Create(context.Background(), o); err != nil {
		t.Fatalf("create %T %s: %v", o, o.GetName(), err)
	}
}

// waitReason waits until o's Ready condition has status and reason, and
// returns its status.id.
func waitReason(t *testing.T, k client.Client, o *unstructured.Unstructured, status, reason string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		if err := k.Get(context.Background(), client.ObjectKeyFromObject(o), u); err != nil {
			t.Fatal(err)
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] != "Ready" {
				continue
			}
			last = fmt.Sprintf("%v %v: %v", m["status"], m["reason"], m["message"])
			if m["status"] == status && m["reason"] == reason {
				id, _, _ := unstructured.NestedString(u.Object, "status", "id")
				return id
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s/%s: Ready is not %s %s within 30s; last: %s", o.GetNamespace(), o.GetName(), status, reason, last)
	return ""
}

// kubectlLists runs the envtest cache's kubectl with the sandbox's
// kubeconfig and checks it lists the names. hack/setup-envtest.sh builds
// kubectl unless ARMATURE_K8S_KUBECTL=0; without it the check is skipped.
func kubectlLists(t *testing.T, assets, kubeconfig string, names ...string) {
	kubectl := filepath.Join(assets, "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Logf("no kubectl in %s: the kubectl check is skipped", assets)
		return
	}
	out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "resourcegroups", "--all-namespaces").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get resourcegroups: %v\n%s", err, out)
	}
	for _, n := range names {
		if !bytes.Contains(out, []byte(n)) {
			t.Errorf("kubectl get resourcegroups -A does not list %s:\n%s", n, out)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
