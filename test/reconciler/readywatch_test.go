package reconciler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// readyWatch counts the Ready objects of one resource in one namespace
// from a watch of its own: each event is decoded into the few fields it
// reads. (An informer decodes every event whole: in the scale bench that
// cost as much CPU as the emulator, CPU the apiserver then lacked against
// its floor.)
type readyWatch struct {
	mu    sync.Mutex
	ready map[string]bool
	err   error
}

// watchReady watches the objects at path (a namespaced collection, as
// /apis/<group>/<version>/namespaces/<ns>/<resource>) until ctx ends,
// resuming from the last resourceVersion when the server ends the watch.
func watchReady(ctx context.Context, cfg *rest.Config, path string) (*readyWatch, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(cfg.Host, "/") + path
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := getJSON(ctx, hc, base+"?limit=1", &list); err != nil {
		return nil, err
	}
	w := &readyWatch{ready: map[string]bool{}}
	go func() {
		rv := list.Metadata.ResourceVersion
		for ctx.Err() == nil {
			next, err := w.stream(ctx, hc, base, rv)
			if err != nil && ctx.Err() == nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				return
			}
			rv = next
		}
	}()
	return w, nil
}

// stream reads one watch from rv and returns the last resourceVersion seen.
func (w *readyWatch) stream(ctx context.Context, hc *http.Client, base, rv string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s?watch=1&resourceVersion=%s&timeoutSeconds=600", base, rv), nil)
	if err != nil {
		return rv, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return rv, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return rv, fmt.Errorf("watch %s: %s", base, resp.Status)
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					Name            string `json:"name"`
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
				Status struct {
					Conditions []struct {
						Type   string `json:"type"`
						Status string `json:"status"`
					} `json:"conditions"`
				} `json:"status"`
			} `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return rv, nil // the server ended the watch (or ctx did): resume
		}
		if ev.Type == "ERROR" {
			return rv, fmt.Errorf("watch %s: an ERROR event (resourceVersion %s too old?)", base, rv)
		}
		ready := false
		for _, c := range ev.Object.Status.Conditions {
			ready = ready || (c.Type == "Ready" && c.Status == "True")
		}
		w.mu.Lock()
		if ev.Type == "DELETED" {
			delete(w.ready, ev.Object.Metadata.Name)
		} else {
			w.ready[ev.Object.Metadata.Name] = ready
		}
		w.mu.Unlock()
		rv = ev.Object.Metadata.ResourceVersion
	}
}

// count returns how many objects are Ready, and the watch's failure.
func (w *readyWatch) count() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, r := range w.ready {
		if r {
			n++
		}
	}
	return n, w.err
}

func getJSON(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
