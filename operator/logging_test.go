package operator

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestNoBodiesInLogs: at the highest zap level, client-go's request and
// answer bodies (a Secret's data) do not reach the operator's log.
func TestNoBodiesInLogs(t *testing.T) {
	const value = "c2VjcmV0LXZhbHVlLWluLWEtc2VjcmV0" // what the apiserver would answer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db","namespace":"ns"},"data":{"pw":"` + value + `"}}`))
	}))
	t.Cleanup(srv.Close)
	for name, capped := range map[string]bool{"capped": true, "uncapped": false} {
		var out bytes.Buffer
		l := zap.New(zap.WriteTo(&out), zap.Level(zapcore.Level(-10)))
		if capped {
			l = CapLevel(l, MaxLogLevel)
		}
		cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
		var s *corev1.Secret
		var err error
		s, err = cs.CoreV1().Secrets("ns").Get(klog.NewContext(context.Background(), l), "db", metav1.GetOptions{})
		if err != nil || string(s.Data["pw"]) != "secret-value-in-a-secret" {
			t.Fatalf("%s: %v %v", name, s, err)
		}
		leaked := strings.Contains(out.String(), value)
		if leaked != !capped {
			t.Errorf("%s: the body in the log: %v, want %v (%d bytes of log)", name, leaked, !capped, out.Len())
		}
	}
}
