package conversion

import (
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Enable points a CRD served in several versions at the conversion
// webhook (cc names it: a Service, or a URL, and the CA bundle). It
// reports whether the CRD needed it; a CRD with one version is left as is.
func Enable(crd *apiextv1.CustomResourceDefinition, cc apiextv1.WebhookClientConfig) bool {
	if len(crd.Spec.Versions) < 2 {
		return false
	}
	cc = *cc.DeepCopy()
	if cc.Service != nil {
		p := Path
		cc.Service.Path = &p
	}
	crd.Spec.Conversion = &apiextv1.CustomResourceConversion{
		Strategy: apiextv1.WebhookConverter,
		Webhook:  &apiextv1.WebhookConversion{ClientConfig: &cc, ConversionReviewVersions: []string{"v1"}},
	}
	return true
}
