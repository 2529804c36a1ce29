// Package configurator proves runtime/configurator against a real
// kube-apiserver and etcd (envtest): a tracked resource's change re-selects
// its dependents only, an unchanged Select output does not render, removed
// declarations are pruned (also after a restart), an unchanged status is
// not written (apiserver writes are counted at the HTTP transport), a
// tracked resource deleted re-selects with nil, outputs rewrite their
// ConfigMap only when the value changes. BenchmarkConfiguratorAPIServer
// measures one tracked change among many registered resources. It has only
// tests.
package configurator
