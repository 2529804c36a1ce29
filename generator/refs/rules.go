package refs

import (
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/load"
)

// stringRef judges a string slot: x-ms-arm-id-details, `format: arm-id`,
// then the name and the description.
func (w *walker) stringRef(s slot, e classify.Entry) (Reference, bool) {
	if s.decl.Format == "uuid" || s.schema.Format == "uuid" {
		return Reference{}, false // a GUID is never an ARM id
	}
	ref := Reference{Path: s.path, Shape: Value, Class: e.Class}
	if types, at, ok := details(s); ok {
		ref.Rule, ref.Evidence = RuleDetails, at
		ref.Note = "x-ms-arm-id-details"
		if len(types) > 0 {
			ref.Targets, ref.TargetsFrom = types, TargetsFromDetails
		} else {
			ref.Note += " without allowedResources"
		}
		return ref, true
	}
	if s.decl.Format == "arm-id" || s.schema.Format == "arm-id" {
		ref.Rule = RuleFormat
		ref.Evidence = evidence(s.decl, s.schema, func(x load.Schema) bool { return x.Format == "arm-id" })
		ref.Note = "format: arm-id"
		withDescriptionTargets(&ref, s.desc)
		return ref, true
	}
	if !idName(s.name, s.items) || ownID(s, w) {
		return Reference{}, false
	}
	phrase := saysResourceID(s.desc, guidName(s.name))
	if phrase == "" {
		return Reference{}, false
	}
	ref.Rule = RuleName
	ref.Evidence = evidence(s.decl, s.schema, func(x load.Schema) bool { return x.Description != "" })
	ref.Note = "named " + s.name + ", described as " + quote(phrase)
	withDescriptionTargets(&ref, s.desc)
	return ref, true
}

// ownID reports an `id` that names its own object, not another: the
// body's id, or the id of an object that has a name of its own in the spec
// (an application gateway's backendAddressPools[*].id beside its name).
func ownID(s slot, w *walker) bool {
	if s.name != "id" || s.items {
		return false
	}
	holder := s.path.Parent()
	if len(holder) == 0 {
		return true
	}
	for _, e := range w.children[holder.String()] {
		if e.Path.Last() == "name" {
			return true
		}
	}
	return false
}

// details reads x-ms-arm-id-details of the declaration or its target: the
// allowedResources types, sorted, and where it was read.
func details(s slot) ([]string, string, bool) {
	for _, x := range []load.Schema{s.decl, s.schema} {
		if x.Schema == nil {
			continue
		}
		v, ok := load.Ext(x.Extensions, "x-ms-arm-id-details")
		if !ok {
			continue
		}
		var types []string
		if m, _ := v.(map[string]any); m != nil {
			list, _ := m["allowedResources"].([]any)
			for _, a := range list {
				if am, _ := a.(map[string]any); am != nil {
					if t, _ := am["type"].(string); t != "" {
						types = append(types, t)
					}
				}
			}
		}
		return dedupSorted(types), x.Origin.String(), true
	}
	return nil, "", false
}

// idName reports a name that says "id": `id`, or camel case ending in Id
// or ID (subnetId, vnetSubnetID, serverFarmId); for the items of a list,
// Ids or IDs (subnetIds).
func idName(name string, items bool) bool {
	if items {
		for _, suf := range []string{"Ids", "IDs"} {
			if base, ok := strings.CutSuffix(name, suf); ok && camelEnd(base) {
				return true
			}
		}
		return false
	}
	if name == "id" {
		return true
	}
	for _, suf := range []string{"Id", "ID"} {
		if base, ok := strings.CutSuffix(name, suf); ok && camelEnd(base) {
			return true
		}
	}
	return false
}

// camelEnd reports a non-empty word ending in a lower-case letter or a
// digit, so that the suffix starts a new word (subnetId, not Guid).
func camelEnd(base string) bool {
	if base == "" {
		return false
	}
	r := rune(base[len(base)-1])
	return unicode.IsLower(r) || unicode.IsDigit(r)
}

// guidNames are the names ARM gives GUIDs, not resource ids: they need a
// description that says "resource id" in so many words.
var guidNames = map[string]bool{
	"tenantid": true, "principalid": true, "clientid": true, "objectid": true, "subscriptionid": true,
	"applicationid": true, "appid": true, "serverappid": true, "clientappid": true, "correlationid": true,
	"activityid": true, "requestid": true, "userid": true, "groupid": true, "securitygroupid": true,
}

// guidName reports a name of guidNames (a prefixed one too: aadTenantId).
func guidName(name string) bool {
	l := strings.ToLower(name)
	for g := range guidNames {
		if strings.HasSuffix(l, g) {
			return true
		}
	}
	return false
}

var (
	// resourceIDWords are the words that call a value a resource id.
	resourceIDWords = regexp.MustCompile(`(?i)\b(?:ARM|azure)?\s*resource\s*id(?:entifier)?s?\b|\bARM\s+ids?\b|\bresourceId\b`)
	// idTemplate is an id written out: '/subscriptions/{id}/…'.
	idTemplate = regexp.MustCompile(`(?i)/subscriptions/`)
)

// saysResourceID returns the words of a description that say the value is
// a resource id, or "". For a GUID's name only "resource id" in words
// counts, not an id template.
func saysResourceID(desc string, guid bool) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if m := resourceIDWords.FindString(desc); m != "" {
		return strings.TrimSpace(m)
	}
	if !guid && idTemplate.MatchString(desc) {
		return "/subscriptions/…"
	}
	return ""
}

// keyWords say that the keys of a map are resource ids: "The
// userAssignedIdentities dictionary keys will be ARM resource ids in the
// form: '/subscriptions/…'".
var keyWords = regexp.MustCompile(`(?i)\bkeys?\b.{0,60}?\b(?:ARM\s+)?resource\s+id(?:entifier)?s?\b`)

// userAssignedType is the ARM type of user-assigned managed identities.
const userAssignedType = "Microsoft.ManagedIdentity/userAssignedIdentities"

// mapRef judges a map: its keys are ARM ids when its description says so,
// when it is a resource's identity.userAssignedIdentities (whatever a
// provider's own copy of the type says), or when it is common-types'
// UserAssignedIdentities.
func mapRef(s slot, e classify.Entry) (Reference, bool) {
	ref := Reference{Path: s.path, Shape: Key, Rule: RuleIDKeyedMap, Class: e.Class}
	for _, x := range []load.Schema{s.decl, s.schema} {
		if x.Schema == nil {
			continue
		}
		desc := strings.Join(strings.Fields(x.Description), " ")
		if m := keyWords.FindString(desc); m != "" {
			ref.Evidence, ref.Note = x.Origin.String(), "described as "+quote(m)
			withDescriptionTargets(&ref, desc)
			if len(ref.Targets) == 0 && s.name == "userAssignedIdentities" {
				// ARM's managed identity contract: user-assigned
				// identities are this type, whatever the text says.
				ref.Targets, ref.TargetsFrom = []string{userAssignedType}, TargetsFromName
			}
			return ref, true
		}
	}
	if len(s.path) == 2 && s.path[0] == "identity" && s.path[1] == "userAssignedIdentities" {
		ref.Evidence = s.decl.Origin.String()
		ref.Note = "identity.userAssignedIdentities: ARM's managed identity contract keys it by the identities' resource ids (common-types managedidentity.json UserAssignedIdentities)"
		ref.Targets, ref.TargetsFrom = []string{userAssignedType}, TargetsFromName
		return ref, true
	}
	if s.schema.Name == "UserAssignedIdentities" && strings.Contains(s.schema.Origin.File, "common-types/") {
		ref.Evidence, ref.Note = s.schema.Origin.String(), "common-types UserAssignedIdentities: keyed by the identities' resource ids"
		ref.Targets, ref.TargetsFrom = []string{userAssignedType}, TargetsFromSchema
		return ref, true
	}
	return Reference{}, false
}

// objectRef judges an object: a SubResource (its only spec property is
// id), or the PUT body of another resource type, of which ARM reads the id
// alone. The reference is the id below it.
func (w *walker) objectRef(s slot) (Reference, bool) {
	id := s.path.Child("id")
	ide, ok := w.t.Entry(id)
	if !ok || !inSpec(ide) || ide.Type != "string" {
		return Reference{}, false
	}
	ref := Reference{Path: id, Shape: Value, Rule: RuleSubResource, Class: ide.Class, Evidence: s.decl.Origin.String()}
	own := w.k.Resource.ARMType
	types := w.f.bodyTypes(s.schema, own)
	parts := w.f.partTypes(s.schema, own)
	kids := w.children[s.path.String()]
	switch {
	case len(kids) == 1:
		ref.Note = "an object whose only spec property is id"
		if s.schema.Name != "" {
			ref.Note += " (" + s.schema.Name + ")"
		}
	case len(types) > 0:
		ref.Note = s.schema.Name + " is the PUT body of " + strings.Join(types, ", ") + "; ARM reads its id alone here"
	case len(parts) > 0:
		ref.Note = s.schema.Name + " is a named part of another resource (" + strings.Join(parts, ", ") + "); ARM reads its id alone here"
		types = parts
	default:
		return Reference{}, false
	}
	if len(types) > 0 {
		ref.Targets, ref.TargetsFrom = types, TargetsFromSchema
	} else if c := w.f.ownPart(s.name, own); c != "" {
		ref.Targets, ref.TargetsFrom, ref.Self = []string{own + "/" + c}, TargetsFromName, true
		ref.Note += "; names a part of this resource (its " + c + ")"
	}
	if len(ref.Targets) == 0 {
		withDescriptionTargets(&ref, s.desc)
	}
	return ref, true
}

// templatePairs finds the ARM type of an id written out in a description:
// `/providers/<Namespace>/<type>/<name>/<type>/<name>…`, or a resource
// group's `/subscriptions/{}/resourceGroups/{}` with no provider.
var (
	providerTemplate = regexp.MustCompile(`(?i)/providers/([a-z][a-z0-9]*(?:\.[a-z0-9]+)+)((?:/[^/\s'"‘’“”,;()<>\\]+)+)`)
	groupTemplate    = regexp.MustCompile(`(?i)/subscriptions/[^/\s]+/resourceGroups/[^/\s'"]+['"]?(?:$|[\s.,;)])`)
)

// descriptionTargets returns the ARM types of the ids a description writes
// out, sorted.
func descriptionTargets(desc string) []string {
	desc = strings.Join(strings.Fields(desc), " ")
	desc = strings.ReplaceAll(desc, "/ ", "/") // ids broken over lines
	var out []string
	for _, m := range providerTemplate.FindAllStringSubmatch(desc, -1) {
		segs := strings.Split(strings.Trim(m[2], "/"), "/")
		var types []string
		for i := 0; i+1 < len(segs); i += 2 {
			t := strings.TrimRight(segs[i], ".")
			if !plainWord(t) {
				break
			}
			types = append(types, t)
		}
		if len(types) > 0 {
			out = append(out, m[1]+"/"+strings.Join(types, "/"))
		}
	}
	if len(out) == 0 && groupTemplate.MatchString(desc) {
		out = append(out, "Microsoft.Resources/resourceGroups")
	}
	return dedupSorted(out)
}

func withDescriptionTargets(ref *Reference, desc string) {
	if t := descriptionTargets(desc); len(t) > 0 {
		ref.Targets, ref.TargetsFrom = t, TargetsFromDescription
	}
}

// plainWord reports a type segment: letters and digits only.
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func dedupSorted(v []string) []string {
	if len(v) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range v {
		if !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func quote(s string) string { return "\"" + s + "\"" }
