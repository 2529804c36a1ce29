package heldout

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/model"
	genprofile "github.com/armature-dev/armature/generator/profile"
	"github.com/armature-dev/armature/recording"
)

// header is the first line of the profile files learned here (never
// written).
const header = "learned with a recording held out"

// Learner learns profiles from one analysis of the swagger and a learning
// set of recordings.
type Learner struct {
	model      *model.Model
	specRoot   string
	recordings []genprofile.Recording
	whole      *recording.ProfileSet // learned from every recording, once
}

// New analyses the swagger specs/armature.yaml (configFile) names and
// loads the recordings of its "recordings" folders. specRoot overrides
// the config's spec root ("" keeps it, or $ARMATURE_SPECS).
func New(configFile, specRoot string) (*Learner, error) {
	c, err := config.Load(configFile)
	if err != nil {
		return nil, err
	}
	root := config.ResolveSpecRoot(specRoot, c, c.Dir)
	if _, err := os.Stat(filepath.Join(root, "specification")); err != nil {
		return nil, fmt.Errorf("the Azure specs are not at %s (hack/sync-specs.sh): %w", root, err)
	}
	a, err := generator.Analyze(generator.Options{SpecRoot: root, Files: c.Files, Config: c, Domain: c.Domain})
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, r := range c.Recordings {
		dirs = append(dirs, filepath.Join(c.Dir, filepath.FromSlash(r)))
	}
	recs, err := genprofile.LoadRecordings(dirs)
	if err != nil {
		return nil, err
	}
	return &Learner{model: &model.Model{Packages: a.Packages()}, specRoot: root, recordings: recs}, nil
}

// Recordings are the names of the learning set, sorted.
func (l *Learner) Recordings() []string {
	var out []string
	for _, r := range l.recordings {
		out = append(out, r.Name)
	}
	return out
}

// Without learns the profiles from every recording of the learning set
// but the one named (a file's base name); it is a conformance.Learner.
func (l *Learner) Without(name string) (*recording.ProfileSet, error) {
	i := slices.IndexFunc(l.recordings, func(r genprofile.Recording) bool { return r.Name == name })
	if i < 0 && l.whole != nil {
		return l.whole, nil
	}
	recs := l.recordings
	if i >= 0 {
		recs = append(slices.Clip(recs[:i]), recs[i+1:]...)
	}
	set, err := genprofile.LearnSet(l.model, genprofile.Options{SpecRoot: l.specRoot, Recordings: recs, Header: header})
	if err != nil {
		return nil, err
	}
	if i < 0 {
		l.whole = set
	}
	return set, nil
}

var _ conformance.Learner = (*Learner)(nil).Without
