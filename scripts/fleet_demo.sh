#!/usr/bin/env bash
# The fleet cache in one minute (docs/fleet.md): starts a redis-server on a
# free loopback port (127.0.0.1 only, no persistence), then
#  1. two processes with empty local caches compile one module at the
#     same time, sharding its fusions through Redis: each tunes about
#     half, and both end with every fusion's config;
#  2. a third process, also with an empty local cache, finds everything on
#     the server and tunes nothing;
#  3. `xtune cache stats` reads the server, and `xtune cache convert` pulls
#     it back into a file (what a hermetic test suite loads).
# Stops the server at the end. Needs `make build` and redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
xtune=build/xtune
module=${1:-tests/data/all_ops.hlo}
command -v redis-server >/dev/null || { echo "fleet_demo: redis-server is not installed (scripts/install_deps.sh)" >&2; exit 1; }
[ -x "$xtune" ] || { echo "fleet_demo: build first (make build)" >&2; exit 1; }
out=out/fleet_demo
rm -rf "$out" && mkdir -p "$out"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
  --logfile "" > "$out/redis.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  (echo PING > /dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
  sleep 0.1
done
url="redis://127.0.0.1:$port"
summary() { grep -o 'autotuning: .*' "$1" | sed 's/^autotuning: //'; }
echo "== redis-server on $url"

echo "== 1. two processes with empty local caches, together (sharded)"
for p in a b; do
  "$xtune" compile "$module" --xtune_autotune_cache_remote="$url" > /dev/null 2> "$out/$p.log" &
done
wait %2 %3 2>/dev/null || wait
for p in a b; do echo "   $p: $(summary "$out/$p.log")"; done

echo "== 2. a third process: everything from the server"
"$xtune" compile "$module" --xtune_autotune_cache_remote="$url" > /dev/null 2> "$out/c.log"
echo "   c: $(summary "$out/c.log")"

echo "== 3. the server's entries, and back into a file"
"$xtune" cache stats "$url" | sed 's/^/   /'
"$xtune" cache convert "$url" "$out/fleet_cache.textproto" | sed 's/^/   /'
