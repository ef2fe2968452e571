// The carry tool's shared pieces: subcommand entry points, CUDA checks, option parsing, GPU banner.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(x)                                                                                        \
  do {                                                                                                       \
    cudaError_t e_ = (x);                                                                                    \
    if (e_ != cudaSuccess) {                                                                                 \
      std::fprintf(stderr, "carry: CUDA error %s: %s\n", cudaGetErrorName(e_), #x);                          \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

namespace carry_tool {

/// Subcommands: argv holds the arguments after the subcommand's name.
int scan_main(int argc, char** argv);
int compact_main(const std::string& primitive, int argc, char** argv);
/// `carry histogram | bin | slots`.
int apps_main(const std::string& primitive, int argc, char** argv);
/// `carry sort`.
int sort_main(int argc, char** argv);
/// `carry runs`: the keyed calls.
int keyed_main(int argc, char** argv);
/// `carry dist`: the distributed calls over the local GPUs (dist_cmd.cu with NCCL, else dist_absent.cu).
int dist_main(int argc, char** argv);

/// A count of `what` lo..hi from `v` (64-bit: > 2^31 works); names the option, what it counts and the value
/// it refused.
bool parse_count(const char* option, const std::string& v, std::int64_t& n, const char* what = "items",
                 std::int64_t lo = 1, std::int64_t hi = INT64_MAX);

/// A whole number lo..hi from `v`; names the option and the value it refused.
bool parse_int(const char* option, const std::string& v, int lo, int hi, int& out);

/// Prints the GPU line; false (after saying why) when there is none.
bool print_gpu();

/// One option of a subcommand: its spelling, whether a value follows it, and what takes the value (a flag
/// gets ""); `set` returns false after saying why the value is refused.
struct option_spec {
  const char* name;
  bool takes_value;
  std::function<bool(const std::string&)> set;
};
/// Option makers for the common shapes: a flag, a text, a count (of items by default), a whole number lo..hi.
option_spec flag(const char* name, bool& out, bool value = true); // sets out to value
option_spec text(const char* name, std::string& out);
option_spec count(const char* name, std::int64_t& out, const char* what = "items", std::int64_t lo = 1,
                  std::int64_t hi = INT64_MAX);
option_spec whole(const char* name, int lo, int hi, int& out);

/// The one option parser of every subcommand: matches argv against `specs` (`--help`/`-h` print `help`).
/// Returns -1 when the command should run, else the exit status (0 after --help, 2 for bad usage, after
/// saying what was wrong).
int parse_options(const std::string& cmd, const std::string& help, const std::vector<option_spec>& specs,
                  int argc, char** argv);

/// Reads raw binary `path` of `type_name` values of `elem_bytes` bytes each into `bytes` (whole values
/// only); false after saying why.
bool read_raw(const std::string& cmd, const std::string& path, std::size_t elem_bytes, const char* type_name,
              std::vector<char>& bytes);

} // namespace carry_tool
