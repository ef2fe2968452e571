// The carry tool: runs carry's primitives on a data set, checks each against CUB, prints throughput.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "bench/baselines/baselines.hpp"
#include "carry_tool_version.hpp"
#include "tool.hpp"

namespace {

const char* usage =
    "\n"
    "usage: carry <command> [options]      (carry <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  scan       prefix sums (inclusive or exclusive) of a data set\n"
    "  select     keep the items a predicate (or a flag array) selects, in order\n"
    "  partition  selected items first, then the others, both in input order (stable)\n"
    "  unique     keep the first item of each run of equal items\n"
    "  runs       the keyed calls on keys in runs: reduce by key, run-length encoding, unique by key,\n"
    "             scan by key\n"
    "  histogram  count samples into bins (and the bins' offsets: the histogram's exclusive scan)\n"
    "  bin        counting sort: keys (and values) into buckets, stably, with the bucket offsets\n"
    "  slots      each item asks for slots of one buffer and gets its offset (optionally bounded)\n"
    "  sort       radix sort of keys or key-value pairs (any key type, descending, a bit range), stable\n"
    "  dist       scan, select, histogram or sort across this machine's GPUs (NCCL), against one GPU's carry\n"
    "\n"
    "options every command takes:\n"
    "  --n N            items to generate (default 2^26; more than 2^31 works)\n"
    "  --input FILE     raw binary items of the command's type instead of generated ones\n"
    "  --algorithm A    auto (default: the library's choice) or the command's named forms\n"
    "  --reps R         timed launches after warm-up (the median is reported)\n"
    "  --csv            print the timings as CSV\n"
    "  --help           the command's options\n"
    "carry --version    carry's version, CUDA's and CCCL's\n"
    "\n"
    "Each command checks carry's result against CUB (or the CPU where CUB has no such call) and prints\n"
    "the time of carry, of CUB and of a device copy of the same bytes, the bandwidth, the fraction of\n"
    "copy bandwidth and the ratio to CUB.\n"
    "\n"
    "exit status: 0 checked and timed; 1 mismatch against CUB or CUDA error; 2 bad usage or no GPU\n";

void print_usage() {
  std::printf("carry %s - scan-based parallel primitives on the GPU, each checked against CUB\n%s",
              carry_tool::version, usage);
}

} // namespace

namespace carry_tool {

bool parse_count(const char* option, const std::string& v, std::int64_t& n, const char* what, std::int64_t lo,
                 std::int64_t hi) {
  char* end = nullptr;
  n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) {
    std::fprintf(stderr, "carry: %s takes a whole number of %s %lld..%lld, not '%s'\n", option, what,
                 static_cast<long long>(lo), static_cast<long long>(hi), v.c_str());
    return false;
  }
  return true;
}

bool parse_int(const char* option, const std::string& v, int lo, int hi, int& out) {
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < lo || x > hi) {
    std::fprintf(stderr, "carry: %s takes a whole number %d..%d, not '%s'\n", option, lo, hi, v.c_str());
    return false;
  }
  out = static_cast<int>(x);
  return true;
}

option_spec flag(const char* name, bool& out, bool value) {
  return {name, false, [&out, value](const std::string&) {
            out = value;
            return true;
          }};
}
option_spec text(const char* name, std::string& out) {
  return {name, true, [&out](const std::string& v) {
            out = v;
            return true;
          }};
}
option_spec count(const char* name, std::int64_t& out, const char* what, std::int64_t lo, std::int64_t hi) {
  return {name, true, [=, &out](const std::string& v) { return parse_count(name, v, out, what, lo, hi); }};
}
option_spec whole(const char* name, int lo, int hi, int& out) {
  return {name, true, [name, lo, hi, &out](const std::string& v) { return parse_int(name, v, lo, hi, out); }};
}

int parse_options(const std::string& cmd, const std::string& help, const std::vector<option_spec>& specs,
                  int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", help.c_str());
      return 0;
    }
    const option_spec* o = nullptr;
    for (const option_spec& s : specs)
      if (a == s.name) o = &s;
    if (o == nullptr) {
      std::fprintf(stderr, "carry %s: unknown option '%s' (see carry %s --help)\n", cmd.c_str(), a.c_str(),
                   cmd.c_str());
      return 2;
    }
    std::string v;
    if (o->takes_value) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "carry %s: %s needs a value (see carry %s --help)\n", cmd.c_str(), a.c_str(),
                     cmd.c_str());
        return 2;
      }
      v = argv[++i];
    }
    if (!o->set(v)) return 2;
  }
  return -1;
}

bool read_raw(const std::string& cmd, const std::string& path, std::size_t elem_bytes, const char* type_name,
              std::vector<char>& bytes) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) {
    std::fprintf(stderr, "carry %s: --input cannot open '%s'\n", cmd.c_str(), path.c_str());
    return false;
  }
  const std::streamoff size = f.tellg();
  if (size <= 0 || size % static_cast<std::streamoff>(elem_bytes) != 0) {
    std::fprintf(stderr, "carry %s: --input '%s' holds %lld bytes, not a whole number of %s values\n",
                 cmd.c_str(), path.c_str(), static_cast<long long>(size), type_name);
    return false;
  }
  bytes.resize(static_cast<std::size_t>(size));
  f.seekg(0);
  f.read(bytes.data(), size);
  return static_cast<bool>(f);
}

bool print_gpu() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "carry: no CUDA-capable GPU found; this tool runs its primitives on a GPU\n");
    return false;
  }
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("GPU: %s, %d SMs; CUB from CCCL %s\n", p.name, p.multiProcessorCount,
              carry_validate::cccl_version());
  return true;
}

} // namespace carry_tool

int main(int argc, char** argv) {
  if (argc < 2) { // a bare `carry`: what it can do
    print_usage();
    return 2;
  }
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage();
    return 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("carry %s (built with CUDA %d.%d, CCCL %s)\n", carry_tool::version, CUDART_VERSION / 1000,
                CUDART_VERSION % 1000 / 10, carry_validate::cccl_version());
    return 0;
  }
  if (argv[1][0] == '-') {
    std::fprintf(stderr, "carry: '%s' needs a command first (carry <command> %s ...; see carry --help)\n",
                 argv[1], argv[1]);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "scan") return carry_tool::scan_main(argc - 2, argv + 2);
  if (cmd == "select" || cmd == "partition" || cmd == "unique")
    return carry_tool::compact_main(cmd, argc - 2, argv + 2);
  if (cmd == "histogram" || cmd == "bin" || cmd == "slots")
    return carry_tool::apps_main(cmd, argc - 2, argv + 2);
  if (cmd == "sort") return carry_tool::sort_main(argc - 2, argv + 2);
  if (cmd == "runs") return carry_tool::keyed_main(argc - 2, argv + 2);
  if (cmd == "dist") return carry_tool::dist_main(argc - 2, argv + 2);
  if (cmd == "help") {
    print_usage();
    return 0;
  }
  std::fprintf(
      stderr,
      "carry: unknown command '%s' (commands: scan, select, partition, unique, runs, histogram, bin, "
      "slots, sort, dist; see carry --help)\n",
      cmd.c_str());
  return 2;
}
