package reconciler_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	armop "github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/reconciler"
	"github.com/armature-dev/armature/test/envtestutil"
)

// Credentials and subscriptions per namespace and per object, against the
// emulator's Azure AD: apps with secrets, each allowed its subscriptions.

const (
	tenant      = "00000000-0000-0000-0000-0000000000f0"
	subA        = "00000000-0000-0000-0000-0000000000a1"
	subB        = "00000000-0000-0000-0000-0000000000b2"
	subC        = "00000000-0000-0000-0000-0000000000c3"
	operatorTok = "operator-default-token"
)

var credApps = []fakearm.App{
	{Tenant: tenant, ClientID: "app-a", Secret: "secret-a", Subscriptions: []string{subA}},
	{Tenant: tenant, ClientID: "app-b", Secret: "secret-b", Subscriptions: []string{subB}},
	{Tenant: tenant, ClientID: "app-c", Secret: "secret-c", Subscriptions: []string{subC}},
}

// secretReads records the Secrets the credential lookup reads.
type secretReads struct {
	client.Reader
	mu   sync.Mutex
	keys []types.NamespacedName
}

func (s *secretReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	s.mu.Lock()
	s.keys = append(s.keys, key)
	s.mu.Unlock()
	return s.Reader.Get(ctx, key, obj, opts...)
}

func (s *secretReads) read() []types.NamespacedName {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]types.NamespacedName(nil), s.keys...)
}

// startCredentialOperator runs every reconciler over namespaces, with the
// operator's default credential (a token the emulator accepts for every
// subscription, subscription `subscription`) and credential Secrets built
// as operator.Run builds them.
func startCredentialOperator(t *testing.T, fa *fakearm.Running, namespaces []string, cfg reconciler.Config, defaultNamespaces ...string) *secretReads {
	t.Helper()
	nsCache := map[string]cache.Config{}
	for _, ns := range namespaces {
		nsCache[ns] = cache.Config{}
	}
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultNamespaces: nsCache},
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	def, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken(operatorTok), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	opCfg := armop.Config{ARMEndpoint: fa.URL}
	reads := &secretReads{Reader: mgr.GetClient()}
	creds := credentials.New(reads, credentials.Binding{Client: def, SubscriptionID: subscription}, opCfg.SecretClients(fa.HTTPClient()), credentials.WithDefaultNamespaces(defaultNamespaces...))
	cfg.SubscriptionID = subscription
	cfg.PollInterval = 50 * time.Millisecond
	cfg.SyncPeriod = time.Hour
	if err := reconciler.SetupAll(mgr, def, apis.Descriptors(), cfg, reconciler.WithCredentials(creds)); err != nil {
		t.Fatal(err)
	}
	envtestutil.RunManager(t, mgr)
	return reads
}

func startCredentialARM(t *testing.T) *fakearm.Running {
	t.Helper()
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1, Token: operatorTok, Apps: credApps}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	return fa
}

func credentialSecret(t *testing.T, ns, name, clientID, secret, sub string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{
		core.KeyTenantID: tenant, core.KeyClientID: clientID, core.KeyClientSecret: secret, core.KeySubscriptionID: sub,
	}}
	if err := k8s.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// tokenRequests counts the token requests of a client id.
func tokenRequests(fa *fakearm.Running, clientID string) int {
	n := 0
	for _, e := range fa.Journal() {
		if e.ARMType == "AzureAD" && e.Body == "client_id="+clientID {
			n++
		}
	}
	return n
}

func rgID(sub, name string) string { return "/subscriptions/" + sub + "/resourceGroups/" + name }

// TestCredentialsPerNamespace: two namespaces with their own credential
// Secret create their resources in their own subscriptions (the journal
// shows both), each with one client (one token) however many reconciles;
// a namespace without a Secret uses the default; a wrong secret is
// Ready=False CredentialRejected, retried slowly, without touching the
// others, and a fixed Secret is picked up (the client is rebuilt).
func TestCredentialsPerNamespace(t *testing.T) {
	fa := startCredentialARM(t)
	nsA, nsB, nsC, nsD, nsE := namespace(t), namespace(t), namespace(t), namespace(t), namespace(t)
	credentialSecret(t, nsA, core.CredentialSecret, "app-a", "secret-a", subA)
	credentialSecret(t, nsB, core.CredentialSecret, "app-b", "secret-b", subB)
	bad := credentialSecret(t, nsC, core.CredentialSecret, "app-c", "not-the-secret", subC)
	// nsD is opted in to the operator's own credential; nsE is not.
	startCredentialOperator(t, fa, []string{nsA, nsB, nsC, nsD, nsE}, reconciler.Config{WorldBackoff: reconciler.Backoff{Initial: time.Second, Max: 2 * time.Second}}, nsD)

	rgA, saA := resourceGroup(nsA, "team-a"), storageAccount(nsA, "teama01", "team-a")
	rgB, saB := resourceGroup(nsB, "team-b"), storageAccount(nsB, "teamb01", "team-b")
	rgC, rgD, rgE := resourceGroup(nsC, "team-c"), resourceGroup(nsD, "team-d"), resourceGroup(nsE, "team-e")
	create(t, rgA, saA, rgB, saB, rgC, rgD, rgE)
	waitReady(t, rgA, saA, rgB, saB, rgD)
	for _, c := range []struct{ sub, rg, sa string }{{subA, "team-a", "teama01"}, {subB, "team-b", "teamb01"}} {
		if n := calls(fa, http.MethodPut, rgID(c.sub, c.rg)); n != 1 {
			t.Errorf("PUT %s: %d, want 1", rgID(c.sub, c.rg), n)
		}
		if n := calls(fa, http.MethodPut, rgID(c.sub, c.rg)+"/providers/Microsoft.Storage/storageAccounts/"+c.sa); n != 1 {
			t.Errorf("the account of %s is created in %s: %d PUTs", c.rg, c.sub, n)
		}
		if id, _, _ := unstructured.NestedString(get(t, map[string]*unstructured.Unstructured{"team-a": saA, "team-b": saB}[c.rg]).Object, "status", "id"); !strings.HasPrefix(id, "/subscriptions/"+c.sub+"/") {
			t.Errorf("status.id %q is not in %s", id, c.sub)
		}
	}
	if n := calls(fa, http.MethodPut, rgID(subscription, "team-d")); n != 1 {
		t.Errorf("a namespace opted in, without a credential Secret, uses the default subscription: %d PUTs", n)
	}
	// Not opted in: nothing is sent with the operator's identity.
	waitReason(t, rgE, core.ReasonCredentialNotFound)
	for _, e := range fa.Journal() {
		if strings.Contains(e.Path, "/resourceGroups/team-e") {
			t.Errorf("a namespace not opted in reached ARM: %s %s", e.Method, e.Path)
		}
	}
	for _, app := range []string{"app-a", "app-b"} {
		if n := tokenRequests(fa, app); n != 1 {
			t.Errorf("%s asked for %d tokens, want 1 (one client per credential)", app, n)
		}
	}

	// The wrong secret: Ready=False with a clear reason, a slow retry.
	waitReason(t, rgC, "CredentialRejected")

	before := tokenRequests(fa, "app-c")
	time.Sleep(errorWindow)
	n := tokenRequests(fa, "app-c") - before
	t.Logf("wrong secret: %d token requests in %s (backoff 1s doubling to 2s)", n, errorWindow)
	if n < 1 || n > 5 {
		t.Errorf("%d token requests in %s, want 1 to 5", n, errorWindow)
	}
	_, _, msg := readyReason(get(t, rgC))
	if !strings.Contains(msg, "Secret "+nsC+"/"+core.CredentialSecret) || !strings.Contains(msg, "AADSTS7000215") || strings.Contains(msg, "not-the-secret") {
		t.Errorf("message %q: names the Secret and Azure AD's error, never the value", msg)
	}
	if s := condition(get(t, rgC), "ActionRequired"); s != "True" {
		t.Errorf("ActionRequired=%q", s)
	}
	if w := warnings(t, nsC, "team-c", "CredentialRejected"); w != 1 {
		t.Errorf("%d Events, want 1", w)
	}
	for _, e := range fa.Journal() {
		if strings.Contains(e.Path, "/"+subC+"/") {
			t.Errorf("a call reached ARM without a token: %s %s", e.Method, e.Path)
		}
	}

	// The Secret is fixed: the next retry uses a new client.
	cur := &corev1.Secret{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(bad), cur); err != nil {
		t.Fatal(err)
	}
	cur.Data[core.KeyClientSecret] = []byte("secret-c")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	waitReady(t, rgC)
	if n := calls(fa, http.MethodPut, rgID(subC, "team-c")); n != 1 {
		t.Errorf("after the fix: %d PUTs in %s", n, subC)
	}
}

// TestCredentialAnnotation: armature.dev/credential names a Secret of the
// object's own namespace (another subscription); a namespace/name is
// refused, terminal, and the other namespace's Secret is never read; a
// missing Secret waits for it.
func TestCredentialAnnotation(t *testing.T) {
	fa := startCredentialARM(t)
	ns, other := namespace(t), namespace(t)
	credentialSecret(t, ns, "payments", "app-b", "secret-b", subB)
	credentialSecret(t, other, core.CredentialSecret, "app-c", "secret-c", subC)
	reads := startCredentialOperator(t, fa, []string{ns}, reconciler.Config{WorldBackoff: reconciler.Backoff{Initial: time.Second, Max: 2 * time.Second}}, ns)

	annotated := func(name, credential string) *unstructured.Unstructured {
		rg := resourceGroup(ns, name)
		rg.SetAnnotations(map[string]string{core.AnnotationCredential: credential})
		return rg
	}
	plain, payments := resourceGroup(ns, "plain"), annotated("payments", "payments")
	refused := annotated("refused", other+"/"+core.CredentialSecret)
	missing := annotated("missing", "nowhere")
	create(t, plain, payments, refused, missing)
	waitReady(t, plain, payments)
	if n := calls(fa, http.MethodPut, rgID(subB, "payments")); n != 1 {
		t.Errorf("the annotated object is created in its credential's subscription: %d PUTs", n)
	}
	if n := calls(fa, http.MethodPut, rgID(subscription, "plain")); n != 1 {
		t.Errorf("its neighbour uses the default: %d PUTs", n)
	}

	waitReason(t, refused, core.ReasonCredentialRefused)
	_, _, msg := readyReason(get(t, refused))
	if !strings.Contains(msg, "namespace") || !strings.Contains(msg, "never read") {
		t.Errorf("message %q", msg)
	}
	waitReason(t, missing, core.ReasonCredentialNotFound)
	time.Sleep(3 * time.Second) // the slow retries of "missing" read again
	for _, k := range reads.read() {
		if k.Namespace != ns || strings.Contains(k.Name, "/") {
			t.Errorf("read Secret %s: only the object's namespace may be read", k)
		}
	}
	for _, e := range fa.Journal() {
		if strings.Contains(e.Path, "/resourceGroups/refused") || strings.Contains(e.Path, "/"+subC+"/") || e.Body == "client_id=app-c" {
			t.Errorf("the refused credential was used: %s %s %s", e.Method, e.Path, e.Body)
		}
	}
	n := 0
	for _, k := range reads.read() {
		if k.Name == "nowhere" {
			n++
		}
	}
	if n < 2 || n > 5 {
		t.Errorf("the missing Secret was looked for %d times in about 4s, want a slow retry (2 to 5)", n)
	}
}
