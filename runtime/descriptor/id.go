package descriptor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
)

// The ARM types of the scopes that are not under a provider.
const (
	SubscriptionType  = "Microsoft.Resources/subscriptions"
	ResourceGroupType = "Microsoft.Resources/resourceGroups"
)

// ErrNotARMID is wrapped by the errors of TypeOf.
var ErrNotARMID = errors.New("not an ARM resource id")

// ID returns the ARM id of the resource of this type named name whose
// owner has the ARM id scope: the resource group (or subscription, or any
// resource for an extension type) of a top-level type, the parent resource
// of a child type.
//
//	ResourceGroup:             <subscription>/resourceGroups/<name>
//	Microsoft.Storage/storageAccounts:
//	                           <scope>/providers/Microsoft.Storage/storageAccounts/<name>
//	…/storageAccounts/blobServices: <account id>/blobServices/<name>
func (d *Descriptor) ID(scope, name string) string {
	provider, types, _ := strings.Cut(d.ARMType, "/")
	scope = strings.TrimSuffix(scope, "/")
	switch {
	case strings.EqualFold(d.ARMType, ResourceGroupType):
		return scope + "/resourceGroups/" + name
	case !strings.Contains(types, "/"):
		return scope + "/providers/" + provider + "/" + types + "/" + name
	default:
		return scope + "/" + types[strings.LastIndexByte(types, '/')+1:] + "/" + name
	}
}

// ParentID returns the ARM id of what must exist before the resource with
// ARM id id can: its parent resource for a child type, its resource group
// for a top-level type of resource-group scope, the scope of an extension
// resource; "" when nothing needs to (a subscription or tenant resource).
func (d *Descriptor) ParentID(id string) string {
	r, err := arm.ParseResourceID(id)
	if err != nil || r.Parent == nil {
		return ""
	}
	switch {
	case strings.Count(d.ARMType, "/") > 1, d.Scope == ScopeExtension:
		return r.Parent.String()
	case d.Scope == ScopeResourceGroup && r.ResourceGroupName != "" && !strings.EqualFold(d.ARMType, ResourceGroupType):
		return "/subscriptions/" + r.SubscriptionID + "/resourceGroups/" + r.ResourceGroupName
	}
	return ""
}

// TypeOf returns the ARM resource type an ARM id names:
//
//	/subscriptions/s                                  → Microsoft.Resources/subscriptions
//	/subscriptions/s/resourceGroups/g                 → Microsoft.Resources/resourceGroups
//	…/providers/Microsoft.Storage/storageAccounts/a/blobServices/default
//	                                                  → Microsoft.Storage/storageAccounts/blobServices
//	/providers/Microsoft.Management/managementGroups/m → Microsoft.Management/managementGroups
//
// For an extension resource (a second `providers` segment) the type is the
// one after the last `providers`. Ids with empty segments, or a type
// without a name, are refused with an error wrapping ErrNotARMID.
func TypeOf(id string) (string, error) {
	if !strings.HasPrefix(id, "/") {
		return "", fmt.Errorf("%q: %w: it must start with /", id, ErrNotARMID)
	}
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for _, s := range segs {
		if s == "" {
			return "", fmt.Errorf("%q: %w: empty segment", id, ErrNotARMID)
		}
	}
	r, err := arm.ParseResourceID(id)
	if err != nil {
		return "", fmt.Errorf("%q: %w: %v", id, ErrNotARMID, err)
	}
	if r.Name == "" {
		return "", fmt.Errorf("%q: %w: %s has no name", id, ErrNotARMID, r.ResourceType)
	}
	typ := r.ResourceType.String()
	for _, scope := range []string{SubscriptionType, ResourceGroupType} {
		if len(typ) > len(scope) && strings.EqualFold(typ[:len(scope)+1], scope+"/") {
			// Only a provider's types nest: …/resourceGroups/g/foo/bar is
			// no resource.
			return "", fmt.Errorf("%q: %w: unexpected segments after the %s", id, ErrNotARMID, scope[strings.IndexByte(scope, '/')+1:])
		}
	}
	return typ, nil
}

// Template is a parsed ARM path template such as
// /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Storage/storageAccounts/{accountName}.
type Template struct {
	segs []string // without the leading ""
	// extension is true for /{scope}/providers/...: the scope is any
	// resource id (or subscription, group, tenant root).
	extension bool
	// types is the number of type segments of the template's ARM type
	// after the provider (storageAccounts/blobServices: 2).
	types int
}

// ParseTemplate parses a path template.
func ParseTemplate(path string) Template {
	t := Template{segs: strings.Split(strings.Trim(path, "/"), "/")}
	t.extension = len(t.segs) > 1 && isParam(t.segs[0]) && strings.EqualFold(t.segs[1], "providers")
	for i := len(t.segs) - 1; i > 0; i-- {
		if strings.EqualFold(t.segs[i], "providers") && i+1 < len(t.segs) {
			t.types = (len(t.segs) - i - 2) / 2
			break
		}
	}
	if t.types == 0 && len(t.segs) >= 2 {
		t.types = 1 // resourceGroups, subscriptions
	}
	return t
}

// Template returns the descriptor's parsed path template.
func (d *Descriptor) Template() Template { return ParseTemplate(d.PathTemplate) }

// Len is the number of segments of a resource id of the template (for an
// extension template, after the scope).
func (t Template) Len() int { return len(t.segs) }

// Extension reports a template whose scope is any resource: /{scope}/providers/....
func (t Template) Extension() bool { return t.extension }

// Match is a path matched to a Template.
type Match struct {
	// ID is the resource id (or, for a collection, the collection's path)
	// with the template's literal casing and the path's names.
	ID string
	// Scope is the scope of an extension resource (the resource, group or
	// subscription it extends), "" for other templates.
	Scope string
	// Names are the names of the resource and its parents of the same
	// provider, outermost first (storage account, then blob service). Empty
	// for a collection.
	Names []string
	// Collection is true when the path is the collection of the type (its
	// LIST path) rather than one resource.
	Collection bool
}

// canonical are literal segments whose ARM casing differs from some
// templates (resources.json writes resourcegroups).
var canonical = map[string]string{"resourcegroups": "resourceGroups", "subscriptions": "subscriptions", "providers": "providers"}

// Match matches a request path (without query) against the template: a
// resource id, or the path of the type's collection. Literal segments match
// without case; parameters match any non-empty segment.
func (t Template) Match(path string) (Match, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	tmpl := t.segs
	var prefix []string
	if t.extension {
		// The scope is everything before the last "providers" that starts
		// the template's provider part.
		at := -1
		for i := len(segs) - 1; i > 0; i-- {
			if strings.EqualFold(segs[i], "providers") && len(segs)-i >= len(tmpl)-2 && len(segs)-i <= len(tmpl)-1 {
				at = i
				break
			}
		}
		if at < 1 {
			return Match{}, false
		}
		prefix, segs, tmpl = segs[:at], segs[at:], tmpl[1:]
	}
	collection := false
	switch len(segs) {
	case len(tmpl):
	case len(tmpl) - 1:
		collection = true
		tmpl = tmpl[:len(tmpl)-1]
	default:
		return Match{}, false
	}
	out := make([]string, 0, len(prefix)+len(tmpl))
	out = append(out, prefix...)
	for i, s := range tmpl {
		switch {
		case segs[i] == "":
			return Match{}, false
		case isParam(s):
			out = append(out, segs[i])
		case strings.EqualFold(s, segs[i]):
			if c, ok := canonical[strings.ToLower(s)]; ok {
				s = c
			}
			out = append(out, s)
		default:
			return Match{}, false
		}
	}
	m := Match{ID: "/" + strings.Join(out, "/"), Collection: collection}
	if len(prefix) > 0 {
		m.Scope = "/" + strings.Join(prefix, "/")
	}
	if !collection {
		// The name after each type segment, from the end.
		for i := len(out) - 2*t.types + 1; i < len(out); i += 2 {
			m.Names = append(m.Names, out[i])
		}
	}
	return m, true
}

// Find returns the descriptor whose path template matches a resource id
// (not a collection), with the match; the first in descs order wins.
func Find(descs []*Descriptor, id string) (*Descriptor, Match, bool) {
	for _, d := range descs {
		if m, ok := d.Template().Match(id); ok && !m.Collection {
			return d, m, true
		}
	}
	return nil, Match{}, false
}

func isParam(s string) bool { return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") }
