package model

import "testing"

func TestNames(t *testing.T) {
	cases := map[string]struct {
		fn   func(string) string
		in   string
		want string
	}{
		"KindTopLevel":       {fn: func(s string) string { return KindName([]string{s}) }, in: "storageAccounts", want: "StorageAccount"},
		"KindRedis":          {fn: func(s string) string { return KindName([]string{s}) }, in: "redis", want: "Redis"},
		"KindSkus":           {fn: func(s string) string { return KindName([]string{"providerRegistrations", s}) }, in: "skus", want: "ProviderRegistrationsSku"},
		"KindPolicies":       {fn: func(s string) string { return KindName([]string{s}) }, in: "accessPolicies", want: "AccessPolicy"},
		"KindIdentities":     {fn: func(s string) string { return KindName([]string{s}) }, in: "userAssignedIdentities", want: "UserAssignedIdentity"},
		"KindUpperCase":      {fn: func(s string) string { return KindName([]string{"privateDnsZones", s}) }, in: "NS", want: "PrivateDnsZonesNS"},
		"GroupShort":         {fn: GroupShort, in: "Microsoft.ManagedIdentity", want: "managedidentity"},
		"GroupShortDots":     {fn: GroupShort, in: "Microsoft.DBforPostgreSQL", want: "dbforpostgresql"},
		"Version":            {fn: Version, in: "2023-05-01", want: "v20230501"},
		"VersionPreview":     {fn: Version, in: "2024-01-01-preview", want: "v20240101preview"},
		"PascalCamel":        {fn: Pascal, in: "accessTier", want: "AccessTier"},
		"PascalOData":        {fn: Pascal, in: "@odata.type", want: "OdataType"},
		"PascalDigit":        {fn: Pascal, in: "2fa", want: "X2fa"},
		"PascalUnderscore":   {fn: Pascal, in: "Standard_LRS", want: "Standard_LRS"},
		"PascalDash":         {fn: Pascal, in: "maxmemory-policy", want: "MaxmemoryPolicy"},
		"PascalEmpty":        {fn: Pascal, in: "$", want: "X"},
		"PascalSpaces":       {fn: Pascal, in: "Premium LRS", want: "PremiumLRS"},
		"PascalLeadingUnder": {fn: Pascal, in: "_etag", want: "Etag"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.fn(tc.in); got != tc.want {
				t.Errorf("%q → %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := KindName([]string{"storageAccounts", "blobServices", "containers"}); got != "StorageAccountsBlobServicesContainer" {
		t.Errorf("nested kind = %s", got)
	}
}

func TestCELField(t *testing.T) {
	cases := map[string]struct {
		want string
		ok   bool
	}{
		"location":         {"location", true},
		"namespace":        {"__namespace__", true},
		"in":               {"__in__", true},
		"maxmemory-policy": {"maxmemory__dash__policy", true},
		"@odata.type":      {"", false},
		"a.b":              {"a__dot__b", true},
		"a__b":             {"a__underscores__b", true},
		"x/y":              {"x__slash__y", true},
		"9lives":           {"", false},
		"":                 {"", false},
	}
	for in, tc := range cases {
		got, ok := CELField(in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CELField(%q) = %q, %v; want %q, %v", in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestCaseFrom: a lower-case ARM type segment takes the operationId's
// casing only where it is whole words there.
func TestCaseFrom(t *testing.T) {
	cases := []struct{ seg, text, want string }{
		{"alertrules", "AlertRules", "AlertRules"},
		{"alertrules", "MetricAlertRules", "AlertRules"},
		{"servers", "ServerSecurityAlertPolicies", "servers"},       // not ServerS…
		{"databases", "DatabaseSecurityAlertPolicies", "databases"}, // not DatabaseS…
		{"dnszones", "Zones", "dnszones"},
		{"zones", "DNSZones", "Zones"},
		{"servers", "Servers", "Servers"},
		{"storageAccounts", "StorageAccounts", "storageAccounts"}, // not lower case: as written
		{"alertrules", "alertrules", "alertrules"},
	}
	for _, c := range cases {
		if got := caseFrom(c.seg, c.text); got != c.want {
			t.Errorf("caseFrom(%q, %q) = %q, want %q", c.seg, c.text, got, c.want)
		}
	}
}

// TestKindNameFits: a kind whose parents make its name too long for a CRD
// (its list kind and plural are DNS labels of at most 63 characters) drops
// its outermost parents; shorter names keep them all.
func TestKindNameFits(t *testing.T) {
	cases := []struct {
		types []string
		want  string
	}{
		{[]string{"storageAccounts", "blobServices", "containers", "immutabilityPolicies"}, "StorageAccountsBlobServicesContainersImmutabilityPolicy"},
		{[]string{"vaults", "replicationFabrics", "replicationProtectionContainers", "replicationProtectedItems"}, "VRFReplicationProtectionContainersReplicationProtectedItem"},
		{[]string{"automationAccounts", "hybridRunbookWorkerGroups", "hybridRunbookWorkers"}, "AAHybridRunbookWorkerGroupsHybridRunbookWorker"},
		{[]string{"providerRegistrations", "resourcetypeRegistrations", "resourcetypeRegistrations", "resourcetypeRegistrations", "resourcetypeRegistrations", "skus"}, "PRRRRRRRResourcetypeRegistrationsSku"},
		{[]string{"providerRegistrations", "resourcetypeRegistrations", "resourcetypeRegistrations", "resourcetypeRegistrations", "skus"}, "PRRRResourcetypeRegistrationsResourcetypeRegistrationsSku"},
		{[]string{"privateLinkServicesForM365ComplianceCenter", "privateEndpointConnections"}, "PLSFM365CCPrivateEndpointConnection"},
		{[]string{"privateLinkServicesForMIPPolicySync", "privateEndpointConnections"}, "PLSFMIPPSPrivateEndpointConnection"},
		{[]string{"aVeryLongSingleSegmentNameThatNoParentCanShortenBecauseItHasNoParents"}, "AVeryLongSingleSegmentNameThatNoParentCanShortenBecauseItHasNoParent"},
	}
	for _, c := range cases {
		got := KindName(c.types)
		if got != c.want {
			t.Errorf("KindName(%v) = %s, want %s", c.types, got, c.want)
		}
		if len(c.types) > 1 && len(got) > MaxKindName {
			t.Errorf("KindName(%v) = %s: %d characters, more than %d", c.types, got, len(got), MaxKindName)
		}
	}
}

// TestReachableNotFreeForm: a create-only CEL rule may name a typed field,
// not a free-form one (the apiserver refuses "undefined field" there: six
// CRDs of the wide corpus, such as a policy assignment's
// properties.metadata).
func TestReachableNotFreeForm(t *testing.T) {
	props := &Struct{Name: "Props", Fields: []*Field{
		{JSONName: "metadata", Type: &TypeRef{Kind: JSON}},
		{JSONName: "displayName", Type: &TypeRef{Kind: String}},
		{JSONName: "jobs", Type: &TypeRef{Kind: Map, Elem: &TypeRef{Kind: JSON}}},
	}}
	spec := &Struct{Name: "Spec", Fields: []*Field{{JSONName: "properties", Type: &TypeRef{Kind: StructRef, Struct: props}}}}
	if reachable(spec, []string{"properties", "metadata"}) {
		t.Error("a rule reaches the free-form properties.metadata")
	}
	if reachable(spec, []string{"properties", "jobs"}) {
		t.Error("a rule reaches properties.jobs, a map of free-form values")
	}
	if !reachable(spec, []string{"properties", "displayName"}) {
		t.Error("a rule does not reach the typed properties.displayName")
	}
}
