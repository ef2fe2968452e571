#!/usr/bin/env bash
# One device session: build, the full GPU suite, sanitizers, benchmarks, the demo; logs under $OUT.
# usage: validate/gpu_run.sh [stages...]
#   stages: build test sanitize bench compactbench keyedbench appsbench radixbench demo (default: all of them)
#   CTEST_JOBS=4: four tests at a time; SANITIZERS, CARRY_TEST_MAX_N, SANITIZE_TIMEOUT: see ./build.sh sanitize
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/carry-out}
mkdir -p "$OUT"
export CMAKE_PREFIX_PATH=$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export JOBS=${JOBS:-16}
stages=${*:-build test sanitize bench compactbench keyedbench appsbench radixbench demo}
status=0
has() { [[ " $stages " == *" $1 "* ]]; }
step() { echo "== $1: $(date +%T)"; }

if has build; then
  step build
  ./build.sh test -N >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
  grep -E "warning|error" "$OUT/build.log" | head -5
fi
if has test; then
  step test
  (cd build && ctest --output-on-failure -j "${CTEST_JOBS:-1}" --timeout 1800) >"$OUT/test.log" 2>&1 || status=1
  tail -40 "$OUT/test.log"
fi
if has sanitize; then
  step sanitize
  ./build.sh sanitize >"$OUT/sanitize.log" 2>&1 || status=1
  grep -E "^(ok|FAILED|TIMEOUT) " "$OUT/sanitize.log" | sort | uniq -c | sort -rn | head -5
  grep -E "^(FAILED|TIMEOUT) " "$OUT/sanitize.log"
fi
bench_stage() { # stage exe: runs build/validate/<exe> with its CSV and table under $OUT
  if has "$1"; then
    step "$1"
    "build/validate/$2" --csv "$OUT/${2#carry_}.csv" >"$OUT/${2#carry_}.txt" 2>"$OUT/${2#carry_}.err" || status=1
    tail -3 "$OUT/${2#carry_}.err"
  fi
}
if has bench || has compactbench || has keyedbench || has appsbench || has radixbench; then
  cmake --build build -j "$JOBS" --target carry_bench carry_bench_compact carry_bench_keyed carry_bench_apps carry_bench_radix \
    >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
bench_stage bench carry_bench
bench_stage compactbench carry_bench_compact
bench_stage keyedbench carry_bench_keyed
bench_stage appsbench carry_bench_apps
bench_stage radixbench carry_bench_radix
if has demo; then
  step demo
  ./build.sh demo >"$OUT/demo.log" 2>&1 || status=1
  tail -30 "$OUT/demo.log"
fi
step done
exit $status
