// Package actions holds the Action API (v1alpha1), its CRD (crd.yaml) and
// samples. crd.yaml and v1alpha1/zz_generated.deepcopy.go are written by
// controller-tools, as a library, from the Go types:
//
//	go test ./api/actions/ -run TestGenerated -update
//
// and TestGenerated fails when either is stale. CRD is crd.yaml, embedded,
// for installers and tests.
package actions

import _ "embed"

// CRD is the Action CustomResourceDefinition (crd.yaml).
//
//go:embed crd.yaml
var CRD []byte
