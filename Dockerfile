# syntax=docker/dockerfile:1
# The operator image: cmd/operator, a static binary on distroless, run as
# the non-root user 65532 (the Deployment in config/manager requires it).
#   docker build -t armature-operator:dev .
# Multi-platform: docker buildx build --platform linux/amd64,linux/arm64 .

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
# CGO_ENABLED=0: a static binary for an image with no libc. -trimpath and
# no VCS stamping: the same sources give the same binary.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/operator ./cmd/operator

# distroless/static: CA certificates (for Azure's endpoints), tzdata and
# /etc/passwd with the nonroot user; no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.source="https://github.com/armature-dev/armature" \
      org.opencontainers.image.description="armature operator: Azure Resource Manager resources as Kubernetes custom resources"
COPY --from=build /out/operator /operator
USER 65532:65532
ENTRYPOINT ["/operator"]
