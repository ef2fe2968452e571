#!/usr/bin/env bash
# carry's build driver (RAPIDS style): ./build.sh [test|demo|bench|format|clean] — see ./build.sh --help.
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
say() { printf '\n==> %s\n' "$*"; }

usage() {
  cat <<'USAGE'
usage: ./build.sh <verb> [args for the program it runs]
  test    configure, build everything, run ctest (GPU tests report "skipped" without a GPU)
  demo    build and run the carry tool on its built-in data set, checked against CUB
  bench   build and run the benchmark (carry vs CUB, Thrust, memcpy); CSV in $BUILD_DIR/bench.csv
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

configure() {
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    say "configuring into $BUILD_DIR (CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-unset})"
    # shellcheck disable=SC2086
    cmake -S . -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${CARRY_CMAKE_ARGS:-}
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
    configure
    build
    say "running the tests (ctest)"
    ctest --test-dir "$BUILD_DIR" --output-on-failure "$@"
    ;;
  demo)
    ensure_catch2
    configure
    build carry_tool
    say "running carry on its default data set (2^26 random u32, inclusive sum, also replayed as a CUDA graph), checked against CUB"
    "$BUILD_DIR/apps/carry" --graph "$@"
    ;;
  bench)
    ensure_catch2
    configure
    build carry_bench
    say "running the benchmark"
    "$BUILD_DIR/validate/carry_bench" --csv "$BUILD_DIR/bench.csv" "$@"
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
