#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the whole test suite.
# Extra arguments go to pytest (e.g. -k jdbc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh" test
if command -v java >/dev/null && command -v mvn >/dev/null; then
  # The JDBC interop suite needs IBM's jar from Maven Central.
  bash "$root/scripts/jdbc-classpath.sh" >/dev/null
fi
cd "$root"
exec "$PY" -m pytest "$@"
