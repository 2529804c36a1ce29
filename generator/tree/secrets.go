package tree

import (
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/load"
)

// Status reads that would copy credentials into status (issue 25: secrets
// live only in Secrets). A status read's whole answer is joined into the
// object's status, which every reader of the object sees; an answer that
// holds keys, connection strings or passwords is therefore not generated as
// a status read, and is skipped as SkipSecretRead with what gave it away.

// credentialSegments are sub-path segments (lower case) that name an answer
// made of credentials: Cosmos DB `readonlykeys`, `listKeys`, `keys`,
// `connectionStrings`, `…Credentials`, `…Passwords`.
var credentialSegments = []string{"keys", "connectionstring", "connectionstrings", "credential", "credentials", "password", "passwords", "secret", "secrets"}

// credentialRead returns why the answer of a GET below a resource holds
// credentials, or "" when nothing says it does: its sub-path (suffix) names
// keys, connection strings, credentials or passwords, or its response schema
// has a member that is x-ms-secret, format password, or a string named like
// a credential (credentialName).
func (b *builder) credentialRead(suffix string, op *Operation) string {
	for _, seg := range strings.Split(suffix, "/") {
		low := strings.ToLower(seg)
		for _, c := range credentialSegments {
			if strings.HasSuffix(low, c) {
				return "its path names credentials (" + seg + ")"
			}
		}
	}
	if op.Response == nil {
		return ""
	}
	w := &credentialWalker{l: b.l, stack: map[string]bool{}}
	w.schema(*op.Response, "", 0)
	if len(w.found) == 0 {
		return ""
	}
	sort.Strings(w.found)
	return "its answer holds credentials (" + strings.Join(w.found, ", ") + ")"
}

// credentialWalker collects the member paths of a response schema that hold
// credentials. stack cuts `$ref` cycles; depth bounds free recursion.
type credentialWalker struct {
	l     *load.Loader
	stack map[string]bool
	found []string
}

// maxCredentialDepth bounds the walk: credentials sit a few levels below the
// answer's root (`properties.sendKeyValue`).
const maxCredentialDepth = 8

func (w *credentialWalker) schema(s load.Schema, prefix string, depth int) {
	if depth > maxCredentialDepth {
		return
	}
	s, err := w.l.Deref(s)
	if err != nil || s.Schema == nil {
		return
	}
	key := s.Origin.String()
	if w.stack[key] {
		return
	}
	w.stack[key] = true
	defer delete(w.stack, key)
	switch {
	case s.Type.Contains("array") && s.Items != nil && s.Items.Schema != nil:
		w.schema(load.Schema{Schema: s.Items.Schema, Origin: s.Origin.Child("items")}, prefix+"[*]", depth+1)
		return
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && len(s.Properties) == 0:
		w.schema(load.Schema{Schema: s.AdditionalProperties.Schema, Origin: s.Origin.Child("additionalProperties")}, prefix+".*", depth+1)
		return
	}
	props, err := w.l.Properties(s)
	if err != nil {
		return
	}
	parent := prefix[strings.LastIndex(prefix, ".")+1:]
	for _, p := range props {
		path := p.Name
		if prefix != "" {
			path = prefix + "." + p.Name
		}
		isString := p.Schema.Schema != nil && p.Schema.Type.Contains("string") && len(p.Schema.Enum) == 0
		if p.Secret() || (isString && credentialName(p.Name, parent)) {
			w.found = append(w.found, path)
			continue
		}
		w.schema(p.Decl, path, depth+1)
	}
}

// credentialName reports a member name that says its string value is a
// credential: it ends in password, secret, connection string, key, key value,
// token or SAS URI (adminPassword, clientSecret, entityConnectionString,
// aof-storage-connection-string-0, primaryMasterKey, sendKeyValue,
// sasToken), case, dashes, underscores and a trailing number aside, or it
// is the `value` of a member named like keys (`keys[*].value`). Names, ids
// and thumbprints of credentials (keyName, secretUri,
// clientSecretCertificateThumbprint) end otherwise; public keys are not
// credentials. generator/actions has the same rule for action answers
// (keyLike).
func credentialName(name, parent string) bool {
	norm := func(s string) string {
		return strings.TrimRight(strings.NewReplacer("-", "", "_", "", "[*]", "").Replace(strings.ToLower(s)), "0123456789")
	}
	n := norm(name)
	if strings.Contains(n, "public") {
		return false
	}
	for _, c := range []string{"password", "secret", "connectionstring", "key", "keyvalue", "token", "sasuri"} {
		if strings.HasSuffix(n, c) {
			return true
		}
	}
	return n == "value" && strings.Contains(norm(parent), "key")
}
