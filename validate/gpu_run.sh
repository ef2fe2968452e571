#!/usr/bin/env bash
# One device session: build, full GPU test suite, compute-sanitizer runs, benchmark; logs under $OUT.
# usage: validate/gpu_run.sh [stages...]   stages: build test sanitize bench quickbench tune demo (default: all but tune)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/carry-out}
mkdir -p "$OUT"
export CMAKE_PREFIX_PATH=$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export JOBS=${JOBS:-16}
stages=${*:-build test sanitize bench demo}
status=0
has() { [[ " $stages " == *" $1 "* ]]; }
step() { echo "== $1: $(date +%T)"; }

if has build; then
  step build
  CARRY_CMAKE_ARGS="-DCARRY_BUILD_TUNE=$(has tune && echo ON || echo OFF)" ./build.sh test -N >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
  grep -E "warning|error" "$OUT/build.log" | head -5
  [ -x build/validate/carry_tune ] || { has tune && cmake --build build --target carry_tune >>"$OUT/build.log" 2>&1; }
fi
if has test; then
  step test
  (cd build && ctest --output-on-failure -j 1 --timeout 900) >"$OUT/test.log" 2>&1 || status=1
  tail -25 "$OUT/test.log"
fi
if has sanitize; then
  step sanitize
  : >"$OUT/sanitize.log"
  for t in test_block_coarsened test_block_trees test_block_kogge_stone; do
    for tool in memcheck racecheck; do
      echo "--- $tool $t" >>"$OUT/sanitize.log"
      compute-sanitizer --tool $tool --error-exitcode 9 build/validate/$t >>"$OUT/sanitize.log" 2>&1 || { status=1; echo "FAILED $tool $t"; }
    done
  done
  # device scans: every mode on a reduced set of cases (sanitizers slow kernels down 10-100x)
  for tool in memcheck racecheck synccheck; do
    for filter in "device scan uint32" "device scan of affine maps (8 bytes, composition)" "device scan of 2x2 matrices (16 bytes, product)" "device scan uint8" "reduce*" "worked examples*" "bad arguments*" "single pass: many*" "hierarchical pass with*"; do
      exe=build/validate/test_scan_int_wide
      case "$filter" in *affine*|*matrices*) exe=build/validate/test_scan_custom;; "device scan uint8") exe=build/validate/test_scan_int_narrow;; reduce*|worked*|bad*|single*) exe=build/validate/test_scan_api;; hierarchical*) exe=build/validate/test_scan_variants;; esac
      echo "--- $tool $exe \"$filter\"" >>"$OUT/sanitize.log"
      compute-sanitizer --tool $tool --error-exitcode 9 $exe "$filter" >>"$OUT/sanitize.log" 2>&1 || { status=1; echo "FAILED $tool $exe $filter"; }
    done
  done
  grep -E "ERROR SUMMARY|FAILED|All tests passed|test cases" "$OUT/sanitize.log" | sort | uniq -c | head -20
fi
if has tune; then
  step tune
  build/validate/carry_tune 2>&1 | tee "$OUT/tune.log"
fi
if has quickbench; then
  step quickbench
  build/validate/carry_bench --quick --csv "$OUT/bench.csv" >"$OUT/bench.txt" 2>"$OUT/bench.err" || status=1
  tail -5 "$OUT/bench.err"
fi
if has bench; then
  step bench
  build/validate/carry_bench --csv "$OUT/bench.csv" >"$OUT/bench.txt" 2>"$OUT/bench.err" || status=1
  tail -3 "$OUT/bench.err"
fi
if has demo; then
  step demo
  ./build.sh demo >"$OUT/demo.log" 2>&1 || status=1
  tail -12 "$OUT/demo.log"
fi
step done
exit $status
