package render

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The Helm chart (charts/armature) is rendered from what renders config/:
// config/default is built with kustomize (in memory, over the files Render
// returns), and each object becomes a template whose values default to
// what config/default installs. See ChartFiles.
const (
	// ChartDir is the chart's folder, relative to the repository root.
	ChartDir = "charts/armature"
	// CRDChart is the subchart of the chart that carries the CRD files:
	// Helm stores a release's chart with it (in a Secret of at most
	// 1 MiB) but not its subcharts, so the CRDs count once, in the
	// rendered manifest, and only those selected (docs/helm.md).
	CRDChart = "armature-crds"
)

// Chart renders the generated files of the Helm chart, relative to
// ChartDir, from o (every kind: o.Kinds must be empty; the chart chooses
// kinds with its values) and config, the files Render returned for o,
// built over the hand-written files of configDir. The chart's hand-written
// files (Chart.yaml, templates/_helpers.tpl, the subchart's Chart.yaml)
// are not rendered.
//
// # What is rendered
//
//	values.yaml                          the values, defaults from config/default
//	templates/_catalog.tpl               every CRD (name, group, kind, plural, file)
//	templates/crd/crds.yaml              the selected CRDs, from the subchart
//	templates/<path under config/>       each other object of config/default's build
//	                                     (but its Namespace: Helm's release namespace)
//	charts/armature-crds/files/<group>/<plural>.yaml  the CRDs
//
// An object of config/default's build that its base (config/default without
// ../webhook and the components) lacks is rendered only with
// webhook.enabled, as are the base Deployment's lists' items it lacks (the
// webhook's flags and port). Values gate a few objects (objectGates) and
// flags; ConfigMap and Deployment take values (env, image, replicas,
// resources, credentials). The ClusterRole, the certificate management's
// ClusterRole and the webhook configurations keep only the selected kinds
// (templates/_helpers.tpl armature.selection).
func Chart(o Options, config Files, configDir string) (Files, error) {
	if o.Kinds != "" {
		return nil, errors.New("chart: the chart is rendered for every kind (its values choose kinds), not for -kinds")
	}
	crds, err := readCRDs(o)
	if err != nil {
		return nil, err
	}
	def, base, err := buildConfig(configDir, config)
	if err != nil {
		return nil, err
	}
	g := &chartGen{crds: crds, def: def, base: base, renamed: map[string]string{}}
	for _, b := range append(append([]built{}, def...), base...) {
		if b.generator != "" {
			g.renamed[b.obj.GetName()] = b.generator
		}
	}
	files := Files{}
	labels, conversion, converting, err := crdConversion(def, crds)
	if err != nil {
		return nil, err
	}
	if files["templates/_catalog.tpl"], err = catalog(crds, converting); err != nil {
		return nil, err
	}
	if files["templates/crd/crds.yaml"], err = crdTemplate(labels, conversion); err != nil {
		return nil, err
	}
	for _, c := range crds {
		if files["charts/"+CRDChart+"/"+crdFile(c)], err = crdChartFile(c); err != nil {
			return nil, err
		}
	}
	for id := range objectGates {
		if _, ok := find(def, id); !ok {
			return nil, fmt.Errorf("chart: %s: %w", id, errNoObject)
		}
	}
	docs := map[string][]string{}
	sources := map[string]string{}
	selection := map[string]bool{}
	var paths []string
	add := func(b built) error {
		text, sel, err := g.object(b)
		if err != nil {
			return err
		}
		p := templatePath(b)
		if docs[p] == nil {
			paths = append(paths, p)
			sources[p] = "config/" + b.origin
			if b.generator != "" {
				sources[p] = "the generator " + b.generator + " of config/" + b.origin
			}
		}
		selection[p] = selection[p] || sel
		docs[p] = append(docs[p], strings.Join(gated(g.gate(b), []string{"---", strings.TrimSuffix(text, "\n")}), "\n"))
		return nil
	}
	// The ConfigMap first: the Deployment's checksum names its template.
	var rest []built
	for _, b := range def {
		switch {
		case b.obj.GetKind() == "CustomResourceDefinition" || b.obj.GetKind() == "Namespace":
		case b.generator != "":
			g.configMap = templatePath(b)
			if err := add(b); err != nil {
				return nil, err
			}
		default:
			rest = append(rest, b)
		}
	}
	if g.configMap == "" {
		return nil, errors.New("chart: config/default has no generated ConfigMap (the operator's environment)")
	}
	for _, b := range rest {
		if err := add(b); err != nil {
			return nil, err
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		var b bytes.Buffer
		b.WriteString(Header)
		fmt.Fprintf(&b, "# Rendered by hack/manifests from %s, as config/default builds it.\n", sources[p])
		if selection[p] {
			b.WriteString(selectionLine + "\n")
		}
		b.WriteString(strings.Join(docs[p], "\n"))
		b.WriteString("\n")
		files[p] = b.Bytes()
	}
	if files["values.yaml"], err = values(g.defaults); err != nil {
		return nil, err
	}
	return files, nil
}
