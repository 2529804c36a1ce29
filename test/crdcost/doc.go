// Package crdcost measures what installed CRDs cost the kube-apiserver
// (BenchmarkCRDCost, make bench-crds): its resident memory bare and with
// every CRD of config/crd installed, per CRD, and the time to install them.
package crdcost
