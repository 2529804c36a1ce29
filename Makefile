# armature — run `make help` for the targets.
SHELL := /usr/bin/env bash
GO    ?= go

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: specs
specs: ## Provide specs/azure-rest-api-specs (link to ../shared, or a pinned sparse checkout).
	@hack/sync-specs.sh

.PHONY: generate
generate: specs ## Regenerate generated/ from specs/armature.yaml (go generate ./...).
	$(GO) generate ./...

.PHONY: verify
verify: generate ## Regenerate and fail if generated/ differs from what is committed.
	@git diff --exit-code --stat -- generated/ || { echo "generated/ is stale: run 'make generate' and commit the result" >&2; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- generated/); \
	  if [ -n "$$untracked" ]; then echo "untracked generated files:" >&2; echo "$$untracked" >&2; exit 1; fi
	@$(GO) run ./hack/manifests -check || { echo "config/ is stale: run 'make manifests' and commit the result" >&2; exit 1; }
	@echo "verify: generated/ and config/ are up to date"

.PHONY: manifests
manifests: ## Render the generated parts of config/ (CRDs per group, RBAC, webhook configurations, conversion, samples) from generated/.
	$(GO) run ./hack/manifests

.PHONY: terraform-facts
terraform-facts: ## Regenerate specs/terraform/azurerm.json (ForceNew/updatable facts) from terraform-provider-azurerm (AZURERM_DIR=checkout or AZURERM_GITDIR=git dir).
	@hack/terraform-facts.sh

.PHONY: docker-build
docker-build: ## Build the operator image (needs docker and a registry to pull the base images from).
	docker build -t armature-operator:dev .

.PHONY: build
build: ## Build every package and command.
	$(GO) build ./...

.PHONY: lint
lint: ## gofmt and go vet.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

.PHONY: envtest
envtest: ## Build (once) and print the folder of kube-apiserver and etcd for envtest.
	@hack/setup-envtest.sh

.PHONY: test
test: lint ## Run every test, unit and envtest (the command CI runs).
	@hack/sync-specs.sh || echo "make test: no Azure specs; the tests that need them will skip" >&2
	@assets=$$(hack/setup-envtest.sh) && KUBEBUILDER_ASSETS="$$assets" $(GO) test -count=1 ./...
	@$(MAKE) --no-print-directory tier-test
	@if [ -d specs/azure-rest-api-specs/specification ]; then $(MAKE) --no-print-directory check-examples; fi

.PHONY: check-examples
check-examples: specs ## Check every x-ms-examples PUT body against generated/crds, offline; print the ratio.
	$(GO) run ./cmd/armature check-examples --crds generated/crds --min-ratio 0.98

SWEEP_FLAGS ?=

.PHONY: sweep
sweep: ## Generate, compile and check the examples of the wide corpus (../shared/specs), one provider at a time; writes docs/coverage.md (SWEEP_FLAGS=-j 4 …).
	@dir=$$(hack/corpus.sh) && $(GO) run ./cmd/armature sweep $(SWEEP_FLAGS) --markdown docs/coverage.md --json "$$(dirname "$$dir")/sweep.json" "$$dir"

.PHONY: bench
bench: bench-generate bench-fakearm bench-webhook bench-reconcile bench-secrets bench-scale bench-crds bench-operator ## Run the benchmarks and print their figures.

.PHONY: bench-reconcile
bench-reconcile: ## 1,000 StorageAccounts under 10 resource groups against the emulator: time to Ready vs two apiserver floors (same data; tiny status), apiserver CPU and requests by verb, calls and writes per resource, a no-op resync (N=ARMATURE_BENCH_N).
	@assets=$$(hack/setup-envtest.sh) && KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench BenchmarkReconcile -benchtime 1x -timeout 30m ./test/reconciler/

.PHONY: bench-crds
bench-crds: ## kube-apiserver resident memory bare and with every CRD of config/crd installed (CRD_DIR=another folder), per CRD, and the time to install them.
	@assets=$$(hack/setup-envtest.sh) && KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench BenchmarkCRDCost -benchtime 1x -timeout 10m ./test/crdcost/

.PHONY: bench-operator
bench-operator: ## The operator as its own process: time to ready and resident memory (Go heap, goroutines) with 0 CRDs, the curated ones and the generated tier's (config/crd/generated, TIER_CRD_DIR) installed while it runs, time to serve them, binary size (ARMATURE_BENCH_OPERATOR_BIN=another build).
	@assets=$$(hack/setup-envtest.sh) && KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench BenchmarkOperatorCost -benchtime 1x -timeout 30m ./test/crdcost/

.PHONY: bench-secrets
bench-secrets: ## The operator's resident memory before and after 120 unrelated Secrets of 900 KiB appear (the operator as its own process, every namespace).
	@assets=$$(hack/setup-envtest.sh) && KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench BenchmarkUnrelatedSecrets -benchtime 1x -timeout 20m ./test/reconciler/

.PHONY: bench-scale
bench-scale: ## N=10,000 StorageAccounts (ARMATURE_BENCH_N) under 100 groups in 10 subscriptions, the operator as its own process, the emulator at ARM's limits: ratio-to-floor, operator RSS, ARM reads per resource of a no-op resync, writes, 429s (docs/scale.md).
	@assets=$$(hack/setup-envtest.sh) && KUBEBUILDER_ASSETS="$$assets" $(GO) test -run '^$$' -bench BenchmarkScale -benchtime 1x -timeout 90m ./test/reconciler/

.PHONY: bench-webhook
bench-webhook: ## Admission latency p50/p99 of the webhook handlers, in-process.
	$(GO) test -run '^$$' -bench BenchmarkAdmission ./webhook/

.PHONY: bench-fakearm
bench-fakearm: ## Requests per second of the ARM emulator over loopback HTTPS (GET and PUT).
	$(GO) test -run '^$$' -bench BenchmarkServe -benchtime 3s ./fakearm/

.PHONY: fakearm
fakearm: ## Run the local ARM emulator (prints its endpoint and how to point a client at it).
	$(GO) run ./cmd/fakearm

CONFORMANCE_FLAGS ?=

.PHONY: conformance
conformance: ## Replay the recorded real ARM traffic (test/recordings, ../shared/recordings when present) against the emulator, first each against profiles learned without it ("leave-one-out: N/M", needs the Azure specs), then against generated/profiles ("interactions matching: N/M"; docs/conformance.md; CONFORMANCE_FLAGS=--json FILE).
	@dirs=test/recordings; \
	  if [ -d ../shared/recordings ]; then dirs="$$dirs ../shared/recordings"; else echo "conformance: ../shared/recordings is absent: replaying test/recordings only" >&2; fi; \
	  loo=--leave-one-out; \
	  if [ ! -d specs/azure-rest-api-specs/specification ] && [ -z "$$ARMATURE_SPECS" ]; then loo=; echo "conformance: no Azure specs (hack/sync-specs.sh): no leave-one-out figure" >&2; fi; \
	  $(GO) run ./cmd/fakearm conformance $$loo $(CONFORMANCE_FLAGS) $$dirs

.PHONY: bench-generate
bench-generate: specs ## Time generating the whole shared corpus, by stage, with peak memory.
	$(GO) test -run '^$$' -bench BenchmarkGenerate -benchtime 3x -benchmem ./generator/

.PHONY: demo
demo: generate ## Generate, then run the control plane, the ARM emulator and the operator, and show resources converge.
	@hack/demo.sh

SAMPLES_FLAGS ?=

.PHONY: samples
samples: ## Apply every sample of config/samples to a fresh sandbox and wait: prints 'samples Ready: N/M' and each sample not Ready; fails below 95% (docs/samples.md; SAMPLES_FLAGS=-min 1 -logs DIR …).
	@assets=$$(hack/setup-envtest.sh) && $(GO) build -o bin/samples ./hack/samples && \
	  KUBEBUILDER_ASSETS="$$assets" bin/samples $(SAMPLES_FLAGS)

SANDBOX_DIR ?= .sandbox

.PHONY: sandbox
sandbox: ## Run kube-apiserver + etcd, the ARM emulator and the operator until Ctrl-C; prints KUBECONFIG=… and ARM=… when ready (SANDBOX_DIR=.sandbox; docs/sandbox.md).
	@assets=$$(ARMATURE_K8S_KUBECTL=$${ARMATURE_K8S_KUBECTL:-ensure} hack/setup-envtest.sh) && $(GO) build -o bin/sandbox ./hack/sandbox && \
	  KUBEBUILDER_ASSETS="$$assets" SANDBOX_DIR="$(SANDBOX_DIR)" exec bin/sandbox

# Targets of one concern each (tiers, chart…), kept beside the scripts they run.
include $(sort $(wildcard hack/mk/*.mk))
