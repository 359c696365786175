#!/bin/sh
# Generates the TypeScript messages and grpc-js service definitions of
# halma.v1 and grpc.health.v1 into src/gen/ (git-ignored) with Debian's protoc
# and the ts-proto plugin from node_modules (run `npm ci` first).
#
# HALMA_PROTO_DIR: the folder holding halma/v1/halma.proto (default: the
#   repository's proto/).
# GRPC_PROTO_DIR: the folder holding grpc/health/v1/health.proto (default:
#   /usr/share/grpc-proto, Debian package grpc-proto).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
halma_proto_dir=${HALMA_PROTO_DIR:-$here/../../proto}
grpc_proto_dir=${GRPC_PROTO_DIR:-/usr/share/grpc-proto}
plugin=$here/node_modules/.bin/protoc-gen-ts_proto
out=$here/src/gen

if [ ! -x "$plugin" ]; then
  echo "generate.sh: $plugin is missing; run 'npm ci' in $here first" >&2
  exit 1
fi
for f in "$halma_proto_dir/halma/v1/halma.proto" \
  "$grpc_proto_dir/grpc/health/v1/health.proto"; do
  if [ ! -f "$f" ]; then
    echo "generate.sh: $f is missing" >&2
    exit 1
  fi
done

rm -rf "$out"
mkdir -p "$out"
# ts-proto options: grpc-js client and service definitions; int64 as bigint
# (SeatMoves.moves reaches 2^63 - 1); Node's Buffer-free runtime is fine.
protoc \
  --plugin=protoc-gen-ts_proto="$plugin" \
  --ts_proto_out="$out" \
  --ts_proto_opt=outputServices=grpc-js \
  --ts_proto_opt=env=node \
  --ts_proto_opt=esModuleInterop=true \
  --ts_proto_opt=forceLong=bigint \
  --ts_proto_opt=useExactTypes=false \
  -I "$halma_proto_dir" -I "$grpc_proto_dir" \
  halma/v1/halma.proto grpc/health/v1/health.proto
