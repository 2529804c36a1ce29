// Package tlstest checks that a served TLS endpoint has the project's TLS
// floor (webhook.HardenTLS): tests of the webhook, the operator and the
// metrics endpoint dial it with each of Cases.
package tlstest
