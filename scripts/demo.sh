#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the demo: an embedded
# emulator, a large table loaded and streamed back, rows/s and memory printed.
# Extra arguments go to the demo (e.g. --rows 100000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh" test
exec "$PY" "$root/scripts/demo.py" "$@"
