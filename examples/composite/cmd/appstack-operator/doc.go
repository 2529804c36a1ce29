// Command appstack-operator is the operator of cmd/operator with the
// AppStack composition of examples/composite on the configurator: a build
// of the example. The production binary does not carry example code.
//
//	go run ./examples/composite/cmd/appstack-operator [operator flags]
//
// Install examples/composite/crd.yaml beside the generated CRDs first.
package main
