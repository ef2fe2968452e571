// `carry select | partition | unique`: a compaction of a data set with carry, checked against CUB, timed.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <carry/compact/device_partition.cuh>
#include <carry/compact/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bench/baselines/baselines_compact.hpp"
#include "tests/common/compact_ops.hpp"
#include "bench/timing.cuh"
#include "tool.hpp"

namespace {

const char* usage_text(const std::string& prim) {
  if (prim == "select")
    return "carry select - keep the items that satisfy x < t (or whose flag is non-zero), in input order\n"
           "\n"
           "usage: carry select [options]\n"
           "  The threshold t is the value that selects the requested fraction of the data, so the "
           "selectivity\n"
           "  holds for any distribution (ties can move it: the run prints what was selected).\n";
  if (prim == "partition")
    return "carry partition - the items with x < t (or whose flag is non-zero) first, then the others, both in\n"
           "input order (stable), or with --reversed the others from the output's end back (CUB's layout)\n"
           "\n"
           "usage: carry partition [options]\n"
           "  CUB's DevicePartition::If and ::Flagged write the others in reverse order; the check compares a\n"
           "  stable partition against CUB's output with that part turned around, a reversed one as it is.\n"
           "  --reversed           the others in reverse order, CUB's layout, in one pass (a stable partition\n"
           "                       counts first, its rejected items waiting for the total: by x < t it reads\n"
           "                       its input twice; with --flags it reads the flags once, keeping a bit an\n"
           "                       item, n / 8 bytes of temp storage, for the scatter)\n";
  return "carry unique - keep the first item of each run of equal items\n"
         "\n"
         "usage: carry unique [options]\n";
}

const char* options_text =
    "\n"
    "options:\n"
    "  --n N               number of generated items (default 67108864 = 2^26; > 2^31 works)\n"
    "  --type T            item type: u32 (default), u64, u8\n"
    "  --data D            generated data: uniform (random bits; default for select and partition),\n"
    "                      few (16 distinct values), sorted (ascending), equal (one value),\n"
    "                      runs4 (runs of equal items of mean length 4; default for unique)\n"
    "  --selectivity P     percent of items selected (select, partition): 1, 50 (default), 99, or any\n"
    "                      whole number 0..100\n"
    "  --flags             select, partition: a flag array (P % non-zero) decides instead of x < t\n"
    "  --flag-type F       the flags' type: u8 (default), bool, u32, i32 (u32 items for all but u8)\n"
    "  --items I           data (default): the generated or read items; indices: the items 0, 1, 2, ...\n"
    "                      (a counting iterator, u32; select and partition pick by hash(i) < t or flags)\n"
    "  --input FILE        items from a raw binary file of --type values instead of generated data\n"
    "  --algorithm A       auto (default), single_pass (one pass that reads the input once),\n"
    "                      three_kernel (count, scan of the counts, scatter: reads it twice)\n"
    "  --reps R            timed repetitions, median reported (default 30)\n"
    "  --csv               print the results as CSV (primitive,impl,type,n,median_us,gbps,frac_copy,vs_cub)\n"
    "  --help              this text\n"
    "\n"
    "Prints carry's time, CUB's (the faster of its 32- and 64-bit size paths) and a device copy's, each the\n"
    "median of --reps calls with a cold L2 cache before each, the bandwidth (bytes read and written at\n"
    "least: the items, the flags, the items kept), the fraction of copy bandwidth and the ratio to CUB.\n"
    "exit status: 0 checked and timed; 1 mismatch against CUB or CUDA error; 2 bad usage or no GPU\n";

struct config {
  std::string prim, type = "u32", data, algorithm = "auto", input, flag_type = "u8", items = "data";
  std::int64_t n = std::int64_t{1} << 26;
  int percent = 50, reps = 30;
  bool flags = false, csv = false, reversed = false;
};

template <class T>
std::vector<T> generate(const config& c) {
  std::vector<T> h(static_cast<std::size_t>(c.n));
  std::mt19937_64 g(20261123);
  if (c.data == "uniform") {
    for (auto& x : h) x = static_cast<T>(g());
  } else if (c.data == "few") {
    for (auto& x : h) x = static_cast<T>(g() % 16 * 1000003u);
  } else if (c.data == "sorted") {
    for (std::size_t i = 0; i < h.size(); ++i)
      h[i] = static_cast<T>(sizeof(T) == 1 ? i * 256 / h.size() : sizeof(T) == 2 ? i * 65536 / h.size() : i);
  } else if (c.data == "equal") {
    std::fill(h.begin(), h.end(), static_cast<T>(42));
  } else { // runs4
    T v = static_cast<T>(g());
    for (std::size_t i = 0; i < h.size();) {
      const std::size_t len = 1 + g() % 7;
      for (std::size_t k = 0; k < len && i < h.size(); ++k) h[i++] = v;
      v = static_cast<T>(v + 1 + g() % 5);
    }
  }
  return h;
}

template <class T>
bool read_file(config& c, std::vector<T>& h) {
  std::vector<char> raw;
  if (!carry_tool::read_raw(c.prim, c.input, sizeof(T), c.type.c_str(), raw)) return false;
  c.n = static_cast<std::int64_t>(raw.size() / sizeof(T));
  h.resize(static_cast<std::size_t>(c.n));
  std::memcpy(h.data(), raw.data(), raw.size());
  return true;
}

/// Host storage of a flag of type F (bool flags as bytes).
template <class F>
using flag_storage = std::conditional_t<std::is_same<F, bool>::value, unsigned char, F>;

template <class T, class F>
int run(config& c) {
  const bool indices = c.items == "indices";
  // ---- data ----
  std::vector<T> h;
  if (indices) {
    h.assign(static_cast<std::size_t>(c.n), T{}); // unused but for the copy that anchors the table
  } else if (!c.input.empty()) {
    if (!read_file(c, h)) return 2;
  } else {
    if (c.n >= (std::int64_t{1} << 26))
      std::fprintf(stderr, "carry: generating %lld items...\n", static_cast<long long>(c.n));
    h = generate<T>(c);
  }
  const std::int64_t n = c.n;
  // the threshold that selects c.percent % (the value at that rank of the sorted data; none above it)
  T bound = std::numeric_limits<T>::max();
  bool select_all = c.percent >= 100;
  // over indices: hash(i) < bound32 selects the fraction bound32 / 2^32, scattered
  const auto bound32 = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(0xffffffffu, (std::uint64_t{1} << 32) * c.percent / 100));
  if (!select_all && c.prim != "unique" && !indices) {
    std::vector<T> s(h);
    const std::size_t k = static_cast<std::size_t>(static_cast<double>(n) * c.percent / 100.0);
    std::nth_element(
        s.begin(), s.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(k, s.size() - 1)), s.end());
    bound = s[std::min<std::size_t>(k, s.size() - 1)];
  }
  std::vector<flag_storage<F>> hf;
  if (c.flags) {
    hf.resize(h.size());
    std::mt19937 g(7);
    for (auto& f : hf)
      f = static_cast<flag_storage<F>>(g() % 100 < static_cast<unsigned>(c.percent)
                                           ? (std::is_same<F, bool>::value ? 1 : 1 + g() % 127)
                                           : 0);
  }
  T *in, *out, *ref;
  flag_storage<F>* flags = nullptr;
  std::int64_t* num;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&ref, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&num, sizeof(std::int64_t)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  if (c.flags) {
    CHECK_CUDA(cudaMalloc(&flags, static_cast<std::size_t>(n) * sizeof(F)));
    CHECK_CUDA(cudaMemcpy(flags, hf.data(), static_cast<std::size_t>(n) * sizeof(F), cudaMemcpyHostToDevice));
  }
  const F* f = reinterpret_cast<const F*>(flags);
  carry::compact_options opt;
  opt.algorithm = c.algorithm == "single_pass"    ? carry::compact_algorithm::single_pass
                  : c.algorithm == "three_kernel" ? carry::compact_algorithm::three_kernel
                                                  : carry::compact_algorithm::automatic;
  if (c.reversed) opt.rejected = carry::partition_order::reversed;
  // select_all: every item; x < max misses the maximum itself, so a predicate that is always true
  const carry_validate::less_than<T> pred{bound};
  const T* cin = in;
  const thrust::counting_iterator<T> idx(0);
  const carry_validate::hashed_less hashed{bound32};
  const bool part = c.prim == "partition";
  auto carry_call = [&](void* t, std::size_t& b) -> cudaError_t {
    if (c.prim == "unique") return carry::select_unique(t, b, cin, out, num, n, carry::equal_to{}, opt);
    if (indices) {
      if (c.flags)
        return part ? carry::partition_flagged(t, b, idx, f, out, num, n, opt)
                    : carry::select_flagged(t, b, idx, f, out, num, n, opt);
      return part ? carry::partition(t, b, idx, out, num, n, hashed, opt)
                  : carry::select_if(t, b, idx, out, num, n, hashed, opt);
    }
    if (c.flags)
      return part ? carry::partition_flagged(t, b, cin, f, out, num, n, opt)
                  : carry::select_flagged(t, b, cin, f, out, num, n, opt);
    if (part) return carry::partition(t, b, cin, out, num, n, pred, opt);
    return carry::select_if(t, b, cin, out, num, n, pred, opt);
  };
  auto cub_call = [&](void* t, std::size_t& b, T* dst, bool wide) -> cudaError_t {
    const cudaStream_t s{};
    if (c.prim == "unique") return carry_validate::cub_select_unique(t, b, cin, dst, num, n, wide, s);
    if (c.flags)
      return carry_validate::cub_flagged(t, b, indices ? nullptr : cin, f, dst, num, n, part, wide, s);
    if constexpr (std::is_same<T, std::uint32_t>::value)
      if (indices)
        return part ? carry_validate::cub_partition_iota(t, b, dst, num, n, bound32, wide, s)
                    : carry_validate::cub_select_if_iota(t, b, dst, num, n, bound32, wide, s);
    if (part) return carry_validate::cub_partition_less(t, b, cin, dst, num, n, bound, wide, s);
    return carry_validate::cub_select_if_less(t, b, cin, dst, num, n, bound, wide, s);
  };
  std::size_t bytes = 0, cub_bytes = 0, cub64_bytes = 0;
  CHECK_CUDA(carry_call(nullptr, bytes));
  if (n <= INT_MAX) CHECK_CUDA(cub_call(nullptr, cub_bytes, ref, false));
  CHECK_CUDA(cub_call(nullptr, cub64_bytes, ref, true));
  const std::size_t temp_bytes = std::max({bytes, cub_bytes, cub64_bytes});
  void* temp;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  // ---- check: count and items against CUB ----
  std::size_t b = temp_bytes;
  CHECK_CUDA(cub_call(temp, b, ref, n > INT_MAX));
  std::int64_t cub_num = 0, got = 0;
  CHECK_CUDA(cudaMemcpy(&cub_num, num, sizeof cub_num, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemset(out, 0xA5, n * sizeof(T)));
  CHECK_CUDA(cudaMemset(temp, 0xFF, temp_bytes));
  b = temp_bytes;
  CHECK_CUDA(carry_call(temp, b));
  CHECK_CUDA(cudaMemcpy(&got, num, sizeof got, cudaMemcpyDeviceToHost));
  const std::size_t compare =
      c.prim == "partition" ? static_cast<std::size_t>(n) : static_cast<std::size_t>(cub_num);
  std::vector<T> h_out(compare), h_ref(compare);
  CHECK_CUDA(cudaMemcpy(h_out.data(), out, compare * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(h_ref.data(), ref, compare * sizeof(T), cudaMemcpyDeviceToHost));
  if (c.prim == "partition" && !c.reversed) // CUB's rejected are reversed; a reversed partition's too
    std::reverse(h_ref.begin() + cub_num, h_ref.end());
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < compare; ++i) bad += std::memcmp(&h_out[i], &h_ref[i], sizeof(T)) != 0;
  const bool ok = got == cub_num && bad == 0;
  if (!c.csv)
    std::printf(
        "carry %s of %lld %s (%s%s%s, algorithm %s%s): %lld selected (%.1f %%); check against CUB: %s "
        "(count %lld vs %lld, %lld items differ)\n",
        c.prim.c_str(), static_cast<long long>(n), c.type.c_str(),
        indices           ? "indices"
        : c.input.empty() ? c.data.c_str()
                          : "file",
        indices ? "" : " data", c.flags ? (", " + c.flag_type + " flags").c_str() : "", c.algorithm.c_str(),
        c.reversed ? ", rejected reversed" : "", static_cast<long long>(got), 100.0 * got / n,
        ok ? "ok" : "FAILED", static_cast<long long>(got), static_cast<long long>(cub_num),
        static_cast<long long>(bad));
  // ---- time (cold L2) ----
  carry_validate::l2_flush flush; // a cold L2 before each timed call, as the benchmark
  CHECK_CUDA(cudaMalloc(&flush.buffer, flush.bytes));
  auto time_cold = [&](auto&& call) {
    return carry_validate::median_event_us_after(flush, call, c.reps, true);
  };
  if (n >= (std::int64_t{1} << 26) || c.reps > 100)
    std::fprintf(stderr, "carry: timing carry, CUB and a copy...\n");
  const double t_carry = time_cold([&] {
    std::size_t t = temp_bytes;
    CHECK_CUDA(carry_call(temp, t));
  });
  double t_cub = 1e30;
  for (bool wide : {false, true}) {
    if (!wide && n > INT_MAX) continue;
    t_cub = std::min(t_cub, time_cold([&] {
                       std::size_t t = temp_bytes;
                       CHECK_CUDA(cub_call(temp, t, ref, wide));
                     }));
  }
  const double t_copy =
      time_cold([&] { CHECK_CUDA(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  const double moved = (indices ? 0.0 : static_cast<double>(n) * sizeof(T)) +
                       (c.flags ? static_cast<double>(n) * sizeof(F) : 0.0) +
                       static_cast<double>(c.prim == "partition" ? n : got) * sizeof(T);
  const double copy_gbps = 2.0 * n * sizeof(T) / (t_copy * 1e3);
  auto line = [&](const char* impl, double us, double bytes_moved) {
    const double gbps = bytes_moved / (us * 1e3);
    if (c.csv)
      std::printf("%s,%s,%s,%lld,%.2f,%.1f,%.4f,%.4f\n", c.prim.c_str(), impl, c.type.c_str(),
                  static_cast<long long>(n), us, gbps, gbps / copy_gbps, t_cub / us);
    else
      std::printf("%-8s %12.1f %10.1f %10.3f %8.3f\n", impl, us, gbps, gbps / copy_gbps, t_cub / us);
  };
  if (!c.csv) std::printf("\n%-8s %12s %10s %10s %8s\n", "impl", "median_us", "GB/s", "of_copy", "x_cub");
  line("carry", t_carry, moved);
  line("cub", t_cub, moved);
  line("memcpy", t_copy, 2.0 * n * sizeof(T));
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(ref),
                  static_cast<void*>(num), static_cast<void*>(flags), temp, flush.buffer})
    if (p) cudaFree(p);
  return ok ? 0 : 1;
}

} // namespace

int carry_tool::compact_main(const std::string& prim, int argc, char** argv) {
  config c;
  c.prim = prim;
  c.data = prim == "unique" ? "runs4" : "uniform";
  const int parsed = parse_options(
      prim, std::string(usage_text(prim)) + options_text,
      {count("--n", c.n), text("--type", c.type), text("--data", c.data),
       whole("--selectivity", 0, 100, c.percent), flag("--flags", c.flags), text("--flag-type", c.flag_type),
       text("--items", c.items), text("--input", c.input), text("--algorithm", c.algorithm),
       whole("--reps", 1, 1000000, c.reps), flag("--csv", c.csv), flag("--reversed", c.reversed)},
      argc, argv);
  if (parsed >= 0) return parsed;
  const char* refused = nullptr;
  std::string value;
  if (c.type != "u32" && c.type != "u64" && c.type != "u8") refused = "--type", value = c.type;
  if (c.data != "uniform" && c.data != "few" && c.data != "sorted" && c.data != "equal" && c.data != "runs4")
    refused = "--data", value = c.data;
  if (c.algorithm != "auto" && c.algorithm != "single_pass" && c.algorithm != "three_kernel")
    refused = "--algorithm", value = c.algorithm;
  if (c.flag_type != "u8" && c.flag_type != "bool" && c.flag_type != "u32" && c.flag_type != "i32")
    refused = "--flag-type", value = c.flag_type;
  if (c.items != "data" && c.items != "indices") refused = "--items", value = c.items;
  if (refused) {
    std::fprintf(stderr, "carry %s: %s does not take '%s' (see carry %s --help for its values)\n",
                 prim.c_str(), refused, value.c_str(), prim.c_str());
    return 2;
  }
  const char* conflict = nullptr;
  if (c.flags && prim == "unique") conflict = "--flags belongs to carry select and carry partition";
  if (c.reversed && prim != "partition") conflict = "--reversed belongs to carry partition";
  if (c.flag_type != "u8" && !c.flags) conflict = "--flag-type needs --flags";
  if (c.items == "indices" && prim == "unique") conflict = "--items indices: every index is unique";
  if ((c.items == "indices" || c.flag_type != "u8") && c.type != "u32")
    conflict = "--items indices and flags other than u8 take --type u32";
  if (c.items == "indices" && !c.input.empty()) conflict = "--items indices reads no --input";
  if (conflict) {
    std::fprintf(stderr, "carry %s: %s\n", prim.c_str(), conflict);
    return 2;
  }
  if (!print_gpu()) return 2;
  if (c.type == "u64") return run<std::uint64_t, std::uint8_t>(c);
  if (c.type == "u8") return run<std::uint8_t, std::uint8_t>(c);
  if (c.flag_type == "bool") return run<std::uint32_t, bool>(c);
  if (c.flag_type == "u32") return run<std::uint32_t, std::uint32_t>(c);
  if (c.flag_type == "i32") return run<std::uint32_t, int>(c);
  return run<std::uint32_t, std::uint8_t>(c);
}
