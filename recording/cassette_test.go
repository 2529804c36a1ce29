package recording

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Directories of real recordings, relative to this package.
const (
	recordingsDir       = "../test/recordings"
	sharedRecordingsDir = "../../shared/recordings"
)

func TestLoadTiny(t *testing.T) {
	type want struct {
		method, apiVersion, path string
		code                     int
		status                   string
		reqHeader, reqValue      string
		respHeader, respValue    string
		respBody                 string
	}
	tests := []struct {
		file    string
		version int
		want    []want
	}{
		{
			file:    "testdata/tiny_v1.yaml",
			version: 1,
			want: []want{
				{
					method: "PUT", apiVersion: "2020-06-01",
					path: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-tiny",
					code: 201, status: "201 Created",
					reqHeader: "content-type", reqValue: "application/json",
					// recorded in lower case; Get finds it because names are canonicalised
					respHeader: "Content-Type", respValue: "application/json; charset=utf-8",
					respBody: `{"id":"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-tiny","name":"rg-tiny"}`,
				},
				{
					method: "DELETE", apiVersion: "2020-06-01",
					path: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-tiny",
					code: 202, status: "202 Accepted",
					respHeader: "retry-after", respValue: "15",
				},
			},
		},
		{
			file:    "testdata/tiny_v2.yaml",
			version: 2,
			want: []want{
				{
					method: "GET", apiVersion: "2023-01-01",
					path: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-tiny/providers/Microsoft.Storage/storageAccounts/tiny",
					code: 404, status: "404 Not Found",
					reqHeader: "Accept", reqValue: "application/json",
					respHeader: "x-ms-failure-cause", respValue: "gateway",
					respBody: `{"error":{"code":"ResourceNotFound"}}`,
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			c, err := LoadCassette(tt.file)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Version != tt.version {
				t.Errorf("Version = %d, want %d", c.Version, tt.version)
			}
			if len(c.Interactions) != len(tt.want) {
				t.Fatalf("%d interactions, want %d", len(c.Interactions), len(tt.want))
			}
			for i, w := range tt.want {
				in := c.Interactions[i]
				if in.Request.Method != w.method {
					t.Errorf("#%d method = %q, want %q", i, in.Request.Method, w.method)
				}
				if got := in.APIVersion(); got != w.apiVersion {
					t.Errorf("#%d APIVersion() = %q, want %q", i, got, w.apiVersion)
				}
				if got := in.Path(); got != w.path {
					t.Errorf("#%d Path() = %q, want %q", i, got, w.path)
				}
				if in.Response.Code != w.code || in.Response.Status != w.status {
					t.Errorf("#%d response = %d %q, want %d %q", i, in.Response.Code, in.Response.Status, w.code, w.status)
				}
				if w.reqHeader != "" {
					if got := in.Request.Headers.Get(w.reqHeader); got != w.reqValue {
						t.Errorf("#%d request header %s = %q, want %q", i, w.reqHeader, got, w.reqValue)
					}
				}
				if w.respHeader != "" {
					if got := in.Response.Headers.Get(w.respHeader); got != w.respValue {
						t.Errorf("#%d response header %s = %q, want %q", i, w.respHeader, got, w.respValue)
					}
				}
				if in.Response.Body != w.respBody {
					t.Errorf("#%d response body = %q, want %q", i, in.Response.Body, w.respBody)
				}
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		file, wantErr string
	}{
		{"testdata/does_not_exist.yaml", "no such file"},
		{"testdata/bad_version.yaml", "unsupported cassette version 3"},
		{"testdata/bad_yaml.yaml", "parsing cassette"},
		{"testdata/no_code.yaml", "response has no code"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			c, err := LoadCassette(tt.file)
			if err == nil {
				t.Fatalf("Load succeeded (%d interactions), want error containing %q", len(c.Interactions), tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestInteractionHelpers(t *testing.T) {
	tests := []struct {
		url, apiVersion, path string
	}{
		{"https://management.azure.com/subscriptions/s/resourceGroups/rg?api-version=2020-06-01", "2020-06-01", "/subscriptions/s/resourceGroups/rg"},
		{"https://management.azure.com/subscriptions/s/providers/Microsoft.Storage/locations/westus2/asyncoperations/x?monitor=true&api-version=2021-04-01", "2021-04-01", "/subscriptions/s/providers/Microsoft.Storage/locations/westus2/asyncoperations/x"},
		{"https://management.azure.com/subscriptions/s/providers/Microsoft.Cache/locations/West%20US%202/operationresults/x?api-version=2020-12-01", "2020-12-01", "/subscriptions/s/providers/Microsoft.Cache/locations/West US 2/operationresults/x"},
		{"https://management.azure.com/subscriptions/s/operationresults/eyJqb2JJZCI6IiJ9", "", "/subscriptions/s/operationresults/eyJqb2JJZCI6IiJ9"},
		{"://not a url", "", ""},
	}
	for _, tt := range tests {
		in := Interaction{Request: Request{Method: http.MethodGet, URL: tt.url}}
		if got := in.APIVersion(); got != tt.apiVersion {
			t.Errorf("APIVersion(%q) = %q, want %q", tt.url, got, tt.apiVersion)
		}
		if got := in.Path(); got != tt.path {
			t.Errorf("Path(%q) = %q, want %q", tt.url, got, tt.path)
		}
	}
}

// Secret patterns looked for in the raw file. ASO's redaction replaces keys
// with placeholders such as "{KEY}"; the resource-group delete token in
// operationresults URLs is one base64 segment ("eyJqb2JJZCI6..."), not a JWT.
var rawSecretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)bearer\s+[a-z0-9]`),
	regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.`), // JWT: header.payload.
	regexp.MustCompile(`AccountKey=[^{]`),                              // "AccountKey={KEY}" is redacted
	regexp.MustCompile(`SharedAccessKey=[^{]`),                         // as "SharedAccessKey={KEY}"
	regexp.MustCompile(`InstrumentationKey=`),
	regexp.MustCompile(`[?&]sig=[A-Za-z0-9%]`), // SAS signature
}

// Secret-bearing JSON properties in bodies whose value is not a "{...}"
// placeholder (connection strings are checked by their keys, above: a
// redacted one is "Endpoint=…;SharedAccessKey={KEY}").
var bodySecretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`"(?i:primaryKey|secondaryKey|primaryMasterKey|secondaryMasterKey|primaryReadonlyMasterKey|secondaryReadonlyMasterKey|clientSecret|[a-z]*password)"\s*:\s*"[^"{]`),
	regexp.MustCompile(`"keyName"\s*:\s*"[^"]*"\s*,\s*"value"\s*:\s*"[^"{]`),
}

// secretFindings lists what looks like live key material in a cassette.
func secretFindings(raw []byte, c *Cassette) []string {
	var found []string
	for _, p := range rawSecretPatterns {
		if m := p.Find(raw); m != nil {
			found = append(found, fmt.Sprintf("file matches %s: %q", p, m))
		}
	}
	if c == nil {
		return found
	}
	for i, in := range c.Interactions {
		if v := in.Request.Headers.Get("Authorization"); v != "" {
			found = append(found, fmt.Sprintf("#%d request has an Authorization header", i))
		}
		for _, body := range []string{in.Request.Body, in.Response.Body} {
			for _, p := range bodySecretPatterns {
				if m := p.FindString(body); m != "" {
					found = append(found, fmt.Sprintf("#%d body matches %s: %q", i, p, m))
				}
			}
		}
	}
	return found
}

func TestSecretFindings(t *testing.T) {
	// Each case is a body (or raw text) that must, or must not, be reported.
	tests := []struct {
		name, raw, body, authz string
		want                   bool
	}{
		{name: "clean", body: `{"name":"x","properties":{"provisioningState":"Succeeded"}}`},
		{name: "redacted key placeholder", body: `{"accessKeys":{"primaryKey":"{KEY}","secondaryKey":"{KEY}"}}`},
		{name: "resource group delete token", raw: `Location: https://management.azure.com/subscriptions/0/operationresults/eyJqb2JJZCI6IlJFU09VUkNFR1JPVVBERUxFVElPTkpPQi1BU09URVNUOjJEUkc6MkRBQSJ9?api-version=2020-06-01`},
		{name: "live primary key", body: `{"primaryKey":"abcDEF0123456789abcDEF0123456789="}`, want: true},
		{name: "password", body: `{"administratorLoginPassword":"hunter2!"}`, want: true},
		{name: "listKeys value", body: `{"keys":[{"keyName":"key1","value":"abcDEF012345=","permissions":"FULL"}]}`, want: true},
		{name: "bearer token", raw: `Authorization: Bearer abc.def.ghi`, want: true},
		{name: "jwt", raw: `token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln`, want: true},
		{name: "storage connection string", raw: `DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9v`, want: true},
		{name: "service bus connection string", raw: `Endpoint=sb://a/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=Zm9v`, want: true},
		{name: "redacted service bus connection string", body: `{"primaryConnectionString":"Endpoint=sb://a/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={KEY}"}`, raw: `SharedAccessKey={KEY}`},
		{name: "live connection string in a body", body: `{"primaryConnectionString":"Endpoint=sb://a/;SharedAccessKeyName=r;SharedAccessKey=Zm9v"}`, raw: `SharedAccessKey=Zm9v`, want: true},
		{name: "app insights key", raw: `InstrumentationKey=382c26ef-0000-0000-0000-000000000000;IngestionEndpoint=x`, want: true},
		{name: "sas", raw: `https://a.blob.core.windows.net/c?sv=2020&sig=abc%2Fdef`, want: true},
		{name: "authorization header", authz: "Bearer x", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.authz != "" {
				h.Set("Authorization", tt.authz)
			}
			c := &Cassette{Interactions: []Interaction{{
				Request:  Request{Method: "GET", URL: "https://management.azure.com/x", Headers: h},
				Response: Response{Code: 200, Body: tt.body},
			}}}
			got := secretFindings([]byte(tt.raw), c)
			if (len(got) > 0) != tt.want {
				t.Errorf("findings = %q, want reported = %v", got, tt.want)
			}
		})
	}
}

// yamlFiles lists the *.yaml files of dir and of its unserved/ folder,
// sorted.
func yamlFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// unserved/ keeps recordings of types no swagger in reach defines
	// (SOURCES.md): checked here, not replayed.
	more, err := filepath.Glob(filepath.Join(dir, "unserved", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	sort.Strings(files)
	return files
}

// recordingDirs returns the recording directories to check; the shared one
// is optional because it lives outside this repository.
func recordingDirs(t *testing.T) []string {
	t.Helper()
	dirs := []string{recordingsDir}
	if _, err := os.Stat(sharedRecordingsDir); err == nil {
		dirs = append(dirs, sharedRecordingsDir)
	} else {
		t.Logf("skipping %s: %v (the shared recordings live outside this repository)", sharedRecordingsDir, err)
	}
	return dirs
}

func TestRecordings(t *testing.T) {
	for _, dir := range recordingDirs(t) {
		files := yamlFiles(t, dir)
		if len(files) == 0 {
			t.Errorf("%s: no *.yaml recordings", dir)
		}
		for _, file := range files {
			t.Run(filepath.Base(dir)+"/"+filepath.Base(file), func(t *testing.T) {
				raw, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				c, err := ParseCassette(raw)
				if err != nil {
					t.Fatal(err)
				}
				if len(c.Interactions) == 0 {
					t.Fatal("no interactions")
				}
				for i, in := range c.Interactions {
					if in.Request.Method == "" {
						t.Errorf("#%d: request without method", i)
					}
					u, err := url.Parse(in.Request.URL)
					if err != nil {
						t.Errorf("#%d: URL %q: %v", i, in.Request.URL, err)
						continue
					}
					if u.Scheme != "https" || u.Host != "management.azure.com" {
						t.Errorf("#%d: URL %q is not https://management.azure.com/...", i, in.Request.URL)
					}
				}
				for _, f := range secretFindings(raw, c) {
					t.Errorf("possible secret: %s", f)
				}
			})
		}
	}
}

// sourcesRow matches a row of the table in SOURCES.md:
// | `file.yaml` | `upstream/path` | `commit` | bytes | `git blob SHA-1` |
var sourcesRow = regexp.MustCompile("^\\|\\s*`([^`]+\\.yaml)`\\s*\\|\\s*`([^`]+)`\\s*\\|\\s*`([0-9a-f]{40})`\\s*\\|\\s*([0-9]+)\\s*\\|\\s*`([0-9a-f]{40})`\\s*\\|")

// gitBlobSHA1 is the object id git gives a file with this content.
func gitBlobSHA1(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// TestRecordingsMatchSources checks that every recording is listed in its
// directory's SOURCES.md and is byte for byte the copy described there.
func TestRecordingsMatchSources(t *testing.T) {
	for _, dir := range recordingDirs(t) {
		sources, err := os.ReadFile(filepath.Join(dir, "SOURCES.md"))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		type row struct {
			bytes int
			sha   string
		}
		listed := map[string]row{}
		for _, line := range strings.Split(string(sources), "\n") {
			m := sourcesRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[4])
			listed[m[1]] = row{bytes: n, sha: m[5]}
		}
		files := yamlFiles(t, dir)
		if len(listed) != len(files) {
			t.Errorf("%s: SOURCES.md lists %d files, directory has %d", dir, len(listed), len(files))
		}
		for _, file := range files {
			name := filepath.Base(file)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := listed[name]
			if !ok {
				t.Errorf("%s: %s is not in SOURCES.md", dir, name)
				continue
			}
			if len(data) != r.bytes {
				t.Errorf("%s: %d bytes, SOURCES.md says %d", name, len(data), r.bytes)
			}
			if got := gitBlobSHA1(data); got != r.sha {
				t.Errorf("%s: git blob SHA-1 %s, SOURCES.md says %s", name, got, r.sha)
			}
		}
	}
}
