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
  # The reflection end-to-end test: an independent gRPC implementation; the
  # attack tests also speak raw HTTP/2 (python3-h2)
  python3 python3-grpcio python3-protobuf python3-h2
)

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
