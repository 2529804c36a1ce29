package arm

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// quota slows requests down before ARM throttles: it remembers the
// x-ms-ratelimit-remaining-subscription-{reads,writes,deletes} headers per
// subscription and, when fewer than Low remain, waits before sending the
// next request of that kind — the closer to zero, the longer, up to Max.
type quota struct {
	Low int
	Max time.Duration

	mu        sync.Mutex
	remaining map[string]int // subscription + "/" + kind
}

func newQuota(low int, max time.Duration) *quota {
	return &quota{Low: low, Max: max, remaining: map[string]int{}}
}

func quotaKind(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "reads"
	case http.MethodDelete:
		return "deletes"
	}
	return "writes"
}

func subscriptionOf(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) > 1 && strings.EqualFold(segs[0], "subscriptions") {
		return strings.ToLower(segs[1])
	}
	return ""
}

// delay is how long to wait before a request, from what is left.
func (q *quota) delay(key string) time.Duration {
	q.mu.Lock()
	left, ok := q.remaining[key]
	q.mu.Unlock()
	if !ok || left >= q.Low {
		return 0
	}
	if left < 0 {
		left = 0
	}
	return time.Duration(float64(q.Max) * float64(q.Low-left) / float64(q.Low))
}

func (q *quota) Do(req *policy.Request) (*http.Response, error) {
	kind := quotaKind(req.Raw().Method)
	key := subscriptionOf(req.Raw().URL.Path) + "/" + kind
	if d := q.delay(key); d > 0 {
		select {
		case <-time.After(d):
		case <-req.Raw().Context().Done():
			return nil, req.Raw().Context().Err()
		}
	}
	resp, err := req.Next()
	if resp != nil {
		if v := resp.Header.Get("x-ms-ratelimit-remaining-subscription-" + kind); v != "" {
			if n, perr := strconv.Atoi(v); perr == nil {
				q.mu.Lock()
				q.remaining[key] = n
				q.mu.Unlock()
			}
		}
	}
	return resp, err
}
