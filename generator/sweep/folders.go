package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Folder is one api-version folder of a provider:
// specification/<service>/resource-manager/<Namespace>[/<sub>]/stable/<version>.
type Folder struct {
	// Dir is the folder relative to the spec root, slash-separated.
	Dir string `json:"folder"`
	// Name is the provider folder without specification/ and
	// resource-manager/: storage/Microsoft.Storage, compute/Microsoft.Compute/DiskRP.
	Name string `json:"name"`
	// APIVersion is the last segment of Dir.
	APIVersion string `json:"apiVersion"`
	// Files are the swagger files directly in Dir (documents with a
	// top-level "swagger" key), root-relative and sorted. Files in
	// sub-folders are read when these reference them.
	Files []string `json:"files"`
}

// versionFolder matches an api-version folder name.
var versionFolder = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-[A-Za-z0-9.]+)?$`)

// Discover finds the stable api-version folders below root/specification:
// the newest of each provider folder, or all of them with all. Only
// resource-manager folders are swept (data-plane APIs have no ARM resource
// types). Folders are sorted by Dir.
func Discover(root string, all bool) ([]Folder, error) {
	spec := filepath.Join(root, "specification")
	if st, err := os.Stat(spec); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s holds no specification/ folder: give the root of an azure-rest-api-specs checkout (hack/corpus.sh prints one)", root)
	}
	byProvider := map[string][]string{} // provider folder → version folders
	err := filepath.WalkDir(spec, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		switch name := d.Name(); {
		case name == "examples" || name == "data-plane" || strings.HasPrefix(name, "."):
			return filepath.SkipDir
		case versionFolder.MatchString(name) && filepath.Base(filepath.Dir(p)) == "stable":
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if strings.Contains("/"+rel+"/", "/resource-manager/") {
				provider := path.Dir(path.Dir(rel))
				byProvider[provider] = append(byProvider[provider], rel)
			}
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Folder
	for provider, dirs := range byProvider {
		sort.Slice(dirs, func(i, j int) bool { return newer(path.Base(dirs[i]), path.Base(dirs[j])) })
		if !all {
			dirs = dirs[:1]
		}
		for _, dir := range dirs {
			f := Folder{Dir: dir, Name: shortName(provider), APIVersion: path.Base(dir)}
			if f.Files, err = swaggerFiles(root, dir); err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// newer orders api-versions newest first: by date, then a plain date before
// a suffixed one, then by name.
func newer(a, b string) bool {
	if a[:10] != b[:10] {
		return a[:10] > b[:10]
	}
	if (len(a) == 10) != (len(b) == 10) {
		return len(a) == 10
	}
	return a > b
}

// shortName drops specification/ and resource-manager/ from a provider folder.
func shortName(provider string) string {
	var keep []string
	for i, s := range strings.Split(provider, "/") {
		if (i == 0 && s == "specification") || s == "resource-manager" {
			continue
		}
		keep = append(keep, s)
	}
	return strings.Join(keep, "/")
}

// swaggerFiles lists the documents directly in dir that have a top-level
// "swagger" key.
func swaggerFiles(root, dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(path.Ext(e.Name()), ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), e.Name()))
		if err != nil {
			return nil, err
		}
		var head struct {
			Swagger *string `json:"swagger"`
		}
		var syn *json.SyntaxError
		if err := json.Unmarshal(raw, &head); err != nil && !errors.As(err, &syn) {
			continue // valid JSON of another shape: not a swagger document
		} else if err != nil || head.Swagger != nil {
			// A document that does not parse is kept: the load stage
			// reports where it breaks.
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}
