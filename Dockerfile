# syntax=docker/dockerfile:1
# The operator image: cmd/operator, a static binary on distroless, run as
# the non-root user 65532 (the Deployment in config/manager requires it).
#   docker build -t armature-operator:dev .
# Multi-platform: docker buildx build --platform linux/amd64,linux/arm64 .
#
# With the generated tier (docs/tiers.md): every kind of the wide corpus.
# The tier is not committed; generate it first, then build tier/cmd/operator:
#   make crds && docker build --build-arg TIER=generated -t armature-operator:dev .

# Build on the builder's own platform and cross-compile (no emulation).
ARG GO_VERSION=1.26
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# TIER=curated builds cmd/operator (the kinds of generated/apis);
# TIER=generated builds tier/cmd/operator, in the tier's own Go module
# (tier/go.mod, the same dependency versions), with the generated tier's
# kinds too; it needs tier/apis, which `make crds` writes.
ARG TIER=curated
# CGO_ENABLED=0: a static binary for an image with no libc. -trimpath and
# no VCS stamping: the same sources give the same binary.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    case "$TIER" in \
      curated) cd /src ;; \
      generated) test -f tier/apis/registry.go || { echo "TIER=generated: tier/apis/registry.go is missing: run make crds before docker build" >&2; exit 1; }; cd /src/tier ;; \
      *) echo "TIER=$TIER: want curated or generated" >&2; exit 1 ;; \
    esac && \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH GOWORK=off \
    go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/operator ./cmd/operator

# distroless/static: CA certificates (for Azure's endpoints), tzdata and
# /etc/passwd with the nonroot user; no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.source="https://github.com/armature-dev/armature" \
      org.opencontainers.image.description="armature operator: Azure Resource Manager resources as Kubernetes custom resources"
COPY --from=build /out/operator /operator
USER 65532:65532
ENTRYPOINT ["/operator"]
