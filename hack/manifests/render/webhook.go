package render

import (
	"bytes"
	"fmt"

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
// service, armature-webhook in armature-system, port 443). caBundle is
// left empty: cert-manager's CA injector or a self-signed overlay fills it.
func webhookConfigurations(ds []*descriptor.Descriptor) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# The admission webhooks of the served kinds (package webhook's
# ValidatingWebhookConfiguration and MutatingWebhookConfiguration), calling
# the operator through the Service armature-webhook (webhook/service.yaml).
`)
	for _, obj := range []runtime.Object{
		webhook.ValidatingWebhookConfiguration(ds),
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
