// Package versions tests kinds served in several versions against a real
// kube-apiserver: the apiserver calls the conversion webhook
// (webhook/conversion) to read and write an object in a version other than
// the one it was stored in, nothing is lost on the way, and the reconciler
// speaks to ARM (the emulator) in the api-version the user wrote in.
package versions
