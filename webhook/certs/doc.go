// Package certs manages the webhook serving certificate of the operator
// itself, so that the admission and CRD conversion webhooks work without
// cert-manager: it issues a CA and a serving certificate into a Secret,
// puts the CA into the caBundle of the webhook configurations and of the
// converting CRDs, rotates both before they expire, and serves the
// certificate from the Secret on every replica. operator.Run sets it up
// when --webhook-cert-secret is given (config/default does).
//
// # Who does what
//
// The leader (a controller: it runs only on the elected replica) issues and
// injects. It reconciles one key on any change of the Secret, of the two
// webhook configurations or of a CRD labelled ConversionLabel, at the
// renewal time of the certificate, and every Options.Resync:
//
//  1. The certificate in the Secret is checked: present, a key that matches,
//     verified by the Secret's ca.crt for the Service's DNS names, and not
//     within RenewBefore of its expiry. If it fails any check a new CA and
//     serving certificate are issued (ECDSA P-256, both valid for Validity).
//  2. The caBundle of every webhook of both configurations and of every
//     labelled CRD converting with strategy Webhook is set to the CA bundle:
//     the new CA followed by the CA it replaces (while that one is valid).
//  3. Only then is the Secret written (tls.crt, tls.key, ca.crt = the bundle).
//
// The order makes rotation seamless: the apiserver trusts the new CA before
// any replica serves a certificate signed by it, and still trusts the old
// one while replicas switch. The CA's private key is never stored: each
// rotation makes a new CA, signs one certificate with it and drops the key.
//
// # Every replica serves
//
// Every replica (leader or not) watches the Secret through an informer
// restricted to its name, and serves the certificate it holds from memory
// (tls.Config.GetCertificate): a replica learns of a rotation from the
// watch, within the apiserver's watch latency, with no Secret volume, no
// kubelet sync delay and no restart. A replica is not ready (the readyz
// check "webhook-cert") until it holds a valid certificate from the Secret;
// since the leader writes the Secret only after injecting the CA, a ready
// replica is one the apiserver trusts.
//
// # Least privilege
//
// Its own cache watches only what it needs: the Secret and both webhook
// configurations by name (list and watch with a metadata.name field
// selector, which RBAC authorises with resourceNames), and the metadata of
// the CRDs carrying ConversionLabel (a label selector: list and watch on
// CRDs cannot be limited by name). Webhook configurations and CRDs are read
// in full only when the bundle is checked, by name. RBAC
// (config/components/webhook-certs, rendered by hack/manifests): update on
// the Secret, the two configurations and the converting CRDs, each by
// resourceNames; no create, no delete, no other Secret.
package certs
