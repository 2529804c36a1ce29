package tree

import "testing"

func TestCredentialName(t *testing.T) {
	cases := map[string]struct {
		reason string
		name   string
		parent string
		want   bool
	}{
		"password":          {"a password", "adminPassword", "", true},
		"secret":            {"a secret", "clientSecret", "", true},
		"connection string": {"a connection string", "entityConnectionString", "", true},
		"numbered":          {"Redis names its connection strings with dashes and a number", "aof-storage-connection-string-0", "", true},
		"key":               {"a key", "primaryReadonlyMasterKey", "", true},
		"key value":         {"the value of a key", "sendKeyValue", "", true},
		"token":             {"a token", "sasToken", "", true},
		"key name":          {"the name of a key is no credential", "sendKeyName", "", false},
		"secret id":         {"the id of a secret is no credential", "keyVaultSecretId", "", false},
		"secret uri":        {"the URI of a secret is no credential", "secretUri", "", false},
		"thumbprint":        {"a certificate's thumbprint is no credential", "clientSecretCertificateThumbprint", "", false},
		"public key":        {"a public key is no credential", "publicKey", "", false},
		"sas uri":           {"a SAS URI carries a signature", "blobSasUri", "", true},
		"value of a key":    {"the value of an item of keys", "value", "keys[*]", true},
		"other value":       {"a value elsewhere", "value", "tags", false},
		"boolean":           {"a flag about passwords (strings only are checked, and the name says so)", "passwordAuthentication", "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := credentialName(tc.name, tc.parent); got != tc.want {
				t.Errorf("%s: credentialName(%q) = %v, want %v", tc.reason, tc.name, got, tc.want)
			}
		})
	}
}
