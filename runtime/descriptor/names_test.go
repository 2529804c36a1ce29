package descriptor

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// errText is an error's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckSegment(t *testing.T) {
	cases := map[string]struct {
		reason string
		s      string
		want   string
	}{
		"Plain":        {reason: "an ordinary name", s: "mediaprod01"},
		"Dotted":       {reason: "dots inside a name are ARM's business, not the id's", s: "my.zone.example"},
		"Spaces":       {reason: "some APIs allow spaces; the id escapes them", s: "Default Policy"},
		"Unicode":      {reason: "non-ASCII letters are one segment", s: "größe"},
		"Empty":        {reason: "an empty name is an empty segment", s: "", want: "must not be empty"},
		"Dot":          {reason: ". names the current segment", s: ".", want: `must not be ".": in a URL path it names the current or the parent segment, not a resource`},
		"DotDot":       {reason: ".. climbs to the parent: the issue's escape", s: "..", want: `must not be "..": in a URL path it names the current or the parent segment, not a resource`},
		"Traversal":    {reason: "../x holds a slash", s: "../x", want: `must not contain '/': it is no part of one segment of an ARM resource id`},
		"Slash":        {reason: "a slash adds a segment", s: "a/b", want: `must not contain '/': it is no part of one segment of an ARM resource id`},
		"Backslash":    {reason: "some servers read a backslash as a slash", s: `a\b`, want: `must not contain '\\': it is no part of one segment of an ARM resource id`},
		"Query":        {reason: "? ends the path", s: "a?b=c", want: `must not contain '?': it is no part of one segment of an ARM resource id`},
		"Fragment":     {reason: "# ends the path", s: "a#b", want: `must not contain '#': it is no part of one segment of an ARM resource id`},
		"Percent":      {reason: "% starts an escape: %2F would be a slash", s: "a%2Fb", want: `must not contain '%': it is no part of one segment of an ARM resource id`},
		"Newline":      {reason: "control characters are refused", s: "a\nb", want: "must not contain the control character U+000A"},
		"Delete":       {reason: "DEL is a control character too", s: "a\x7f", want: "must not contain the control character U+007F"},
		"InvalidUTF8":  {reason: "bytes that are no text", s: "a\xffb", want: "must be valid UTF-8"},
		"DotDotInside": {reason: "a name that only contains .. is one segment", s: "a..b"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errText(CheckSegment(tc.s))); diff != "" {
				t.Errorf("%s\nCheckSegment(%q) -want +got:\n%s", tc.reason, tc.s, diff)
			}
		})
	}
}

func TestCheckID(t *testing.T) {
	const group = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/team-a-rg"
	cases := map[string]struct {
		reason string
		id     string
		want   string
	}{
		"Subscription":    {reason: "a subscription id", id: "/subscriptions/s"},
		"ResourceGroup":   {reason: "a resource group id, in ARM's lower-case spelling", id: "/subscriptions/s/resourcegroups/g"},
		"Resource":        {reason: "a resource id", id: group + "/providers/Microsoft.Storage/storageAccounts/media"},
		"UpperCase":       {reason: "ARM ids are case-insensitive", id: "/SUBSCRIPTIONS/s"},
		"ManagementGroup": {reason: "tenant-level ids start with /providers/", id: "/providers/Microsoft.Management/managementGroups/m"},
		"Relative":        {reason: "an id is absolute", id: "subscriptions/s", want: "must start with /subscriptions/ or /providers/"},
		"Name":            {reason: "a bare name is no id", id: "team-a-rg", want: "must start with /subscriptions/ or /providers/"},
		"OtherRoot":       {reason: "only subscriptions and providers are roots", id: "/tenants/t", want: "must start with /subscriptions/ or /providers/"},
		"Empty":           {reason: "an empty id", id: "", want: "must start with /subscriptions/ or /providers/"},
		"DoubleSlash":     {reason: "an empty segment", id: "/subscriptions/s//resourceGroups/g", want: `segment 3 is empty: an ARM id has no "//" and no "/" at the end`},
		"TrailingSlash":   {reason: "a slash at the end is an empty segment", id: "/subscriptions/s/", want: `segment 3 is empty: an ARM id has no "//" and no "/" at the end`},
		"Traversal": {reason: "the issue: .. climbs out of the group", id: group + "/../other-rg/providers/Microsoft.Storage/storageAccounts/media",
			want: `segment 5 ("..") must not be "..": in a URL path it names the current or the parent segment, not a resource`},
		"Dot":      {reason: ". is no name", id: group + "/./x", want: `segment 5 (".") must not be ".": in a URL path it names the current or the parent segment, not a resource`},
		"Query":    {reason: "a query is no part of an id", id: group + "?api-version=1", want: `segment 4 ("team-a-rg?api-version=1") must not contain '?': it is no part of one segment of an ARM resource id`},
		"Fragment": {reason: "a fragment is no part of an id", id: group + "#x", want: `segment 4 ("team-a-rg#x") must not contain '#': it is no part of one segment of an ARM resource id`},
		"Escaped":  {reason: "an escaped slash", id: group + "%2F..", want: `segment 4 ("team-a-rg%2F..") must not contain '%': it is no part of one segment of an ARM resource id`},
		"Control":  {reason: "a control character", id: "/subscriptions/s\r\n", want: `segment 2 ("s\r\n") must not contain the control character U+000D`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errText(CheckID(tc.id))); diff != "" {
				t.Errorf("%s\nCheckID(%q) -want +got:\n%s", tc.reason, tc.id, diff)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	storage := &Descriptor{ARMType: "Microsoft.Storage/storageAccounts", NamePattern: "^[a-z0-9]+$", NameMinLength: 3, NameMaxLength: 24}
	cases := map[string]struct {
		reason string
		d      *Descriptor
		name   string
		want   string
	}{
		"NoRules": {reason: "without swagger rules any segment passes", d: &Descriptor{ARMType: "Test.RP/things"}, name: "Any_Name-1"},
		"NoRulesDotDot": {reason: "without swagger rules .. is still refused", d: &Descriptor{ARMType: "Test.RP/things"}, name: "..",
			want: `must not be "..": in a URL path it names the current or the parent segment, not a resource`},
		"Valid":    {reason: "a name that fits the rules", d: storage, name: "mediaprod01"},
		"Slash":    {reason: "CheckSegment comes first", d: storage, name: "../x", want: `must not contain '/': it is no part of one segment of an ARM resource id`},
		"Pattern":  {reason: "a hyphen is outside the pattern", d: storage, name: "media-prod", want: "must match the pattern ^[a-z0-9]+$ (Microsoft.Storage/storageAccounts names do, per its API)"},
		"TooShort": {reason: "minLength", d: storage, name: "ab", want: "must be at least 3 characters long (Microsoft.Storage/storageAccounts names are, per its API); it has 2"},
		"TooLong": {reason: "maxLength", d: storage, name: "abcdefghijklmnopqrstuvwxy",
			want: "must be at most 24 characters long (Microsoft.Storage/storageAccounts names are, per its API); it has 25"},
		"LengthInCharacters": {reason: "lengths count characters, not bytes: four two-byte letters are four",
			d: &Descriptor{ARMType: "Test.RP/things", NameMaxLength: 4}, name: "éééé"},
		"PatternUnanchored": {reason: "a swagger pattern matches anywhere unless anchored",
			d: &Descriptor{ARMType: "Test.RP/things", NamePattern: "[a-z]"}, name: "1a2"},
		"NotRE2": {reason: "a lookahead does not compile in RE2: the pattern is skipped, the lengths are not",
			d: &Descriptor{ARMType: "Test.RP/things", NamePattern: "^(?!-)[a-z-]+$", NameMaxLength: 3}, name: "-abcd",
			want: "must be at most 3 characters long (Test.RP/things names are, per its API); it has 5"},
		"NotRE2Passes": {reason: "the skipped pattern refuses nothing",
			d: &Descriptor{ARMType: "Test.RP/things", NamePattern: "^(?!-)[a-z-]+$"}, name: "-ab"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errText(tc.d.CheckName(tc.name))); diff != "" {
				t.Errorf("%s\nCheckName(%q) -want +got:\n%s", tc.reason, tc.name, diff)
			}
		})
	}
}
