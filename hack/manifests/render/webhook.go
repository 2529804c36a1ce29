package render

import (
	"bytes"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook"
)

// webhookConfigurations renders the validating and the mutating webhook
// configurations for the served kinds with package webhook's own builders:
// the same paths (webhook.ValidatePath, webhook.DefaultPath), rules,
// failure policy and timeouts as the configurations it installs for
// envtest, calling the Service config/webhook declares (webhook's default
// service, armature-webhook in armature-system, port 443). The rendered
// extra CRDs' webhook entries (the Action kind's) are appended to the
// validating configuration. caBundle is left empty: the operator
// (webhook/certs, config/default) or cert-manager's CA injector fills it.
func webhookConfigurations(ds []*descriptor.Descriptor, crds []*crd) ([]byte, error) {
	validating := webhook.ValidatingWebhookConfiguration(ds)
	for _, c := range crds {
		if c.webhook == nil {
			continue
		}
		if err := coversCRD(c); err != nil {
			return nil, err
		}
		validating.Webhooks = append(validating.Webhooks, *c.webhook.DeepCopy())
	}
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# The admission webhooks of the served kinds (package webhook's
# ValidatingWebhookConfiguration and MutatingWebhookConfiguration), calling
# the operator through the Service armature-webhook (webhook/service.yaml).
`)
	for _, obj := range []runtime.Object{
		validating,
		webhook.MutatingWebhookConfiguration(ds),
	} {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("render: webhook configuration: %w", err)
		}
		if md, ok := m["metadata"].(map[string]any); ok && md["creationTimestamp"] == nil {
			delete(md, "creationTimestamp")
		}
		out, err := yaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(out)
	}
	return b.Bytes(), nil
}

// coversCRD checks that an extra CRD's webhook entry names the CRD's
// resource and only versions it serves.
func coversCRD(c *crd) error {
	for _, r := range c.webhook.Rules {
		if !slices.Contains(r.APIGroups, c.group) || !slices.Contains(r.Resources, c.plural) {
			return fmt.Errorf("render: webhook %s does not match %s (%s)", c.webhook.Name, c.name, c.source)
		}
		for _, v := range r.APIVersions {
			if !slices.Contains(c.versions, v) {
				return fmt.Errorf("render: webhook %s matches version %s, which %s does not serve", c.webhook.Name, v, c.name)
			}
		}
	}
	return nil
}
