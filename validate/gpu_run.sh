#!/usr/bin/env bash
# One device session: build, full GPU test suite, compute-sanitizer runs, benchmark; logs under $OUT.
# usage: validate/gpu_run.sh [stages...]   stages: build test appstest radixtest sanitize bench compactbench appsbench
#        radixbench radixprofile radixtimeline radixtune radixncu quickbench tune demo   (default: all but tune, appstest,
#        radixtest, radixprofile, radixtimeline, radixtune, radixncu, quickbench; CARRY_CMAKE_ARGS=-DCMAKE_CUDA_FLAGS=-lineinfo: source lines in profiles)
#        CTEST_JOBS=4: the test stage runs four tests at once (the suite took 148 s so on the H100 against
#        437 s one at a time); with CARRY_CMAKE_ARGS="-DCARRY_BUILD_BENCH=OFF -DCARRY_BUILD_APPS=OFF" the
#        build stage builds the 29 tests alone (a validation run on a short device budget)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/carry-out}
mkdir -p "$OUT"
export CMAKE_PREFIX_PATH=$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export JOBS=${JOBS:-16}
stages=${*:-build test sanitize bench compactbench appsbench radixbench demo}
status=0
has() { [[ " $stages " == *" $1 "* ]]; }
step() { echo "== $1: $(date +%T)"; }

build_tune() {  # target [cmake args]: the tuning sweep's target in build/ (configured here if the build stage did not)
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARRY_BUILD_TUNE=ON "${@:2}" >>"$OUT/build.log" 2>&1 &&
    cmake --build build -j "$JOBS" --target "$1" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
}

if has build; then
  step build
  CARRY_CMAKE_ARGS="-DCARRY_BUILD_TUNE=$(has tune && echo ON || echo OFF) ${CARRY_CMAKE_ARGS:-}" ./build.sh test -N >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
  grep -E "warning|error" "$OUT/build.log" | head -5
  [ -x build/validate/carry_tune ] || { has tune && cmake --build build --target carry_tune >>"$OUT/build.log" 2>&1; }
fi
if has test; then
  step test
  (cd build && ctest --output-on-failure -j "${CTEST_JOBS:-1}" --timeout 900) >"$OUT/test.log" 2>&1 || status=1
  tail -25 "$OUT/test.log"
fi
if has sanitize; then
  step sanitize
  # a separate build with line information, so that any report names its source line
  # (and mid-size radix tiles only up to 2^14 keys, so that the capped radix sizes meet both onesweep tiles;
  # the bucket form runs on the mid tiles only: SANITIZE_MID_MAX_LOG2= (empty) keeps them, with
  # SANITIZE_ONLY="test_radix_keys:sort_keys:+mid+sizes* test_radix_pairs:sort_pairs:+mid+sizes*")
  BUILD_DIR=build-san CARRY_CMAKE_ARGS="-DCMAKE_CUDA_FLAGS=-lineinfo -DCARRY_BUILD_BENCH=OFF -DCARRY_BUILD_APPS=OFF -DCARRY_TEST_MID_MAX_LOG2=${SANITIZE_MID_MAX_LOG2-14}" \
    ./build.sh test -N >"$OUT/build-san.log" 2>&1 || { tail -30 "$OUT/build-san.log"; exit 1; }
  # Sanitizers slow kernels 10-100x: sizes up to 150000 (several tiles of every policy, both passes).
  export CARRY_TEST_MAX_N=${CARRY_TEST_MAX_N:-150000} # the caller's, when set (SANITIZE_ONLY runs of the radix tests: 20000)
  : >"$OUT/sanitize.log"
  run_tool() {  # tool exe [filter]
    echo "--- $1 $2 ${3:-}" >>"$OUT/sanitize.log"
    if [ -n "${3:-}" ]; then
      compute-sanitizer --tool "$1" --error-exitcode 9 "build-san/validate/$2" "$3" >>"$OUT/sanitize.log" 2>&1
    else
      compute-sanitizer --tool "$1" --error-exitcode 9 "build-san/validate/$2" >>"$OUT/sanitize.log" 2>&1
    fi || { status=1; echo "FAILED $1 $2 ${3:-}"; }
  }
  for tool in ${SANITIZERS:-memcheck racecheck synccheck}; do
    if [ -n "${SANITIZE_ONLY:-}" ]; then # "exe[:filter] ..." instead of the whole list; '+' in a filter is a space
      for t in $SANITIZE_ONLY; do run_tool $tool "${t%%:*}" "$( [[ $t == *:* ]] && echo "${t#*:}" | tr + ' ' )"; done
      echo "$tool done $(date +%T)"
      continue
    fi
    run_tool $tool test_block_coarsened
    run_tool $tool test_block_trees
    run_tool $tool test_block_kogge_stone
    run_tool $tool test_block_multisplit
    run_tool $tool test_scan_int_wide "device scan uint32"
    run_tool $tool test_scan_int_narrow "device scan uint8"
    run_tool $tool test_scan_custom
    run_tool $tool test_scan_variants
    run_tool $tool test_scan_small
    run_tool $tool test_scan_staged
    run_tool $tool test_scan_api "worked examples*"
    run_tool $tool test_scan_api "bad arguments*"
    run_tool $tool test_scan_api "public entry points*"
    run_tool $tool test_scan_api "reduce*"
    run_tool $tool test_scan_api "temp storage reused*"
    run_tool $tool test_scan_graph
    run_tool $tool test_lookback
    run_tool $tool test_compact_select
    run_tool $tool test_compact_partition
    run_tool $tool test_compact_graph
    run_tool $tool test_apps_histogram
    run_tool $tool test_apps_bin
    run_tool $tool test_apps_slots
    run_tool $tool test_apps_graph
    # the radix tests sort every size through three pass structures: under racecheck 70000 keys took
    # over 240 s (h100-sanitize-radix.txt), so they run up to 20000 (4 tiles and more of every path)
    CARRY_TEST_MAX_N=25000 run_tool $tool test_radix_keys "sort_keys u32 and f32*"
    CARRY_TEST_MAX_N=20000 run_tool $tool test_radix_keys "sort_keys: distributions*"
    CARRY_TEST_MAX_N=20000 run_tool $tool test_radix_keys "sort_keys: n = 0*"
    CARRY_TEST_MAX_N=25000 run_tool $tool test_radix_pairs "sort_pairs u32 keys*"
    CARRY_TEST_MAX_N=20000 run_tool $tool test_radix_pairs "double-buffer*"
    CARRY_TEST_MAX_N=70000 run_tool $tool test_radix_graph
    echo "$tool done $(date +%T)"
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
fi
if has tune; then
  step tune
  build/validate/carry_tune ${TUNE_ARGS:-} 2>&1 | tee "$OUT/tune.log"
fi
if has radixtune; then # radix tuning variants (target carry_tune_radix, validate/CMakeLists.txt) on the build stage's tree:
  # RADIX_VARIANTS="base;t384" (else the CMake default list), RADIX_ROUNDS=2 (rounds, variants alternating),
  # CARRY_TUNE_SIZES="18 24 26" (only those sizes); without the build stage it configures build/ itself
  step radixtune
  build_tune carry_tune_radix ${RADIX_VARIANTS:+"-DCARRY_TUNE_RADIX_VARIANTS=$RADIX_VARIANTS"}
  : >"$OUT/tune-radix.log"
  for r in $(seq "${RADIX_ROUNDS:-1}"); do
    if [ -n "${RADIX_VARIANTS:-}" ]; then exes=""; for v in ${RADIX_VARIANTS//;/ }; do exes="$exes build/validate/carry_tune_radix_$v"; done
    else exes=$(ls build/validate/carry_tune_radix_*); fi
    for exe in $exes; do "$exe" >>"$OUT/tune-radix.log" 2>&1 || status=1; done
  done
  grep -E "MISMATCH|2\^2[46]" "$OUT/tune-radix.log"
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
bench_stage() {  # stage exe: runs build/validate/<exe> with its CSV and table under $OUT
  if has "$1"; then
    step "$1"
    "build/validate/$2" --csv "$OUT/${2#carry_}.csv" >"$OUT/${2#carry_}.txt" 2>"$OUT/${2#carry_}.err" || status=1
    tail -3 "$OUT/${2#carry_}.err"
  fi
}
bench_stage compactbench carry_bench_compact
bench_stage appsbench carry_bench_apps
bench_stage radixbench carry_bench_radix
test_stage() {  # stage regex log: the ctest entries matching regex (and the CPU tests)
  if has "$1"; then
    step "$1"
    (cd build && ctest --output-on-failure -j 1 --timeout 1800 -R "$2|cpu_tests") >"$OUT/$3" 2>&1 || status=1
    tail -15 "$OUT/$3"
  fi
}
test_stage radixtest test_radix test_radix.log
test_stage appstest test_apps test_apps.log
if has radixncu; then # carry's and CUB's onesweep passes side by side (u32 2^24, third pass; tune variant `base`):
  # DRAM bytes, L2 sectors and their misses by reads and writes, instructions (what limits the pairs pass)
  step radixncu
  build_tune carry_tune_radix_base
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum
  M=$M,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
  M=$M,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,smsp__inst_executed.sum
  : >"$OUT/ncu-radix.txt"
  # carry's kernels by their mangled names (template arguments: items, has values, key, value), CUB's demangled
  for k in "carry pairs:mangled:regex:onesweep_kernelILi${NCU_PAIRS_ITEMS:-24}ELb1Ejj" \
           "carry keys:mangled:regex:onesweep_kernelILi${NCU_KEYS_ITEMS:-24}ELb0Ej" \
           "cub pairs:demangled:regex:OnesweepKernel<.*unsigned int, unsigned int" \
           "cub keys:demangled:regex:OnesweepKernel<.*unsigned int, cub::.*NullType"; do
    name=${k%%:*} rest=${k#*:}
    echo "== $name u32 2^24, third pass" >>"$OUT/ncu-radix.txt"
    CARRY_TUNE_SIZES=24 ncu --clock-control none --kernel-name-base "${rest%%:*}" -k "${rest#*:}" -s 2 -c 1 --metrics "$M" \
      build/validate/carry_tune_radix_base 2>&1 | grep -vE "^base " | tail -14 >>"$OUT/ncu-radix.txt" || status=1
  done
  tail -20 "$OUT/ncu-radix.txt"
fi
if has radixprofile; then # Nsight Compute of one onesweep pass (u32, 2^24), with per-instruction counts
  step radixprofile
  ncu --clock-control none -k regex:onesweep_kernel -s 4 -c 1 --set full --import-source yes -o "$OUT/onesweep" \
    build/apps/carry sort --n 16777216 --reps 2 >"$OUT/ncu.log" 2>&1 || status=1
  ncu -i "$OUT/onesweep.ncu-rep" --page details >"$OUT/onesweep-details.txt" 2>&1
  ncu -i "$OUT/onesweep.ncu-rep" --page source --csv --print-source sass >"$OUT/onesweep-sass.csv" 2>&1
  tail -3 "$OUT/ncu.log"
fi
if has radixtimeline; then # per-kernel durations (ncu, cold caches) of one carry sort and one CUB sort per input
  step radixtimeline
  if [ ! -x build/apps/carry ]; then # the tool alone when the build stage did not run
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${CARRY_CMAKE_ARGS:-} >>"$OUT/build.log" 2>&1 &&
      cmake --build build -j "$JOBS" --target carry >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  fi
  : >"$OUT/timeline.csv"
  for spec in ${TIMELINE_SPECS:-uniform:0 sorted:0 equal:0 two:0 uniform:4}; do
    d=${spec%%:*} v=${spec#*:}
    echo "# data $d values $v n ${TIMELINE_N:-67108864}" >>"$OUT/timeline.csv"
    ncu --clock-control none --metrics gpu__time_duration.sum --csv \
      build/apps/carry sort --n "${TIMELINE_N:-67108864}" --data "$d" --values "$v" --reps 1 >>"$OUT/timeline.csv" 2>>"$OUT/timeline.err" || status=1
  done
  tail -3 "$OUT/timeline.err"
fi
if has demo; then
  step demo
  ./build.sh demo >"$OUT/demo.log" 2>&1 || status=1
  tail -12 "$OUT/demo.log"
fi
step done
exit $status
