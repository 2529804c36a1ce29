package recording

import (
	"fmt"
	"net/http"
	"net/url"
	"os"

	"sigs.k8s.io/yaml"
)

// Cassette is one recorded conversation: the format version of the file and
// its interactions in recorded order.
type Cassette struct {
	// Version is the go-vcr format version of the file (1 or 2).
	Version int
	// Interactions are the request/response pairs, in the order recorded.
	Interactions []Interaction
}

// Interaction is one HTTP request and the response that answered it.
type Interaction struct {
	// Request is what the client sent.
	Request Request
	// Response is what the server answered.
	Response Response
}

// Request is a recorded HTTP request.
type Request struct {
	// Method is the HTTP verb, for example "PUT".
	Method string
	// URL is the absolute request URL, including the query string.
	URL string
	// Headers are the recorded request headers, names canonicalised.
	Headers http.Header
	// Body is the request body as recorded ("" when there was none).
	Body string
}

// Response is a recorded HTTP response.
type Response struct {
	// Code is the HTTP status code, for example 202.
	Code int
	// Status is the recorded status line text, for example "202 Accepted".
	Status string
	// Headers are the recorded response headers, names canonicalised.
	Headers http.Header
	// Body is the response body as recorded ("" when there was none).
	Body string
}

// The raw shapes below follow the YAML keys of both go-vcr formats; keys
// that only version 2 has (id, proto, content_length, ...) are ignored.
type rawCassette struct {
	Version      int              `json:"version"`
	Interactions []rawInteraction `json:"interactions"`
}

type rawInteraction struct {
	Request  rawRequest  `json:"request"`
	Response rawResponse `json:"response"`
}

type rawRequest struct {
	Body    string              `json:"body"`
	Headers map[string][]string `json:"headers"`
	URL     string              `json:"url"`
	Method  string              `json:"method"`
}

type rawResponse struct {
	Body    string              `json:"body"`
	Headers map[string][]string `json:"headers"`
	Status  string              `json:"status"`
	Code    int                 `json:"code"`
}

// LoadCassette reads and parses the cassette file at path.
func LoadCassette(path string) (*Cassette, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseCassette(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCassette parses cassette YAML of format version 1 or 2.
func ParseCassette(data []byte) (*Cassette, error) {
	var raw rawCassette
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parsing cassette: %w", err)
	}
	if raw.Version != 1 && raw.Version != 2 {
		return nil, fmt.Errorf("unsupported cassette version %d (want 1 or 2)", raw.Version)
	}
	c := &Cassette{Version: raw.Version, Interactions: make([]Interaction, 0, len(raw.Interactions))}
	for i, ri := range raw.Interactions {
		if ri.Response.Code == 0 {
			return nil, fmt.Errorf("interaction %d: response has no code", i)
		}
		c.Interactions = append(c.Interactions, Interaction{
			Request: Request{
				Method:  ri.Request.Method,
				URL:     ri.Request.URL,
				Headers: header(ri.Request.Headers),
				Body:    ri.Request.Body,
			},
			Response: Response{
				Code:    ri.Response.Code,
				Status:  ri.Response.Status,
				Headers: header(ri.Response.Headers),
				Body:    ri.Response.Body,
			},
		})
	}
	return c, nil
}

// header copies a recorded header map into an http.Header, canonicalising
// the names so that Get works whatever casing the file uses.
func header(m map[string][]string) http.Header {
	h := make(http.Header, len(m))
	for name, values := range m {
		for _, v := range values {
			h.Add(name, v)
		}
	}
	return h
}

// APIVersion returns the api-version query parameter of the request URL, or
// "" if there is none or the URL does not parse.
func (i Interaction) APIVersion() string {
	u, err := url.Parse(i.Request.URL)
	if err != nil {
		return ""
	}
	return u.Query().Get("api-version")
}

// Path returns the path of the request URL without scheme, host and query,
// for example "/subscriptions/0000.../resourceGroups/rg", or "" if the URL
// does not parse.
func (i Interaction) Path() string {
	u, err := url.Parse(i.Request.URL)
	if err != nil {
		return ""
	}
	return u.Path
}
