package manifests

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// MetricsReaderRole is config/rbac's ClusterRole of who may scrape.
const metricsReaderRole = "armature-metrics-reader"

// serviceAccountToken creates a ServiceAccount in ns (when missing) and
// returns a token of it from the TokenRequest API.
func serviceAccountToken(t *testing.T, ns, name string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if err := k8s.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
	if err := k8s.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatalf("token of %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// checkMetricsNeedAToken scrapes the operator's metrics at addr (HTTPS,
// the default of the Deployment's flags): without a token the answer is
// 401 (a token the apiserver cannot read: 500), with the token of a
// ServiceAccount not bound to armature-metrics-reader 403, with one bound
// to it 200 and the metrics.
// The operator authenticates and authorizes with TokenReviews and
// SubjectAccessReviews under its own ServiceAccount: config/rbac's
// armature-metrics-auth.
func checkMetricsNeedAToken(t *testing.T, addr string) {
	t.Helper()
	const ns = "metrics-scrape"
	ensureNamespace(t, ns)
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-metrics-scraper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "scraper", Namespace: ns}},
	}
	if err := k8s.Create(context.Background(), crb); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), crb) })
	cases := map[string]struct {
		reason string
		token  string
		want   int
	}{
		"NoToken": {"No token: not authenticated.", "", http.StatusUnauthorized},
		// controller-runtime's filter answers 500 when the TokenReview
		// carries an error (the apiserver's "invalid bearer token"), 401
		// only when it has none: refused either way.
		"BadToken":    {"A token the apiserver cannot read: refused.", "not-a-token", http.StatusInternalServerError},
		"NotAReader":  {"A ServiceAccount without armature-metrics-reader: not authorized.", serviceAccountToken(t, ns, "not-a-scraper"), http.StatusForbidden},
		"MetricsRead": {"A ServiceAccount bound to armature-metrics-reader reads the metrics.", serviceAccountToken(t, ns, "scraper"), http.StatusOK},
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the operator's self-signed metrics certificate
	}}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			// RBAC bindings reach the authorizer's cache within a moment.
			var status int
			var body []byte
			for deadline := time.Now().Add(10 * time.Second); ; {
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				status = resp.StatusCode
				if status == tc.want || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if status != tc.want {
				t.Fatalf("%s\nGET /metrics: %d, want %d: %s", tc.reason, status, tc.want, body)
			}
			if tc.want == http.StatusOK && !strings.Contains(string(body), "controller_runtime_") {
				t.Errorf("%s\nthe answer has no controller-runtime metrics:\n%.300s", tc.reason, body)
			}
		})
	}
}
