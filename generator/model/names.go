package model

import (
	"strings"
	"unicode"

	"github.com/gobuffalo/flect"

	"github.com/armature-dev/armature/generator/tree"
)

// notPlural are ARM type names that end in "s" but are singular nouns.
var notPlural = map[string]bool{"redis": true, "status": true, "dns": true, "analysis": true}

// plurals are ARM type names flect leaves as they are (it takes a final
// "us" for a Latin singular, as in status) with their singular.
var plurals = map[string]string{"skus": "sku"}

// Singular returns the singular of an ARM type segment.
func Singular(word string) string {
	if one, ok := plurals[strings.ToLower(word)]; ok {
		return word[:len(one)]
	}
	if notPlural[strings.ToLower(word)] || word == strings.ToUpper(word) {
		// An all upper-case segment is an acronym or an enum value (the
		// record type NS), never a plural.
		return word
	}
	return flect.Singularize(word)
}

// MaxKindName is the longest kind name: Kubernetes takes a kind's list
// kind (KindList) and its resource (the plural, lower case) as DNS labels
// of at most 63 characters, and a plural is up to 3 letters longer.
const MaxKindName = 58

// KindName names a kind from its ARM type segments: the parents as written,
// the last one singular — storageAccounts/blobServices/containers →
// StorageAccountsBlobServicesContainer. A name longer than MaxKindName
// writes its parents, outermost first, as their initials (capitals and
// digits) until it fits, so that its CRD can be installed and two types
// stay two kinds: Automation's automationAccounts/hybridRunbookWorkerGroups/
// hybridRunbookWorkers → AAHybridRunbookWorkerGroupsHybridRunbookWorker,
// privateLinkServicesForM365ComplianceCenter/privateEndpointConnections →
// PLSFM365CCPrivateEndpointConnection. If the initials are still too long,
// they are dropped, outermost first; the type's last segment is always kept.
func KindName(types []string) string {
	name := kindName(types)
	if len(name) <= MaxKindName {
		return name
	}
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = Pascal(t)
	}
	parts[len(parts)-1] = Pascal(Singular(types[len(types)-1]))
	for i := 0; i < len(parts)-1 && len(strings.Join(parts, "")) > MaxKindName; i++ {
		parts[i] = initials(parts[i])
	}
	for len(parts) > 1 && len(strings.Join(parts, "")) > MaxKindName {
		parts = parts[1:]
	}
	return strings.Join(parts, "")
}

// initials are the capitals and digits of a Pascal-case word:
// PrivateLinkServicesForM365ComplianceCenter → PLSFM365CC.
func initials(word string) string {
	var b strings.Builder
	for _, r := range word {
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return word[:1]
	}
	return b.String()
}

func kindName(types []string) string {
	var b strings.Builder
	for i, t := range types {
		if i == len(types)-1 {
			t = Singular(t)
		}
		b.WriteString(Pascal(t))
	}
	return b.String()
}

// KindNameOf names the kind of a resource: KindName of its type segments,
// where a segment written all in lower case (classic Microsoft.Insights
// `alertrules`) takes the casing of the PUT's operationId group when that
// spells the same word (`AlertRules_CreateOrUpdate` → AlertRule, not
// Alertrule). Nothing else is taken from the operationId: its groups are
// free text (`Zones_CreateOrUpdate` for dnszones leaves Dnszone as is).
func KindNameOf(r *tree.Resource) string {
	types := r.Types
	if put := r.Ops["PUT"]; put != nil {
		group, _, _ := strings.Cut(put.ID, "_")
		types = make([]string, len(r.Types))
		for i, t := range r.Types {
			types[i] = caseFrom(t, group)
		}
	}
	return KindName(types)
}

// caseFrom returns seg with the casing it has in text when seg is all lower
// case and text holds it ignoring case as whole words (it starts a word and
// the next word, or the end, follows it: `servers` is not taken from
// `ServerSecurityAlertPolicies`, which would give ServerS…), and text is
// not itself all lower case; else seg.
func caseFrom(seg, text string) string {
	if seg != strings.ToLower(seg) || text == strings.ToLower(text) {
		return seg
	}
	lower := strings.ToLower(text)
	for from := 0; ; {
		i := strings.Index(lower[from:], seg)
		if i < 0 {
			return seg
		}
		i += from
		end := i + len(seg)
		starts := i == 0 || !unicode.IsLower(rune(text[i]))
		ends := end == len(text) || !unicode.IsLower(rune(text[end]))
		if starts && ends {
			return text[i:end]
		}
		from = i + 1
	}
}

// GroupShort is the first label of the API group: Microsoft.Storage → storage.
func GroupShort(provider string) string {
	p := strings.ToLower(provider)
	p = strings.TrimPrefix(p, "microsoft.")
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, p)
}

// Version turns an api-version into a Kubernetes version:
// 2023-05-01 → v20230501, 2023-05-01-preview → v20230501preview.
func Version(apiVersion string) string {
	return "v" + strings.ToLower(strings.NewReplacer("-", "", ".", "", "_", "").Replace(apiVersion))
}

// Pascal turns a JSON or swagger name into an exported Go identifier:
// accessTier → AccessTier, @odata.type → OdataType, 2fa → X2fa.
func Pascal(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if r > unicode.MaxASCII {
				up = true
				continue
			}
			if up {
				b.WriteRune(unicode.ToUpper(r))
			} else {
				b.WriteRune(r)
			}
			up = false
		case r == '_':
			// Keep underscores inside names such as Standard_LRS.
			if b.Len() > 0 {
				b.WriteRune(r)
				up = false
			}
		default:
			up = true
		}
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if unicode.IsDigit(rune(out[0])) {
		out = "X" + out
	}
	return out
}

// celReserved are CEL keywords that Kubernetes escapes as __name__ in
// property access.
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true,
	"let": true, "loop": true, "package": true, "namespace": true, "return": true, "var": true,
	"void": true, "while": true,
}

// CELField returns the CEL name of a property as Kubernetes exposes it, and
// false when the name cannot be written in CEL.
func CELField(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if celReserved[name] {
		return "__" + name + "__", true
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', i > 0 && c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// isIdent reports a plain identifier, usable in a CRD fieldPath as `.name`.
func isIdent(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
