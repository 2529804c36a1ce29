package tree

// SkipCategory says what kind of path a skipped one is. The list is closed:
// every skip Build records has one of the constants below, and a path that
// fits none of them is a gap of the generator, not a new category (see the
// package doc, # Skipped paths). The values are stable: `armature sweep`
// reports and docs/sweep.md use them.
type SkipCategory string

// The skip categories.
const (
	// SkipNotAResource is a path that names no resource type: not below
	// /providers/ (`/subscriptions/{id}/tagNames/{tag}`), or a facet of every
	// resource rather than a resource (tags at any scope).
	SkipNotAResource SkipCategory = "not-a-resource"
	// SkipGenericPath is a path for any resource: by its ARM id
	// (`/{resourceId}`), or with the provider namespace or a type segment as a
	// parameter.
	SkipGenericPath SkipCategory = "generic-path"
	// SkipDuplicate is a resource type also served at a preferred scope (one
	// kind is generated, for that scope), and the paths below that variant.
	SkipDuplicate SkipCategory = "duplicate-of"
	// SkipListOnly is a GET that lists a type that has no PUT.
	SkipListOnly SkipCategory = "list-only"
	// SkipNoPUT is an operation on a typed instance path (type/name pairs)
	// that has no PUT: a read-only resource type, or one that can only be
	// deleted.
	SkipNoPUT SkipCategory = "no-PUT"
	// SkipNoGET is a PUT of a typed instance without GET: nothing could
	// observe what it created.
	SkipNoGET SkipCategory = "no-GET"
	// SkipActionOnly is a POST outside any resource type: a provider-level
	// action such as checkNameAvailability.
	SkipActionOnly SkipCategory = "action-only"
	// SkipProviderLevel is another operation outside any resource type: a
	// provider- or location-level read that is not a list of a type.
	SkipProviderLevel SkipCategory = "provider-level"
	// SkipUnsupportedScope is a path whose scope prefix is not one of the
	// five scopes: typically a resource nested below a typed resource of
	// another provider (`…/sites/{name}/providers/Microsoft.Insights/…`).
	SkipUnsupportedScope SkipCategory = "unsupported:scope-prefix"
	// SkipUnsupportedSubPath is an operation below a resource's path that is
	// neither an action (POST), a status read (GET of one object at a
	// literal sub-path), a list, nor a typed instance: e.g. a PUT or DELETE
	// on `…/accounts/{name}/enable`, or a GET with a parameter in its
	// sub-path that returns one object.
	SkipUnsupportedSubPath SkipCategory = "unsupported:sub-path"
	// SkipUnsupportedBody is a typed instance whose PUT body is not a JSON
	// object: an Automation runbook draft's `…/draft/content` takes the
	// script as text. A spec (ARM-shaped JSON) cannot hold it yet.
	SkipUnsupportedBody SkipCategory = "unsupported:body"
	// SkipSecretRead is a status read (a GET of one object below a resource)
	// whose answer holds credentials: its sub-path names keys, connection
	// strings or passwords (Cosmos DB `readonlykeys`), or its response has a
	// member that is x-ms-secret, format password or named like a key,
	// password or connection string. Status never holds credentials.
	SkipSecretRead SkipCategory = "secret-read"
)

// SkipCategories returns the closed list, in the order above.
func SkipCategories() []SkipCategory {
	return []SkipCategory{
		SkipNotAResource, SkipGenericPath, SkipDuplicate, SkipListOnly, SkipNoPUT,
		SkipNoGET, SkipActionOnly, SkipProviderLevel, SkipUnsupportedScope, SkipUnsupportedSubPath,
		SkipUnsupportedBody, SkipSecretRead,
	}
}

// Describe says in a line what the category holds ("" for an unknown one).
func (c SkipCategory) Describe() string {
	return map[SkipCategory]string{
		SkipNotAResource:       "not below /providers/, or tags (a facet of every resource)",
		SkipGenericPath:        "/{resourceId}, or a namespace or type segment that is a parameter",
		SkipDuplicate:          "a type also served at a preferred scope, and the paths below it",
		SkipListOnly:           "a GET listing a type that has no PUT",
		SkipNoPUT:              "an operation on a typed instance path without PUT (a read-only type)",
		SkipNoGET:              "a PUT of a typed instance without GET",
		SkipActionOnly:         "a POST outside any resource type (checkNameAvailability…)",
		SkipProviderLevel:      "another operation outside any resource type",
		SkipUnsupportedScope:   "a scope prefix other than the five (a provider nested in a typed resource)",
		SkipUnsupportedSubPath: "an operation below a resource that is no action, status read, list or instance",
		SkipUnsupportedBody:    "a resource whose PUT body is not a JSON object (text, a bare value)",
		SkipSecretRead:         "a status read whose answer holds credentials (keys, connection strings, passwords)",
	}[c]
}

// Known reports whether c is one of the constants.
func (c SkipCategory) Known() bool {
	for _, k := range SkipCategories() {
		if c == k {
			return true
		}
	}
	return false
}

// belowCategory is the category of an operation below a resource's path
// that attach could not place: a typed instance path without PUT is a type
// the generator cannot manage (no-PUT); anything else is a sub-path form the
// tree does not model.
func belowCategory(pd pending) SkipCategory {
	if len(pd.p.tokens)%2 == 0 && pd.ops["PUT"] == nil {
		return SkipNoPUT
	}
	return SkipUnsupportedSubPath
}
