#!/usr/bin/env bash
# carry's build driver (RAPIDS style): ./build.sh [test|demo|bench|plot|format|clean] — see ./build.sh --help.
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
say() { printf '\n==> %s\n' "$*"; }

usage() {
  cat <<'USAGE'
usage: ./build.sh <verb> [args for the program it runs]
  test    configure, build everything, run ctest (GPU tests report "skipped" without a GPU)
  demo    build and run the carry tool on its built-in data set (scan, select, partition, unique,
          histogram and offsets, bin, slots, sort of the binned keys), each checked against CUB, with a
          table of throughputs; with two or more GPUs and NCCL, carry dist (scan, select, histogram, sort)
  bench   build and run the benchmarks (scan: carry vs CUB, Thrust, memcpy; compaction, histograms,
          binning, slots, radix sort: carry vs CUB, memcpy); CSV in $BUILD_DIR/bench*.csv
  sanitize  compute-sanitizer memcheck, racecheck and synccheck over every GPU test binary (a -lineinfo
          build in build-san/, the suite's sanitizer mode: CARRY_TEST_SANITIZE=1; SANITIZERS, SANITIZE_TIMEOUT)
  plot    charts of the benchmark CSVs in validate/results/ (PNG, validate/results/charts/) and the README's
          speed table, with matplotlib (installs Debian's python3-matplotlib when missing)
  format  clang-format every source file in place
  clean   remove $BUILD_DIR
Environment: BUILD_DIR (build), JOBS (nproc), CMAKE_PREFIX_PATH (honoured, e.g. for a staged Catch2),
CMAKE_CUDA_ARCHITECTURES (default: native with a GPU, else 90), CARRY_CMAKE_ARGS (extra cmake args).
USAGE
}

have_catch2() {
  local dirs=() p
  IFS=':' read -r -a dirs <<<"${CMAKE_PREFIX_PATH:-}"
  for p in "${dirs[@]}" /usr /usr/local; do
    [ -n "$p" ] || continue
    for sub in lib/cmake lib64/cmake share/cmake lib/x86_64-linux-gnu/cmake lib/aarch64-linux-gnu/cmake; do
      [ -f "$p/$sub/Catch2/Catch2Config.cmake" ] && return 0
    done
  done
  return 1
}

ensure_catch2() {
  if have_catch2; then return 0; fi
  say "Catch2 v2 not found: installing the Debian package catch2"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if command -v apt-get >/dev/null; then
    $sudo apt-get update -qq && $sudo apt-get install -y -qq catch2 && return 0
  fi
  echo "build.sh: cannot install Catch2 here; install Catch2 v2 or point CMAKE_PREFIX_PATH at it" >&2
  exit 1
}

configure() { # [cmake -D args]: configures $BUILD_DIR (the first time with CARRY_CMAKE_ARGS), then applies the args
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    say "configuring into $BUILD_DIR (CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-unset})"
    # shellcheck disable=SC2086
    cmake -S . -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${CARRY_CMAKE_ARGS:-} "$@"
  elif [ $# -gt 0 ]; then
    cmake -S . -B "$BUILD_DIR" "$@" >/dev/null
  fi
}

build() {
  say "building ${*:-everything} with $JOBS jobs"
  if [ $# -gt 0 ]; then
    cmake --build "$BUILD_DIR" -j "$JOBS" --target "$@"
  else
    cmake --build "$BUILD_DIR" -j "$JOBS"
  fi
}

verb=${1:-help}
shift || true
case "$verb" in
  test)
    ensure_catch2
    configure -DCARRY_BUILD_TESTS=ON
    build
    say "running the tests (ctest)"
    ctest --test-dir "$BUILD_DIR" --output-on-failure "$@"
    ;;
  demo)
    configure -DCARRY_BUILD_TESTS=OFF -DCARRY_BUILD_APPS=ON # the tool alone: no Catch2 needed
    build carry_tool
    tool="$BUILD_DIR/apps/carry"
    say "carry scan: 2^26 random u32, inclusive sum, also replayed as a CUDA graph, checked against CUB"
    log=$(mktemp)
    summary=$(mktemp)
    "$tool" scan --graph "$@" | tee "$log"
    binned=$(mktemp)
    record() { # step: the table rows of the tool's output in $log, as step|impl|us|rate|x_cub
      awk -v c="$1" '($1=="carry"||$1=="cub"||$1=="memcpy") && $2+0>0 {print c"|"$1"|"$2"|"$3"|"$NF}' "$log" >>"$summary"
    }
    record "scan (inclusive sum)"
    for cmd in "scan --from u8 --op exclusive_sum" "select --selectivity 50" "select --flags --selectivity 50" \
               "select --items indices --flags --flag-type i32 --selectivity 1" "partition --selectivity 50" "unique" \
               "histogram --bins 256" "bin --bins 256 --output $binned" "slots" "slots --capacity 250000000" \
               "sort --input $binned --values 4"; do
      say "carry $cmd (2^26 u32), checked against CUB (the bounded slots against the CPU)"
      # shellcheck disable=SC2086
      "$tool" $cmd | tee "$log"
      record "${cmd/$binned/binned}"
    done
    rm -f "$binned"
    say "summary: median us with a cold L2; GB/s of the bytes each must move (sort: G keys/s); x CUB where CUB has the same call"
    awk -F'|' '{ step[NR]=$1; impl[NR]=$2; us[NR]=$3; rate[NR]=$4; x[NR]=$5; if ($2=="cub") hascub[$1]=1
                 if (length($1) > w) w = length($1) }
      END { printf "%-*s %-7s %10s %10s %7s\n", w, "step", "impl", "us", "rate", "x CUB"
            for (i = 1; i <= NR; i++) {
              r = (impl[i]=="carry" && hascub[step[i]]) ? sprintf("%7.2f", x[i]) : sprintf("%7s", "-")
              printf "%-*s %-7s %10.1f %10.1f %s\n", w, step[i], impl[i], us[i], rate[i], r } }' "$summary"
    rm -f "$log" "$summary"
    # across GPUs: carry dist where NCCL was found and two or more GPUs are visible
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    if [ "${gpus:-0}" -ge 2 ] && grep -q '^NCCL_LIBRARY:FILEPATH=/' "$BUILD_DIR/CMakeCache.txt"; then
      for call in scan select histogram sort; do
        say "carry dist $call: 2^28 u32 over $gpus GPUs (NCCL), checked against one GPU's carry"
        NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} "$tool" dist "$call" --gpus "$gpus"
      done
    else
      say "carry dist (across GPUs): not run: ${gpus:-0} GPU(s) visible$(grep -q '^NCCL_LIBRARY:FILEPATH=/' "$BUILD_DIR/CMakeCache.txt" || echo ', carry built without NCCL')"
    fi
    ;;
  bench)
    configure -DCARRY_BUILD_BENCH=ON
    build carry_bench
    say "running the benchmark"
    "$BUILD_DIR/validate/carry_bench" --csv "$BUILD_DIR/bench.csv" "$@"
    build carry_bench_compact
    say "running the compaction benchmark"
    "$BUILD_DIR/validate/carry_bench_compact" --csv "$BUILD_DIR/bench_compact.csv"
    build carry_bench_apps
    say "running the histogram, binning and slots benchmark"
    "$BUILD_DIR/validate/carry_bench_apps" --csv "$BUILD_DIR/bench_apps.csv"
    build carry_bench_radix
    say "running the radix sort benchmark"
    "$BUILD_DIR/validate/carry_bench_radix" --csv "$BUILD_DIR/bench_radix.csv"
    ;;
  sanitize)
    ensure_catch2
    BUILD_DIR=build-san CARRY_CMAKE_ARGS="-DCMAKE_CUDA_FLAGS=-lineinfo -DCARRY_BUILD_BENCH=OFF -DCARRY_BUILD_APPS=OFF ${CARRY_CMAKE_ARGS:-}" \
      configure -DCARRY_BUILD_TESTS=ON
    BUILD_DIR=build-san build
    export CARRY_TEST_SANITIZE=1 # the suite's sanitizer mode: sizes capped (CARRY_TEST_MAX_N, 20000), repetitions thinned
    failed=0
    for tool in ${SANITIZERS:-memcheck racecheck synccheck}; do
      for exe in build-san/validate/test_*; do
        [ -x "$exe" ] || continue
        start=$(date +%s)
        if timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$exe" >build-san/sanitize-last.log 2>&1; then
          echo "ok $tool $(basename "$exe") $(($(date +%s) - start)) s"
        else
          rc=$?
          [ $rc = 124 ] && echo "TIMEOUT $tool $(basename "$exe") after ${SANITIZE_TIMEOUT:-600} s" ||
            { echo "FAILED $tool $(basename "$exe") (exit $rc)"; tail -30 build-san/sanitize-last.log; }
          failed=1
        fi
      done
    done
    exit $failed
    ;;
  plot)
    py=""
    for p in /usr/bin/python3 python3; do
      if command -v "$p" >/dev/null && "$p" -c 'import matplotlib' 2>/dev/null; then py=$p; break; fi
    done
    if [ -z "$py" ]; then
      say "matplotlib not found: installing the Debian package python3-matplotlib"
      sudo=""
      [ "$(id -u)" = 0 ] || sudo="sudo"
      $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-matplotlib
      py=/usr/bin/python3
    fi
    say "charting validate/results/*.csv into validate/results/charts/"
    csvs=()
    for f in scan compact keyed apps radix dist; do
      [ -f "validate/results/$f.csv" ] && csvs+=("validate/results/$f.csv")
    done
    "$py" validate/bench/plot.py validate/results/charts "${csvs[@]}"
    say "the README's speed table from the same CSVs"
    "$py" validate/bench/summary.py README.md
    ;;
  format)
    say "formatting with $(clang-format --version)"
    git ls-files '*.cu' '*.cuh' '*.hpp' '*.cpp' | xargs clang-format -i
    ;;
  clean)
    say "removing $BUILD_DIR"
    rm -rf "$BUILD_DIR"
    ;;
  help | --help | -h) usage ;;
  *)
    usage
    exit 2
    ;;
esac
