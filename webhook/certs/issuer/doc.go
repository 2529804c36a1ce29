// Package issuer is the project's one self-signed certificate issuer: a new
// CA (ECDSA P-256) and a serving certificate it signs, in PEM. The
// webhook's certificate management (package certs) issues with it on every
// rotation, webhook.SelfSigned for a local webhook server, and the ARM
// emulator (fakearm) for its loopback TLS.
//
// # Why a package of its own
//
// It imports only the standard library, so that the emulator can issue
// without linking controller-runtime: package certs registers
// controller-runtime's --kubeconfig flag on the command line of any binary
// that imports it.
package issuer
