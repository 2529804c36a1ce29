package arm

import (
	"context"
	"errors"
	"strings"
)

// ProvidersAPIVersion is the Microsoft.Resources api-version of the
// provider registration calls.
const ProvidersAPIVersion = "2021-04-01"

// ProviderOf returns the subscription and the resource provider namespace
// (Microsoft.Storage) of an ARM id: the namespace after its last
// "providers" segment. Either is "" when the id has none.
func ProviderOf(id string) (subscription, namespace string) {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for i := 0; i+1 < len(segs); i++ {
		switch {
		case strings.EqualFold(segs[i], "subscriptions") && i == 0:
			subscription = segs[i+1]
		case strings.EqualFold(segs[i], "providers"):
			namespace = segs[i+1]
		}
	}
	return subscription, namespace
}

// RegisterProvider asks ARM to register a subscription with a resource
// provider, as the portal's Register button does:
//
//	POST /subscriptions/{subscription}/providers/{namespace}/register
//
// It returns once ARM accepted the request and does not wait for the
// registration to complete (ARM says Registering, then Registered): the
// caller retries its own request later.
func RegisterProvider(ctx context.Context, c Client, subscription, namespace string) error {
	p, ok := c.(Poster)
	if !ok {
		return errors.New("arm: the client cannot POST (no Poster)")
	}
	if subscription == "" || namespace == "" {
		return errors.New("arm: register a provider: the subscription and the namespace are required")
	}
	_, err := p.Post(ctx, "/subscriptions/"+subscription+"/providers/"+namespace, ProvidersAPIVersion, PostRequest{Action: "register"})
	return err
}
