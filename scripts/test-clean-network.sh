#!/usr/bin/env bash
# Runs `npm test` where nothing listens on loopback (a network namespace of its own: no PostgreSQL
# on 5432, no Redis on 6379), proving that the test command provides them itself. Root only
# (unshare -n). Extra arguments go to jest, e.g. `scripts/test-clean-network.sh test/db`.
set -euo pipefail
cd "$(dirname "$0")/.."
exec unshare -n bash -c '
  ip link set lo up
  if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then echo "5432 answers inside the namespace" >&2; exit 1; fi
  if (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then echo "6379 answers inside the namespace" >&2; exit 1; fi
  echo "network namespace: nothing listens on 127.0.0.1:5432 or :6379"
  npm test -- "$@"
' bash "$@"
