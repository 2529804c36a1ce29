package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// KustomizationFile is the file that lists the others.
const KustomizationFile = "kustomization.yaml"

// FileName is the file of an object: <group's first label>_<kind>_<name>.yaml
// (storage_storageaccount_media01.yaml); names are unique per kind, and
// neither part has an underscore.
func (o *Object) FileName() string {
	group, _, _ := strings.Cut(o.Desc.Group, ".")
	return fmt.Sprintf("%s_%s_%s.yaml", group, strings.ToLower(o.Desc.Kind), o.Name())
}

// FileName is the file of a Secret stub: secret_<name>.yaml.
func (s *SecretStub) FileName() string { return "secret_" + s.Name + ".yaml" }

// Write writes one file per object and per Secret stub into dir (made
// when missing) and a kustomization.yaml listing them, the Secrets first;
// namespace, when set, is the kustomization's namespace. It returns the
// files written, kustomization.yaml last. Files of an earlier import that
// this one does not write are left alone (and out of the kustomization).
func (r *Result) Write(dir, namespace string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files, secrets []string
	write := func(name string, b []byte) error {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
		files = append(files, name)
		return nil
	}
	for _, o := range r.Objects {
		if o.Secret == nil {
			continue
		}
		if err := write(o.Secret.FileName(), o.Secret.yaml(o)); err != nil {
			return files, err
		}
		secrets = append(secrets, o.Secret.FileName())
	}
	for _, o := range r.Objects {
		b, err := o.yaml()
		if err != nil {
			return files, fmt.Errorf("%s: %w", o.ID, err)
		}
		if err := write(o.FileName(), b); err != nil {
			return files, err
		}
	}
	var k bytes.Buffer
	fmt.Fprintf(&k, "# Resource group %s as imported by `operator import` (%d resources).\n", r.GroupID, len(r.Objects))
	if len(secrets) > 0 {
		fmt.Fprintf(&k, "# Fill in the Secrets (%s) before you apply.\n", strings.Join(secrets, ", "))
	}
	k.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n")
	if namespace != "" {
		fmt.Fprintf(&k, "namespace: %s\n", namespace)
	}
	k.WriteString("resources:\n")
	for _, f := range files {
		fmt.Fprintf(&k, "- %s\n", f)
	}
	return files, write(KustomizationFile, k.Bytes())
}

// yaml is the object's file: its notes as comments, then the resource.
func (o *Object) yaml() ([]byte, error) {
	body, err := yaml.Marshal(o.Resource.Object)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	b.Write(body)
	return b.Bytes(), nil
}

// yaml is the stub's file: a Secret with an empty value per key.
func (s *SecretStub) yaml(o *Object) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Secret values of %s %s (%s).\n", o.Kind(), o.Name(), o.ID)
	b.WriteString("# ARM never returns secret values, so `operator import` leaves them empty: fill them in\n")
	b.WriteString("# (here, or with kubectl create secret generic … --dry-run=client -o yaml) and keep real\n")
	b.WriteString("# values out of version control. An empty value is never sent to Azure; a value is sent\n")
	b.WriteString("# by the next reconcile (policy manage), replacing what Azure has.\n")
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\ntype: Opaque\nstringData:\n", s.Name)
	for _, k := range s.Keys {
		fmt.Fprintf(&b, "  %s: \"\"\n", k)
	}
	return b.Bytes()
}
