#!/bin/bash
# Generates the Go code of the protos, builds the Go client and its example,
# and runs the client's tests against the real server binary on loopback.
#
# Usage: client/go/test.sh SERVER_BINARY    (e.g. build/service/halma_server)
#
# Debian packages: golang-go golang-google-grpc-dev golang-google-protobuf-dev
# golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
# protobuf-compiler grpc-proto. Nothing is fetched: Go builds in GOPATH mode
# from Debian's sources in /usr/share/gocode. GOPATH, GOCACHE and binaries go
# to $HALMA_GO_BUILD_DIR (default client/go/.build, git-ignored); the
# generated code to client/go/gen (git-ignored).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 SERVER_BINARY" >&2
  exit 2
fi
server=$(realpath "$1")
if [[ ! -x $server ]]; then
  echo "$0: $1 is not an executable" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
build=${HALMA_GO_BUILD_DIR:-$here/.build}
began=$SECONDS

for tool in go protoc /usr/bin/protoc-gen-go /usr/bin/protoc-gen-go-grpc; do
  if ! command -v "$tool" >/dev/null; then
    echo "$0: $tool not found; install the Debian packages listed in $0" >&2
    exit 1
  fi
done

# Generate: halma.proto has no go_package, so M options name the Go
# packages; health.proto's go_package is overridden the same way. The
# plugins are Debian's, whose output matches Debian's grpc-go 1.33.
import_root=halma-rules/client/go
maps=("Mhalma/v1/halma.proto=$import_root/gen/halmapb;halmapb"
      "Mgrpc/health/v1/health.proto=$import_root/gen/healthpb;healthpb")
go_opts=(--go_opt="module=$import_root")
grpc_opts=(--go-grpc_opt="module=$import_root")
for m in "${maps[@]}"; do
  go_opts+=(--go_opt="$m")
  grpc_opts+=(--go-grpc_opt="$m")
done
rm -rf "$here/gen"
mkdir -p "$here/gen"
(cd "$here" && protoc -I ../../proto -I /usr/share/grpc-proto \
  --plugin=protoc-gen-go=/usr/bin/protoc-gen-go \
  --plugin=protoc-gen-go-grpc=/usr/bin/protoc-gen-go-grpc \
  --go_out=. "${go_opts[@]}" --go-grpc_out=. "${grpc_opts[@]}" \
  halma/v1/halma.proto grpc/health/v1/health.proto)

# GOPATH mode: this folder is $import_root inside a private GOPATH, next
# to Debian's /usr/share/gocode.
mkdir -p "$build/gopath/src/halma-rules/client" "$build/bin"
ln -sfn "$here" "$build/gopath/src/$import_root"
export GO111MODULE=off GOPATH="$build/gopath:/usr/share/gocode" \
  GOCACHE="$build/cache" GOPROXY=off GOFLAGS=
packages=("$import_root/halma" "$import_root/cmd/halma-example")
cd "$build/gopath/src/$import_root"

unformatted=$(gofmt -l halma cmd)
if [[ -n $unformatted ]]; then
  echo "$0: not gofmt-formatted: $unformatted" >&2
  exit 1
fi
go vet "${packages[@]}"
go build -o "$build/bin/halma-example" "$import_root/cmd/halma-example"

log=$build/test.log
if ! HALMA_SERVER_BINARY=$server \
    HALMA_TESTDATA_DIR=$(realpath "$here/../../tests/service/server/testdata") \
    HALMA_EXAMPLE_BINARY=$build/bin/halma-example \
    go test -count=1 -timeout=110s -v "$import_root/halma" >"$log" 2>&1; then
  cat "$log"
  echo "go client: tests FAILED" >&2
  exit 1
fi
passed=$(grep -c '^--- PASS' "$log" || true)
skipped=$(grep -c '^--- SKIP' "$log" || true)
if [[ $skipped -ne 0 ]]; then
  cat "$log"
  echo "go client: $skipped tests skipped" >&2
  exit 1
fi
echo "go client: $passed tests passed, example built and run ($(go version | cut -d' ' -f3), $((SECONDS - began)) s)"
