// The benchmarks' shared command line (--min-log2, --max-log2, --op, --csv and their own extras) and start
// (no GPU: say so and exit; else the banner).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/baselines/baselines.hpp"
#include "tests/common/gpu.cuh"

namespace carry_validate {

struct bench_args {
  int min_log2, max_log2;
  std::string csv, only;
};

/// Parses argv into `b` (its fields hold the defaults); `extra(option, i)` takes the benchmark's own
/// options (true: taken; it may advance i past a value). Returns -1 to go on, else the exit status (the
/// usage line printed: 0 for --help, 2 otherwise). Then checks for a GPU and prints the banner.
template <class Extra>
int bench_start(const char* name, const char* usage, int argc, char** argv, bench_args& b, Extra extra) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--min-log2" && i + 1 < argc)
      b.min_log2 = std::atoi(argv[++i]);
    else if (a == "--max-log2" && i + 1 < argc)
      b.max_log2 = std::atoi(argv[++i]);
    else if (a == "--csv" && i + 1 < argc)
      b.csv = argv[++i];
    else if (a == "--op" && i + 1 < argc)
      b.only = argv[++i];
    else if (!extra(a, i)) {
      std::printf("usage: %s %s\n", name, usage);
      return a == "--help" ? 0 : 2;
    }
  }
  if (!gpu_present()) {
    std::printf("%s: no CUDA-capable GPU found\n", name);
    return skip_return_code;
  }
  print_bench_banner(cccl_version());
  return -1;
}

} // namespace carry_validate
