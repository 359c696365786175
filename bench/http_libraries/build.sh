#!/bin/bash
# Builds the four benchmark servers and the no-HTTP baseline into ./out
# (g++ -O2, Debian's packages only; installs them when missing).
set -euo pipefail
cd "$(dirname "$0")"

pkgs=(g++ libprotobuf-dev libcivetweb-dev libcpp-httplib-dev libmicrohttpd-dev
      libboost-dev wrk python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

mkdir -p out
CXX=(g++ -std=c++20 -O2 -DNDEBUG -Wall -Wextra -pthread)
PB=(-lprotobuf)
build() {  # build NAME LIBS...
  local name=$1; shift
  if [[ out/$name -nt $name.cc && out/$name -nt json_work.h ]]; then return; fi
  echo "building $name"
  nice "${CXX[@]}" -o "out/$name" "$name.cc" "$@" "${PB[@]}"
}
build baseline_json
build server_civetweb -lcivetweb
# Debian builds httplib as a library with TLS, zlib and brotli: use its flags
# so that the header declares what the library was built with.
read -ra HTTPLIB <<<"$(pkg-config --cflags --libs cpp-httplib)"
build server_httplib "${HTTPLIB[@]}"
build server_microhttpd -lmicrohttpd
build server_beast
