package tier

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Row is one kind of the manifest, tier/kinds.tsv.
type Row struct {
	Group, Kind, Version, ARMType, APIVersion string
	// Folder is the provider folder of the corpus (storage/Microsoft.Storage).
	Folder string
	// CRDSHA256 is the sha256 of the CRD file as installed, in hex.
	CRDSHA256 string
}

// columns are the manifest's columns, in order.
var columns = []string{"group", "kind", "version", "armType", "apiVersion", "folder", "crdSHA256"}

func (r Row) fields() []string {
	return []string{r.Group, r.Kind, r.Version, r.ARMType, r.APIVersion, r.Folder, r.CRDSHA256}
}

func (r Row) key() string { return r.Group + "/" + r.Kind }

func sortRows(rows []Row) {
	sort.Slice(rows, func(i, j int) bool { return rows[i].key() < rows[j].key() })
}

// Manifest is the list of a tier's kinds.
type Manifest struct {
	// Corpus names the spec corpus the kinds come from.
	Corpus string
	Rows   []Row
}

// corpusLine starts the comment line that names the corpus.
const corpusLine = "# corpus: "

// WriteManifest writes the manifest: comment lines (# …) saying what it
// is and naming the corpus, the column names, then one tab-separated line
// per kind, sorted by group and kind.
func WriteManifest(w io.Writer, m Manifest) error {
	var b strings.Builder
	b.WriteString("# The generated tier (docs/tiers.md): every kind `make crds` generates from the\n")
	b.WriteString("# corpus that the curated tier (generated/apis) does not have, with the sha256 of\n")
	b.WriteString("# its CRD as installed under config/crd/generated/<group>/. The files are not\n")
	b.WriteString("# committed; `make crds` checks them against this list and `make crds UPDATE=1`\n")
	b.WriteString("# rewrites it.\n")
	b.WriteString(corpusLine + m.Corpus + "\n")
	b.WriteString(strings.Join(columns, "\t") + "\n")
	sorted := append([]Row(nil), m.Rows...)
	sortRows(sorted)
	for _, r := range sorted {
		b.WriteString(strings.Join(r.fields(), "\t") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadManifest reads a manifest WriteManifest wrote.
func ReadManifest(r io.Reader) (Manifest, error) {
	var m Manifest
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	n, header := 0, false
	for sc.Scan() {
		n++
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, corpusLine); ok {
			m.Corpus = c
		}
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if !header {
			if strings.Join(f, "\t") != strings.Join(columns, "\t") {
				return m, fmt.Errorf("line %d: the columns are %q, want %q", n, f, columns)
			}
			header = true
			continue
		}
		if len(f) != len(columns) {
			return m, fmt.Errorf("line %d: %d fields, want %d", n, len(f), len(columns))
		}
		m.Rows = append(m.Rows, Row{Group: f[0], Kind: f[1], Version: f[2], ARMType: f[3], APIVersion: f[4], Folder: f[5], CRDSHA256: f[6]})
	}
	return m, sc.Err()
}

// ReadManifestFile reads a manifest file; a missing file is an empty
// manifest.
func ReadManifestFile(name string) (Manifest, error) {
	raw, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return Manifest{}, nil
	}
	if err != nil {
		return Manifest{}, err
	}
	m, err := ReadManifest(bytes.NewReader(raw))
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// Diff lists how got differs from want, one line per kind, sorted:
//
//   - group/Kind: new (version, ARM type, folder)
//   - group/Kind: gone
//     ~ group/Kind: crdSHA256 abc… → def…, version v1 → v2
func Diff(want, got []Row) []string {
	w, g := map[string]Row{}, map[string]Row{}
	for _, r := range want {
		w[r.key()] = r
	}
	for _, r := range got {
		g[r.key()] = r
	}
	var out []string
	for k, r := range g {
		old, ok := w[k]
		switch {
		case !ok && r.Version == "":
			out = append(out, fmt.Sprintf("+ %s: not in the manifest", k))
			continue
		case !ok:
			out = append(out, fmt.Sprintf("+ %s: new (%s, %s, %s)", k, r.Version, r.ARMType, r.Folder))
			continue
		}
		var changes []string
		of, nf := old.fields(), r.fields()
		for i := range columns {
			if of[i] != nf[i] {
				changes = append(changes, fmt.Sprintf("%s %s → %s", columns[i], short(of[i]), short(nf[i])))
			}
		}
		if len(changes) > 0 {
			out = append(out, fmt.Sprintf("~ %s: %s", k, strings.Join(changes, ", ")))
		}
	}
	for k := range w {
		if _, ok := g[k]; !ok {
			out = append(out, fmt.Sprintf("- %s: gone", k))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][2:] < out[j][2:] })
	return out
}

// short shortens a sha256 for a message.
func short(s string) string {
	if len(s) == 64 {
		return s[:12] + "…"
	}
	return s
}
