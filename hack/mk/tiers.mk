# The generated tier (docs/tiers.md): every kind of the wide corpus that the
# curated tier (generated/apis, config/crd/<group>) does not have. Its files are
# generated, not committed: tier/kinds.tsv lists its kinds and CRD checksums.

TIER_FLAGS ?=

.PHONY: crds
crds: ## Generate the generated tier from the pinned corpus (tier/, config/crd/generated/<group>/) unless current, and check it against tier/kinds.tsv (UPDATE=1 rewrites it; FORCE=1 regenerates; TIER_FLAGS=-j 4 …).
	@GO="$(GO)" TIER_FLAGS="$(TIER_FLAGS)" hack/tier.sh crds

.PHONY: tier-test
tier-test: ## make crds, then install every CRD (curated + generated) in envtest, check each Established, and bring a few tier kinds to Ready against the emulator; skips without the corpus.
	@GO="$(GO)" TIER_FLAGS="$(TIER_FLAGS)" hack/tier.sh test

.PHONY: tier-build
tier-build: ## make crds, then build the operator with the generated tier into bin/operator-tier (as the Dockerfile's TIER=generated does), printing its size and build time.
	@GO="$(GO)" TIER_FLAGS="$(TIER_FLAGS)" hack/tier.sh build
