package fakearm_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
)

// BenchmarkServe measures requests per second over loopback HTTPS with
// keep-alive connections, 8 clients in parallel:
//
//	go test -run '^$' -bench BenchmarkServe ./fakearm/
func BenchmarkServe(b *testing.B) {
	r, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: fakearm.Options{ReadBudget: 1 << 30, WriteBudget: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	client := r.HTTPClient()
	send := func(method, path string, body []byte) int {
		req, _ := http.NewRequest(method, r.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer bench")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	rgPath := rg + "?api-version=" + rgAPI
	if code := send(http.MethodPut, rgPath, []byte(`{"location":"westeurope"}`)); code != http.StatusCreated {
		b.Fatalf("resource group: %d", code)
	}
	containerBody := []byte(`{"properties":{"publicAccess":"None","metadata":{"team":"a"}}}`)
	acct := account + "?api-version=" + stAPI
	send(http.MethodPut, acct, []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`))

	run := func(b *testing.B, f func(i int64) int) {
		var n atomic.Int64
		b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 clients
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if code := f(n.Add(1)); code >= 300 {
					b.Errorf("status %d", code)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	}
	b.Run("GET", func(b *testing.B) {
		run(b, func(int64) int { return send(http.MethodGet, acct, nil) })
	})
	b.Run("PUT", func(b *testing.B) {
		run(b, func(i int64) int {
			return send(http.MethodPut, fmt.Sprintf("%s/blobServices/default/containers/c%d?api-version=%s", account, i%1000, stAPI), containerBody)
		})
	})
}
