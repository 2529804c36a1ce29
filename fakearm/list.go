package fakearm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// DefaultPageSize is how many items a LIST page holds when
// Options.PageSize is 0.
const DefaultPageSize = 1000

// skipToken is the query parameter of a nextLink. ARM's value is opaque;
// here it is the last key of the page before, so a page never repeats or
// skips an item when resources come and go between pages.
const skipToken = "$skiptoken"

// list answers the LIST of a resource type in a scope (a collection path),
// one page at a time.
func (s *Server) list(w http.ResponseWriter, r *http.Request, m match, d *descriptor.Descriptor) {
	prefix := lower(m.id) + "/"
	s.mu.RLock()
	defer s.mu.RUnlock()
	var keys []string
	for k, res := range s.resources {
		if strings.HasPrefix(k, prefix) && !strings.Contains(k[len(prefix):], "/") && strings.EqualFold(res.ARMType, d.ARMType) {
			keys = append(keys, k)
		}
	}
	s.page(w, r, keys, func(k string) []byte { return s.resources[k].rendered })
}

// inventory answers GET /subscriptions/{s}/resourceGroups/{g}/resources,
// ARM's list of the top-level resources in a group whatever their type
// (id, name, type, location, kind, sku, tags), one page at a time. True
// means the path was the inventory's and an answer was written.
func (s *Server) inventory(w http.ResponseWriter, r *http.Request, segs []string) bool {
	if r.Method != http.MethodGet || len(segs) != 5 || !strings.EqualFold(segs[0], "subscriptions") ||
		!strings.EqualFold(segs[2], "resourceGroups") || !strings.EqualFold(segs[4], "resources") {
		return false
	}
	if !s.spend(w, r, segs) {
		return true
	}
	group := lower("/" + strings.Join(segs[:4], "/"))
	prefix := group + "/providers/"
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.resources[group] == nil {
		armError(w, http.StatusNotFound, "ResourceGroupNotFound", "Resource group '"+segs[3]+"' could not be found.", "")
		return true
	}
	var keys []string
	for k := range s.resources {
		// Top-level resources only: <namespace>/<type>/<name>.
		if strings.HasPrefix(k, prefix) && strings.Count(k[len(prefix):], "/") == 2 {
			keys = append(keys, k)
		}
	}
	s.page(w, r, keys, func(k string) []byte {
		res := s.resources[k]
		item := map[string]any{"id": res.ID, "name": res.ID[strings.LastIndexByte(res.ID, '/')+1:], "type": res.ARMType}
		for _, f := range []string{"location", "kind", "sku", "tags"} {
			if v, ok := res.Desired[f]; ok {
				item[f] = v
			}
		}
		b, _ := json.Marshal(item)
		return b
	})
	return true
}

// page writes one page of a list: the items of keys (sorted here) after
// the request's skip token, at most Options.PageSize of them, and a
// nextLink to the rest. The caller holds s.mu.
func (s *Server) page(w http.ResponseWriter, r *http.Request, keys []string, item func(key string) []byte) {
	sort.Strings(keys)
	from := 0
	if tok := r.URL.Query().Get(skipToken); tok != "" {
		last, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			armError(w, http.StatusBadRequest, "InvalidSkipToken", "The skip token '"+tok+"' is not valid.", skipToken)
			return
		}
		from = sort.Search(len(keys), func(i int) bool { return keys[i] > string(last) })
	}
	size := s.opts.PageSize
	end := min(from+size, len(keys))
	var b bytes.Buffer
	b.WriteString(`{"value":[`)
	for i, k := range keys[from:end] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(item(k))
	}
	b.WriteByte(']')
	if end < len(keys) {
		next, _ := json.Marshal(nextLink(r, keys[end-1]))
		b.WriteString(`,"nextLink":`)
		b.Write(next)
	}
	b.WriteByte('}')
	if rec, ok := w.(*recorder); ok {
		rec.page, rec.items = from/size+1, end-from
	}
	writeRaw(w, http.StatusOK, b.Bytes())
}

// nextLink is the absolute URL of the page after the one ending at last,
// as ARM gives it: the same path and api-version, plus the skip token.
func nextLink(r *http.Request, last string) string {
	q := url.Values{}
	q.Set("api-version", r.URL.Query().Get("api-version"))
	q.Set(skipToken, base64.RawURLEncoding.EncodeToString([]byte(last)))
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}).String()
}
