#!/usr/bin/env bash
# The API gate over proto/ (buf, from the npm package @bufbuild/buf in
# tools/): buf lint with the standard rules (proto/buf.yaml names the one
# exception and why), buf format, and buf breaking against the image of the
# released halma.v1 API (proto/released/halma.v1.binpb), so that platforms
# can upgrade the service without rebuilding their clients. Then it checks
# that the gate can fail: a copy of the API with a field renamed must be
# refused as breaking.
set -euo pipefail
cd "$(dirname "$0")/.."
BUF="${BUF:-tools/node_modules/.bin/buf}"
if [ ! -x "$BUF" ]; then
  echo "api-check: $BUF missing: run npm ci --prefix tools" >&2
  exit 1
fi
RELEASED=proto/released/halma.v1.binpb

"$BUF" lint proto
"$BUF" format proto --diff --exit-code
"$BUF" breaking proto --against "$RELEASED"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp -r proto "$scratch/proto"
sed -i 's/string position_after = 6;/string position_afterwards = 6;/' \
  "$scratch/proto/halma/v1/halma.proto"
if grep -q position_afterwards "$scratch/proto/halma/v1/halma.proto" &&
  "$BUF" breaking "$scratch/proto" --against "$RELEASED" \
    >"$scratch/breaking.txt" 2>&1; then
  echo "api-check: a renamed field was not reported as breaking" >&2
  exit 1
fi
grep -q 'position_after' "$scratch/breaking.txt" || {
  echo "api-check: unexpected buf breaking output:" >&2
  cat "$scratch/breaking.txt" >&2
  exit 1
}
echo "api-check: lint, format and breaking (against $RELEASED) passed"
