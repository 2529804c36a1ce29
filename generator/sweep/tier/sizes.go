package tier

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/armature-dev/armature/generator/emit"
)

// Size counts files and their bytes.
type Size struct {
	Files int
	Bytes int64
}

func (s *Size) add(n int64) { s.Files++; s.Bytes += n }

// String is `123.4 MiB in 5678 files`.
func (s Size) String() string {
	return fmt.Sprintf("%.1f MiB in %d files", float64(s.Bytes)/(1<<20), s.Files)
}

// Sizes are what a full regeneration writes, measured on disk.
type Sizes struct {
	// Go is every .go file of the module (the folders' packages, their
	// registries and profiles, the tier's registry).
	Go Size
	// CRDs are the CRD YAML files the folders' crds/ hold: every kind of
	// the sweep, the curated tier's too.
	CRDs Size
	// Other is the rest of the folders' output: docs, samples, profiles.
	Other Size
	// Installed are the files below Options.CRDs: the generated tier's
	// CRDs and kustomizations.
	Installed Size
}

// Total is Go, CRDs and Other.
func (s Sizes) Total() Size {
	return Size{Files: s.Go.Files + s.CRDs.Files + s.Other.Files, Bytes: s.Go.Bytes + s.CRDs.Bytes + s.Other.Bytes}
}

// Measure measures the module's generated files (below providers/ and
// apis/) and the installed CRDs.
func Measure(module, crds string) (Sizes, error) {
	var s Sizes
	for _, dir := range []string{"providers", "apis"} {
		err := filepath.WalkDir(filepath.Join(module, dir), func(p string, d fs.DirEntry, err error) error {
			if os.IsNotExist(err) {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(p, ".go"):
				s.Go.add(info.Size())
			case filepath.Base(filepath.Dir(p)) == "crds":
				s.CRDs.add(info.Size())
			default:
				s.Other.add(info.Size())
			}
			return nil
		})
		if err != nil {
			return s, err
		}
	}
	err := filepath.WalkDir(crds, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			s.Installed.add(info.Size())
		}
		return err
	})
	return s, err
}

// Installed reads the CRDs below dir (the kustomizations left aside): the
// sha256 of each by "group/Kind".
func Installed(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "kustomization.yaml" || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		gk, err := emit.CRDGroupKind(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		sum := sha256.Sum256(raw)
		out[gk] = hex.EncodeToString(sum[:])
		return nil
	})
	return out, err
}

// CheckInstalled lists how the CRDs below dir differ from the manifest
// rows (a missing, changed or extra CRD), in Diff's form.
func CheckInstalled(dir string, rows []Row) ([]string, error) {
	have, err := Installed(dir)
	if err != nil {
		return nil, err
	}
	var got []Row
	byKey := map[string]Row{}
	for _, r := range rows {
		byKey[r.key()] = r
	}
	for gk, sum := range have {
		r, ok := byKey[gk]
		if !ok {
			g, k, _ := strings.Cut(gk, "/")
			r = Row{Group: g, Kind: k}
		}
		r.CRDSHA256 = sum
		got = append(got, r)
	}
	return Diff(rows, got), nil
}
