#!/usr/bin/env bash
# Installs the Debian bookworm packages that building, running and testing
# halma-rules need. Idempotent; run as root (or with sudo available).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # Build
  cmake ninja-build g++ pkg-config
  # gRPC 1.51, Protocol Buffers 3.21, Abseil 20220623, health/reflection protos
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev grpc-proto
  # protoc's .proto parser, for the reflection test (tests/service)
  libprotoc-dev
  # Tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  # Sanitizer builds and libFuzzer (CMakePresets.json asan/tsan, fuzz/);
  # llvm-14 brings llvm-symbolizer for readable reports
  clang-14 libclang-rt-14-dev llvm-14
  # The server's allocator and its HTTP/2 front proxy (nghttpx)
  libjemalloc-dev nghttp2-proxy
  # The Connect protocol's HTTP/1.1 listener (docs/http-library-choice.md),
  # and curl for its tests
  libmicrohttpd-dev curl
  # libcurl: the HTTP client of `halmactl conformance --protocol connect`
  # (client/halmactl/conformance.cc)
  libcurl4-openssl-dev
  # Metrics: prometheus-cpp's core (registry, text format); Prometheus
  # itself and promtool for the metrics tests
  prometheus-cpp-dev prometheus
  # Debian's Python gRPC: the attack, soak and benchmark drivers and the
  # Python client; the attack tests also speak raw HTTP/2 (python3-h2)
  python3 python3-grpcio python3-protobuf python3-h2
  # The clients (client/): Python stubs from protoc and grpc_python_plugin
  # (protobuf-compiler-grpc, above), pytest, mypy and a venv to install the
  # package into
  python3-pytest python3-venv python3-setuptools python3-wheel mypy
  # Go, built offline from Debian's Go sources
  golang-go golang-google-grpc-dev golang-google-protobuf-dev
  golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
  # Shell scripts are checked with it
  shellcheck
  # The playground page's browser test (tests/playground: playwright-core
  # drives Debian's Chromium; no browser is downloaded)
  chromium
)
# Node.js and npm (the Node client, buf from npm): Debian's, unless the
# machine has its own (NodeSource's nodejs bundles npm, and conflicts with
# Debian's npm package).
command -v node >/dev/null || PACKAGES+=(nodejs)
command -v npm >/dev/null || PACKAGES+=(npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
echo "install-deps: all packages present"
# npm packages of the tests and the API gate (buf: tools/package.json),
# exactly as locked; no install scripts are needed.
npm ci --prefix "$(dirname "$0")/../tools" --no-audit --no-fund \
  --ignore-scripts --loglevel=error
echo "install-deps: npm tools present"
