package profile

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-openapi/spec"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/tree"
)

// nameParam reads the pattern and lengths of a resource's name parameter
// from the PUT operation of its swagger path; nil when there is none, or
// none is declared.
func (l *learner) nameParam(r *tree.Resource) *nameParam {
	if r.NameParam == "" || r.Ops[http.MethodPut] == nil {
		return nil
	}
	if l.loader == nil {
		l.loader = load.New(l.root)
	}
	doc, err := l.loader.Load(r.File)
	if err != nil || doc.Swagger.Paths == nil {
		return nil
	}
	item, ok := doc.Swagger.Paths.Paths[r.Path]
	if !ok {
		return nil
	}
	origin := load.Origin{File: r.File, Pointer: "/paths/" + strings.ReplaceAll(strings.ReplaceAll(r.Path, "~", "~0"), "/", "~1")}
	var all []spec.Parameter
	all = append(all, item.Parameters...)
	if item.Put != nil {
		all = append(all, item.Put.Parameters...)
	}
	for i := range all {
		p, err := l.loader.Param(origin, &all[i])
		if err != nil || p.In != "path" || p.Name != r.NameParam {
			continue
		}
		np := &nameParam{pattern: p.Pattern, origin: p.Origin.String()}
		if p.MinLength != nil {
			np.min = int(*p.MinLength)
		}
		if p.MaxLength != nil {
			np.max = int(*p.MaxLength)
		}
		if np.pattern == "" && np.min == 0 && np.max == 0 {
			return nil
		}
		if np.origin == "#" {
			np.origin = fmt.Sprintf("%s#%s", r.File, origin.Pointer)
		}
		return np
	}
	return nil
}
