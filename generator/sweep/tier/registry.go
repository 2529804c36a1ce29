package tier

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/sweep"
)

const (
	pathDescriptor = "github.com/armature-dev/armature/runtime/descriptor"
	pathRuntime    = "k8s.io/apimachinery/pkg/runtime"
	pathSchema     = "k8s.io/apimachinery/pkg/runtime/schema"
	pathMetav1     = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ownerKinds maps ARM types, in lower case, to the group and kind that
// serve them: the curated tier's first, then the generated tier's.
func ownerKinds(t *sweep.Tiers) map[string][2]string {
	out := map[string][2]string{}
	for _, c := range t.Curated {
		if _, ok := out[strings.ToLower(c.ARMType)]; !ok {
			out[strings.ToLower(c.ARMType)] = [2]string{c.Group, c.Kind}
		}
	}
	for _, p := range t.Kinds {
		if _, ok := out[strings.ToLower(p.ARMType)]; !ok && p.Tier == sweep.TierGenerated {
			out[strings.ToLower(p.ARMType)] = [2]string{p.Group, p.Kind}
		}
	}
	return out
}

// registry renders tier/apis/registry.go: a table of the generated-tier
// kinds (group version, descriptor, object and list, defaults) and the
// three functions operator.WithKinds takes, which read it.
func registry(res *sweep.Result, kinds []sweep.Placement, opts Options) ([]byte, error) {
	type entry struct {
		pkg, kind string
		owner     [2]string // group and kind of an owner of another folder
	}
	owners := ownerKinds(res.Tiers)
	var entries []entry
	aliases := map[string]string{}
	used := map[string]bool{}
	for _, k := range kinds {
		rel, err := filepath.Rel(opts.Module, res.Records[k.Record].Out)
		if err != nil {
			return nil, err
		}
		pkg := path.Join(opts.ModulePath, filepath.ToSlash(rel), k.Package)
		e := entry{pkg: pkg, kind: k.Kind}
		if k.OwnerARMType != "" && k.OwnerKind == "" {
			if gk, ok := owners[strings.ToLower(k.OwnerARMType)]; ok {
				e.owner = gk
			}
		}
		entries = append(entries, e)
		aliases[pkg] = ""
	}
	var pkgs []string
	for p := range aliases {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	f := jen.NewFilePathName(path.Join(opts.ModulePath, path.Dir(registryFile)), "apis")
	f.HeaderComment(emit.Header)
	f.PackageComment(fmt.Sprintf(`Package apis lists the kinds of the generated tier (docs/tiers.md, tier/kinds.tsv):
their descriptors, scheme registration and defaults, in the form
operator.WithKinds takes. Written by armature tier (make crds) from %s.`, opts.Corpus))
	f.ImportAlias(pathDescriptor, "descriptor")
	f.ImportAlias(pathRuntime, "runtime")
	f.ImportAlias(pathSchema, "schema")
	f.ImportAlias(pathMetav1, "metav1")
	for _, p := range pkgs {
		// apis/<short>/<version>: short+version, numbered when two folders
		// give one group the same version.
		alias := path.Base(path.Dir(p)) + path.Base(p)
		for n := 2; used[alias]; n++ {
			alias = fmt.Sprintf("%s%s_%d", path.Base(path.Dir(p)), path.Base(p), n)
		}
		used[alias] = true
		aliases[p] = alias
		f.ImportAlias(p, alias)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].pkg != entries[j].pkg {
			return entries[i].pkg < entries[j].pkg
		}
		return entries[i].kind < entries[j].kind
	})

	f.Comment("kind is one kind of the tier.")
	f.Type().Id("kind").Struct(
		jen.Id("gv").Qual(pathSchema, "GroupVersion"),
		jen.Id("desc").Op("*").Qual(pathDescriptor, "Descriptor"),
		jen.List(jen.Id("obj"), jen.Id("list")).Qual(pathRuntime, "Object"),
		jen.Id("defaults").Func().Params(jen.String()).Map(jen.String()).String(),
		jen.Comment("owner is the group and kind of the kind's owner when another provider"),
		jen.Comment("folder (or the curated tier) generates the owner's ARM type, such as"),
		jen.Comment("resources.azure.armature.dev/ResourceGroup; the descriptor, generated"),
		jen.Comment("from its own folder, leaves it empty."),
		jen.Id("owner").Qual(pathSchema, "GroupKind"),
	)
	f.Comment(fmt.Sprintf("kinds are the %d kinds of the tier.", len(entries)))
	f.Var().Id("kinds").Op("=").Index().Id("kind").ValuesFunc(func(g *jen.Group) {
		for _, e := range entries {
			owner := jen.Qual(pathSchema, "GroupKind").Values()
			if e.owner[1] != "" {
				owner = jen.Qual(pathSchema, "GroupKind").Values(jen.Dict{jen.Id("Group"): jen.Lit(e.owner[0]), jen.Id("Kind"): jen.Lit(e.owner[1])})
			}
			g.Line().Values(
				jen.Qual(e.pkg, "GroupVersion"),
				jen.Op("&").Qual(e.pkg, e.kind+"Descriptor"),
				jen.Op("&").Qual(e.pkg, e.kind).Values(),
				jen.Op("&").Qual(e.pkg, e.kind+"List").Values(),
				jen.Qual(e.pkg, "DefaultsFor"),
				owner,
			)
		}
		g.Line()
	})
	f.Comment("init links the kinds to their owners of other folders.")
	f.Func().Id("init").Params().Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("kinds")).Block(
			jen.If(jen.Id("k").Dot("owner").Dot("Kind").Op("!=").Lit("").Op("&&").Id("k").Dot("desc").Dot("OwnerKind").Op("==").Lit("")).Block(
				jen.List(jen.Id("k").Dot("desc").Dot("OwnerGroup"), jen.Id("k").Dot("desc").Dot("OwnerKind")).Op("=").List(jen.Id("k").Dot("owner").Dot("Group"), jen.Id("k").Dot("owner").Dot("Kind")),
			),
		),
	)
	f.Comment("Descriptors returns the descriptor of every kind of the tier.")
	f.Func().Id("Descriptors").Params().Index().Op("*").Qual(pathDescriptor, "Descriptor").Block(
		jen.Id("out").Op(":=").Make(jen.Index().Op("*").Qual(pathDescriptor, "Descriptor"), jen.Lit(0), jen.Len(jen.Id("kinds"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("kinds")).Block(
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("k").Dot("desc")),
		),
		jen.Return(jen.Id("out")),
	)
	f.Comment("AddToScheme registers every kind of the tier, and no other kind of its")
	f.Comment("packages: those the curated tier (generated/apis) has are registered there.")
	f.Func().Id("AddToScheme").Params(jen.Id("s").Op("*").Qual(pathRuntime, "Scheme")).Error().Block(
		jen.Id("seen").Op(":=").Map(jen.Qual(pathSchema, "GroupVersion")).Bool().Values(),
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("kinds")).Block(
			jen.Id("s").Dot("AddKnownTypes").Call(jen.Id("k").Dot("gv"), jen.Id("k").Dot("obj"), jen.Id("k").Dot("list")),
			jen.If(jen.Op("!").Id("seen").Index(jen.Id("k").Dot("gv"))).Block(
				jen.Id("seen").Index(jen.Id("k").Dot("gv")).Op("=").True(),
				jen.Qual(pathMetav1, "AddToGroupVersion").Call(jen.Id("s"), jen.Id("k").Dot("gv")),
			),
		),
		jen.Return(jen.Nil()),
	)
	f.Comment("Defaults returns the configured defaults of the kinds that have some: spec")
	f.Comment("property path → JSON value, in the form webhook.WithDefaults takes.")
	f.Func().Id("Defaults").Params().Map(jen.Qual(pathSchema, "GroupVersionKind")).Map(jen.String()).Any().Block(
		jen.Id("out").Op(":=").Map(jen.Qual(pathSchema, "GroupVersionKind")).Map(jen.String()).Any().Values(),
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("kinds")).Block(
			jen.Id("d").Op(":=").Id("k").Dot("defaults").Call(jen.Id("k").Dot("desc").Dot("Kind")),
			jen.If(jen.Len(jen.Id("d")).Op("==").Lit(0)).Block(jen.Continue()),
			jen.Id("m").Op(":=").Make(jen.Map(jen.String()).Any(), jen.Len(jen.Id("d"))),
			jen.For(jen.List(jen.Id("p"), jen.Id("v")).Op(":=").Range().Id("d")).Block(
				jen.Id("m").Index(jen.Id("p")).Op("=").Qual("encoding/json", "RawMessage").Call(jen.Id("v")),
			),
			jen.Id("out").Index(jen.Id("k").Dot("gv").Dot("WithKind").Call(jen.Id("k").Dot("desc").Dot("Kind"))).Op("=").Id("m"),
		),
		jen.Return(jen.Id("out")),
	)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
