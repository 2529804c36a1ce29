package webhook

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gobuffalo/flect"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/webhook/certs"
)

// Names in the generated webhook configurations. The Service's and the
// configurations' names are package certs's (whose Options default to
// them): one definition.
const (
	// ValidatingConfigurationName names the ValidatingWebhookConfiguration.
	ValidatingConfigurationName = certs.ValidatingConfigurationName
	// MutatingConfigurationName names the MutatingWebhookConfiguration.
	MutatingConfigurationName = certs.MutatingConfigurationName
	// ValidatingWebhookName names the one validating webhook.
	ValidatingWebhookName = "validate.armature.dev"
	// DefaultingWebhookName names the one defaulting webhook.
	DefaultingWebhookName = "default.armature.dev"

	// DefaultServiceNamespace, DefaultServiceName and DefaultServicePort
	// are the Service the configurations call unless told otherwise.
	DefaultServiceNamespace = "armature-system"
	DefaultServiceName      = certs.DefaultServiceName
	DefaultServicePort      = 443
	// DefaultTimeoutSeconds is the webhooks' timeout.
	DefaultTimeoutSeconds = 10
)

// ConfigOption configures the generated webhook configurations.
type ConfigOption func(*configOptions)

// configOptions are the settings ConfigOptions change.
type configOptions struct {
	namespace, name string
	port            int32
	url             string
	caBundle        []byte
	timeout         int32
}

// WithService makes the webhooks call a Service. Defaults to
// DefaultServiceName in DefaultServiceNamespace on DefaultServicePort.
func WithService(namespace, name string, port int32) ConfigOption {
	return func(o *configOptions) { o.namespace, o.name, o.port, o.url = namespace, name, port, "" }
}

// WithURL makes the webhooks call base + ValidatePath or DefaultPath
// instead of a Service, e.g. https://host.docker.internal:9443 for a
// webhook run outside the cluster. Defaults to unset (a Service).
func WithURL(base string) ConfigOption {
	return func(o *configOptions) { o.url = strings.TrimSuffix(base, "/") }
}

// WithCABundle sets the PEM CA bundle the apiserver trusts the webhook's
// serving certificate with. Defaults to none: cert-manager's CA injector or
// PatchCABundle fills it.
func WithCABundle(pem []byte) ConfigOption {
	return func(o *configOptions) { o.caBundle = pem }
}

// WithTimeout sets the webhooks' timeout in seconds (1 to 30). Defaults to
// DefaultTimeoutSeconds.
func WithTimeout(seconds int32) ConfigOption {
	return func(o *configOptions) { o.timeout = seconds }
}

// SpecChangedCondition is the match condition of both webhooks: a create,
// or an update that changes spec. An update of metadata or finalizers only
// (most of the operator's own writes) needs neither defaulting nor
// validation (validate passes spec-unchanged updates anyway), so the
// apiserver does not call the webhook for it: two round trips saved per
// such write.
var SpecChangedCondition = admissionregistrationv1.MatchCondition{
	Name:       "spec-changed",
	Expression: specChanged,
}

// SpecOrPolicyChangedCondition is the match condition of the validating
// webhook: SpecChangedCondition, or an update that changes the
// reconcile-policy annotation (an unknown policy is refused when it is
// set, not found later).
var SpecOrPolicyChangedCondition = admissionregistrationv1.MatchCondition{
	Name:       "spec-or-policy-changed",
	Expression: specChanged + ` || ` + annotation("object") + ` != ` + annotation("oldObject"),
}

const specChanged = `request.operation != 'UPDATE' || !has(object.spec) || !has(oldObject.spec) || object.spec != oldObject.spec`

// annotation is the CEL expression of the reconcile-policy annotation of
// an object ("" when absent).
func annotation(obj string) string {
	return fmt.Sprintf(`(has(%[1]s.metadata.annotations) && '%[2]s' in %[1]s.metadata.annotations ? %[1]s.metadata.annotations['%[2]s'] : '')`, obj, core.AnnotationPolicy)
}

// ValidatingWebhookConfiguration returns the configuration that sends every
// create and every update that changes spec or the reconcile policy
// (SpecOrPolicyChangedCondition) of the given kinds to the validating
// handler:
// sideEffects None, failurePolicy Fail, admissionReviewVersions v1, one rule
// per group and version with exactly the kinds' resources.
func ValidatingWebhookConfiguration(ds []*descriptor.Descriptor, opts ...ConfigOption) *admissionregistrationv1.ValidatingWebhookConfiguration {
	o := configDefaults(opts)
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: ValidatingConfigurationName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    ValidatingWebhookName,
			ClientConfig:            o.clientConfig(ValidatePath),
			Rules:                   Rules(ds),
			MatchConditions:         []admissionregistrationv1.MatchCondition{SpecOrPolicyChangedCondition},
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &o.timeout,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// MutatingWebhookConfiguration returns the configuration that sends every
// create and spec-changing update of the given kinds to the defaulting
// handler, with the
// same settings as ValidatingWebhookConfiguration and reinvocationPolicy
// Never (defaulting is idempotent and depends on no other webhook).
func MutatingWebhookConfiguration(ds []*descriptor.Descriptor, opts ...ConfigOption) *admissionregistrationv1.MutatingWebhookConfiguration {
	o := configDefaults(opts)
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	never := admissionregistrationv1.NeverReinvocationPolicy
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: MutatingConfigurationName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    DefaultingWebhookName,
			ClientConfig:            o.clientConfig(DefaultPath),
			Rules:                   Rules(ds),
			MatchConditions:         []admissionregistrationv1.MatchCondition{SpecChangedCondition},
			FailurePolicy:           &fail,
			MatchPolicy:             &equivalent,
			SideEffects:             &none,
			TimeoutSeconds:          &o.timeout,
			AdmissionReviewVersions: []string{"v1"},
			ReinvocationPolicy:      &never,
		}},
	}
}

// Rules returns one rule per API group and version of the given kinds, for
// CREATE and UPDATE of exactly their resources (not their subresources),
// sorted.
func Rules(ds []*descriptor.Descriptor) []admissionregistrationv1.RuleWithOperations {
	type gv struct{ group, version string }
	resources := map[gv][]string{}
	for _, d := range ds {
		k := gv{d.Group, d.Version}
		resources[k] = append(resources[k], Resource(d))
	}
	keys := make([]gv, 0, len(resources))
	for k := range resources {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].group != keys[j].group {
			return keys[i].group < keys[j].group
		}
		return keys[i].version < keys[j].version
	})
	scope := admissionregistrationv1.NamespacedScope
	rules := make([]admissionregistrationv1.RuleWithOperations, 0, len(keys))
	for _, k := range keys {
		rs := resources[k]
		sort.Strings(rs)
		rules = append(rules, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups:   []string{k.group},
				APIVersions: []string{k.version},
				Resources:   rs,
				Scope:       &scope,
			},
		})
	}
	return rules
}

// Resource returns the kind's resource, the plural its CRD is served under:
// the kind pluralised, then lower-cased, as controller-tools does (flect;
// the order matters for an acronym: PrivateDnsZonesMX → privatednszonesmxs).
func Resource(d *descriptor.Descriptor) string {
	return strings.ToLower(flect.Pluralize(d.Kind))
}

// configDefaults applies opts over the defaults.
func configDefaults(opts []ConfigOption) *configOptions {
	o := &configOptions{
		namespace: DefaultServiceNamespace,
		name:      DefaultServiceName,
		port:      DefaultServicePort,
		timeout:   DefaultTimeoutSeconds,
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// clientConfig is how the apiserver reaches the handler at path.
func (o *configOptions) clientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	cc := admissionregistrationv1.WebhookClientConfig{CABundle: o.caBundle}
	if o.url != "" {
		u := o.url + path
		cc.URL = &u
		return cc
	}
	p, port := path, o.port
	cc.Service = &admissionregistrationv1.ServiceReference{Namespace: o.namespace, Name: o.name, Path: &p, Port: &port}
	return cc
}
