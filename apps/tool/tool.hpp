// The carry tool's shared pieces: subcommand entry points, CUDA checks, option parsing, GPU banner.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

/// A positive item count from `v` (64-bit: > 2^31 works); names the option and the value it refused.
bool parse_count(const char* option, const std::string& v, std::int64_t& n);

/// A whole number lo..hi from `v`; names the option and the value it refused.
bool parse_int(const char* option, const std::string& v, int lo, int hi, int& out);

/// Prints the GPU line; false (after saying why) when there is none.
bool print_gpu();

/// The value after option argv[i] of `carry <cmd>` (i moves past it); exits with status 2, naming the
/// option, when there is none.
std::string option_value(const std::string& cmd, int argc, char** argv, int& i);

/// Says that `carry <cmd>` does not know `option`; returns the usage exit status (2).
int unknown_option(const std::string& cmd, const std::string& option);

/// Reads raw binary `path` of `type_name` values of `elem_bytes` bytes each into `bytes` (whole values
/// only); false after saying why.
bool read_raw(const std::string& cmd, const std::string& path, std::size_t elem_bytes, const char* type_name,
              std::vector<char>& bytes);

} // namespace carry_tool
