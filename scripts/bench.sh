#!/usr/bin/env bash
# Sets everything up and runs every benchmark, regenerating the committed
# tables and plots (bench/memory/RESULTS.md + PNGs + memray outputs,
# bench/throughput/STRATEGIES.md) and comparing pytest-benchmark against the
# stored baseline.  About ten minutes on two cores against the emulator.
#
#   scripts/bench.sh                  everything
#   scripts/bench.sh --quick          CI-sized: memory --check, one small strategy run,
#                                     benchmarks without comparison; writes nothing
#   scripts/bench.sh --save-baseline  everything, then store the pytest-benchmark
#                                     run as the new baseline instead of comparing
#
# Set IFX_HOST (and IFX_PORT, IFX_USER, IFX_PASSWORD, IFX_DATABASE, IFX_SERVER)
# to measure a real Informix server instead of the emulator.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh" bench
cd "$root"

mode=${1:-full}
storage=bench/throughput/baseline
total=3
step() { printf '\n==> [%s/%s] %s (%s)\n' "$1" "$total" "$2" "$(date +%H:%M:%S)" >&2; }

case "$mode" in
  --quick)
    step 1 "memory: bounded-memory check at 20k and 60k rows"
    "$PY" bench/memory/run.py --check
    step 2 "read strategies at 100k rows, one run"
    "$PY" bench/throughput/strategy_lab.py --sizes 100000 --runs 1 --no-write
    step 3 "pytest-benchmark suites"
    "$PY" -m pytest bench/throughput/test_throughput.py --benchmark-only -q
    ;;
  full|--save-baseline)
    step 1 "memory: 100k, 250k, 500k and 1M rows per consumer, then memray"
    "$PY" bench/memory/run.py
    step 2 "read strategies at 100k, 500k and 1M rows, median of 3"
    "$PY" bench/throughput/strategy_lab.py
    step 3 "pytest-benchmark suites"
    if [ "$mode" = --save-baseline ]; then
      "$PY" -m pytest bench/throughput/test_throughput.py --benchmark-only \
        --benchmark-storage="$storage" --benchmark-save=baseline
    else
      "$PY" -m pytest bench/throughput/test_throughput.py --benchmark-only \
        --benchmark-storage="$storage" --benchmark-compare \
        --benchmark-compare-fail=median:25%
    fi
    ;;
  *)
    echo "usage: scripts/bench.sh [--quick | --save-baseline]" >&2
    exit 2
    ;;
esac
printf '\n==> done (%s)\n' "$(date +%H:%M:%S)" >&2
