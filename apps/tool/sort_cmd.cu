// `carry sort`: radix sort of a data set (keys or pairs, any key type, a value size, descending, a bit
// range) with carry, checked bit for bit against CUB, timed against CUB and a device copy.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <iterator>
#include <cstring>
#include <string>
#include <vector>

#include <carry/radixsort/device_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bench/baselines/baselines_radix.hpp"
#include "tests/common/apps_reference.hpp"
#include "tests/common/radix_reference.hpp"
#include "bench/timing.cuh"
#include "tool.hpp"

namespace {

const char* usage =
    "carry sort - LSD radix sort of keys (or key-value pairs), stable, checked bit for bit against CUB\n"
    "\n"
    "usage: carry sort [options]\n"
    "\n"
    "options:\n"
    "  --n N               number of generated keys (default 67108864 = 2^26; > 2^31 works)\n"
    "  --key T             key type: u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64 (default u32)\n"
    "  --values B          value bytes: 0 = keys only (default); u32 keys: 1 2 4 8 12 16; u64 keys: 4 8;\n"
    "                      f32 keys: 4\n"
    "  --argsort           values are each key's index, read from a counting iterator (sets --values 4;\n"
    "                      CUB sorts the same indices from memory)\n"
    "  --descending        largest key first (still stable)\n"
    "  --begin-bit B       sort by bits [B, E) of the key's order-preserving image (default 0)\n"
    "  --end-bit E         (default: all the key's bits)\n"
    "  --data D            uniform (default), sorted, reversed, equal (one value), two (two values that\n"
    "                      differ in the low byte), lowent (AND of three random words), specials (floats:\n"
    "                      +-0, +-inf, NaNs, denormals among random values)\n"
    "  --input FILE        keys from a raw binary file of --key values instead of generated data\n"
    "  --algorithm A       auto (default, or automatic: up to 16 tiles one cluster launch; mid sizes a\n"
    "                      bucket form where the top digit allows; larger inputs onesweep), onesweep,\n"
    "                      three_kernel\n"
    "  --no-adaptive       onesweep without its skips (constant digits, input already in order) and\n"
    "                      without the fill that sorts all-equal keys\n"
    "  --reps R            timed repetitions, median reported (default 20)\n"
    "  --csv               print the results as CSV (primitive,impl,type,n,median_us,gkeys,bytes_per_key,\n"
    "                      frac_copy,vs_cub)\n"
    "  --help              this text\n"
    "\n"
    "Prints carry's time, CUB's (the faster of its 32- and 64-bit size paths) and a device copy's of the\n"
    "bytes the sort must move at least (read and write every key and value once), each the median of\n"
    "--reps calls with a cold L2 before each; keys per second; the bytes per key carry's pass structure\n"
    "moves (onesweep: histogram read + a read and a write per pass; three kernels: two reads and a write\n"
    "per pass; adaptive skips not counted); the fraction of copy bandwidth that traffic reaches; and the\n"
    "ratio to CUB.\n"
    "exit status: 0 checked and timed; 1 mismatch against CUB or CUDA error; 2 bad usage or no GPU\n";

struct config {
  std::string key = "u32", data = "uniform", input, algorithm = "automatic";
  std::int64_t n = std::int64_t{1} << 26;
  int values = 0, begin_bit = 0, end_bit = -1, reps = 20;
  bool descending = false, csv = false, adaptive = true, argsort = false;
};

template <class K>
bool load_keys(const config& c, std::vector<K>& h, std::int64_t& n) {
  if (!c.input.empty()) {
    std::vector<char> raw;
    if (!carry_tool::read_raw("sort", c.input, sizeof(K), c.key.c_str(), raw)) return false;
    n = static_cast<std::int64_t>(raw.size() / sizeof(K));
    h.resize(static_cast<std::size_t>(n));
    std::memcpy(h.data(), raw.data(), raw.size());
    return true;
  }
  carry_validate::key_dist d;
  carry_validate::parse_dist(c.data, d);
  if (c.n >= (std::int64_t{1} << 26))
    std::fprintf(stderr, "carry: generating %lld keys...\n", static_cast<long long>(c.n));
  h = carry_validate::make_keys<K>(static_cast<std::size_t>(c.n), d, 20261123);
  n = c.n;
  return true;
}

template <class K, class V>
int run(const config& c) {
  constexpr bool pairs = !std::is_same_v<V, carry::radix_detail::null_value>;
  std::vector<K> hk;
  std::int64_t n = 0;
  if (!load_keys(c, hk, n)) return 2;
  const int key_bits = 8 * static_cast<int>(sizeof(K));
  const int begin = c.begin_bit, end = c.end_bit < 0 ? key_bits : c.end_bit;
  if (end > key_bits || begin > end) {
    std::fprintf(stderr, "carry sort: bits [%d, %d) do not fit a %d-bit key\n", begin, end, key_bits);
    return 2;
  }
  carry::radix_sort_options opt;
  opt.algorithm = c.algorithm == "onesweep"       ? carry::radix_sort_algorithm::onesweep
                  : c.algorithm == "three_kernel" ? carry::radix_sort_algorithm::three_kernel
                                                  : carry::radix_sort_algorithm::automatic;
  opt.adaptive = c.adaptive;
  const std::size_t un = static_cast<std::size_t>(n);
  K *kin, *kout, *kref;
  V *vin = nullptr, *vout = nullptr, *vref = nullptr;
  CHECK_CUDA(cudaMalloc(&kin, un * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&kout, un * sizeof(K)));
  CHECK_CUDA(cudaMalloc(&kref, un * sizeof(K)));
  CHECK_CUDA(cudaMemcpy(kin, hk.data(), un * sizeof(K), cudaMemcpyHostToDevice));
  if constexpr (pairs) {
    CHECK_CUDA(cudaMalloc(&vin, un * sizeof(V)));
    CHECK_CUDA(cudaMalloc(&vout, un * sizeof(V)));
    CHECK_CUDA(cudaMalloc(&vref, un * sizeof(V)));
    auto hv = carry_validate::random_bits<unsigned char>(un * sizeof(V), 7);
    if constexpr (std::is_same_v<V, std::uint32_t>) // --argsort: CUB's values are the indices carry counts
      if (c.argsort)
        for (std::size_t i = 0; i < un; ++i) std::memcpy(hv.data() + i * sizeof(V), &i, sizeof(V));
    CHECK_CUDA(cudaMemcpy(vin, hv.data(), un * sizeof(V), cudaMemcpyHostToDevice));
  }
  auto carry_call = [&](void* t, std::size_t& b) -> cudaError_t {
    if constexpr (std::is_same_v<V, std::uint32_t>)
      if (c.argsort) {
        const thrust::counting_iterator<std::uint32_t> index(0);
        return c.descending ? carry::sort_pairs_descending(t, b, kin, kout, index, vout, n, begin, end, opt)
                            : carry::sort_pairs(t, b, static_cast<const K*>(kin), kout, index, vout, n, begin,
                                                end, opt);
      }
    if constexpr (pairs)
      return c.descending ? carry::sort_pairs_descending(t, b, kin, kout, vin, vout, n, begin, end, opt)
                          : carry::sort_pairs(t, b, static_cast<const K*>(kin), kout,
                                              static_cast<const V*>(vin), vout, n, begin, end, opt);
    else
      return c.descending ? carry::sort_keys_descending(t, b, kin, kout, n, begin, end, opt)
                          : carry::sort_keys(t, b, static_cast<const K*>(kin), kout, n, begin, end, opt);
  };
  // ref: into the check's reference buffers; else into carry's output (the timed calls: both write the
  // same buffers, since a pass's scatter speed depends on where its output lies)
  auto cub_call = [&](void* t, std::size_t& b, bool wide, bool ref = true) -> cudaError_t {
    K* ko = ref ? kref : kout;
    V* vo = ref ? vref : vout;
    if constexpr (pairs)
      return carry_validate::cub_radix_pairs(t, b, kin, ko, vin, vo, n, begin, end, c.descending, wide,
                                             cudaStream_t{});
    else
      return carry_validate::cub_radix_keys(t, b, kin, ko, n, begin, end, c.descending, wide, cudaStream_t{});
  };
  std::size_t bytes = 0, c32 = 0, c64 = 0;
  CHECK_CUDA(carry_call(nullptr, bytes));
  if (n <= INT_MAX) CHECK_CUDA(cub_call(nullptr, c32, false));
  CHECK_CUDA(cub_call(nullptr, c64, true));
  const std::size_t temp_bytes = std::max({bytes, c32, c64});
  void* temp;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  // ---- check, bit for bit ----
  std::size_t b = temp_bytes;
  CHECK_CUDA(cub_call(temp, b, n > INT_MAX));
  CHECK_CUDA(cudaMemset(temp, 0xFF, temp_bytes));
  CHECK_CUDA(cudaMemset(kout, 0xA5, un * sizeof(K)));
  b = temp_bytes;
  CHECK_CUDA(carry_call(temp, b));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<K> gk(un), wk(un);
  CHECK_CUDA(cudaMemcpy(gk.data(), kout, un * sizeof(K), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(wk.data(), kref, un * sizeof(K), cudaMemcpyDeviceToHost));
  bool ok = carry_validate::same_bits(gk, wk);
  if constexpr (pairs) {
    std::vector<V> gv(un), wv(un);
    CHECK_CUDA(cudaMemcpy(gv.data(), vout, un * sizeof(V), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(wv.data(), vref, un * sizeof(V), cudaMemcpyDeviceToHost));
    ok = ok && carry_validate::same_bits(gv, wv);
  }
  if (!c.csv)
    std::printf(
        "carry sort of %lld %s keys%s%s (%s data, bits [%d, %d)%s, %s): against CUB bit for bit: %s\n",
        static_cast<long long>(n), c.key.c_str(), pairs ? " with values of " : "",
        c.argsort ? "a counting iterator (argsort)"
        : pairs   ? (std::to_string(sizeof(V)) + " bytes").c_str()
                  : "",
        c.input.empty() ? c.data.c_str() : "file", begin, end, c.descending ? ", descending" : "",
        c.algorithm.c_str(), ok ? "ok" : "FAILED");
  // ---- time (cold L2) ----
  carry_validate::l2_flush flush;
  CHECK_CUDA(cudaMalloc(&flush.buffer, flush.bytes));
  auto time_cold = [&](auto&& call) {
    return carry_validate::median_event_us_after(flush, call, c.reps, true);
  };
  if (n >= (std::int64_t{1} << 26) || c.reps > 100)
    std::fprintf(stderr, "carry: timing carry, CUB and a copy...\n");
  const double item = static_cast<double>(sizeof(K) + (pairs ? sizeof(V) : 0));
  const double least = 2.0 * item * static_cast<double>(n); // read and write every key and value once
  const int passes = carry::radix_detail::radix_passes(begin, end, 8);
  const bool three = c.algorithm == "three_kernel";
  const double per_key = three ? passes * (sizeof(K) + 2.0 * item) : sizeof(K) + passes * 2.0 * item;
  const double t_carry = time_cold([&] {
    std::size_t t = temp_bytes;
    CHECK_CUDA(carry_call(temp, t));
  });
  double t_cub = 1e30;
  for (bool wide : {false, true}) {
    if (!wide && n > INT_MAX) continue;
    t_cub = std::min(t_cub, time_cold([&] {
                       std::size_t t = temp_bytes;
                       CHECK_CUDA(cub_call(temp, t, wide, false));
                     }));
  }
  const double t_copy = time_cold([&] {
    CHECK_CUDA(cudaMemcpyAsync(kout, kin, un * sizeof(K), cudaMemcpyDeviceToDevice));
    if (pairs) CHECK_CUDA(cudaMemcpyAsync(vout, vin, un * sizeof(V), cudaMemcpyDeviceToDevice));
  });
  const double copy_gbps = least / (t_copy * 1e3);
  auto line = [&](const char* impl, double us, double bytes_per_key) {
    const double gkeys = static_cast<double>(n) / (us * 1e3);
    const double frac =
        bytes_per_key > 0 ? bytes_per_key * static_cast<double>(n) / (us * 1e3) / copy_gbps : 0.0;
    if (c.csv)
      std::printf("sort,%s,%s,%lld,%.2f,%.3f,%.1f,%.4f,%.4f\n", impl, c.key.c_str(),
                  static_cast<long long>(n), us, gkeys, bytes_per_key, frac, t_cub / us);
    else
      std::printf("%-10s %12.1f %10.3f %10.1f %10.3f %8.3f\n", impl, us, gkeys, bytes_per_key, frac,
                  t_cub / us);
  };
  if (!c.csv)
    std::printf("\n%-10s %12s %10s %10s %10s %8s\n", "impl", "median_us", "Gkeys/s", "B/key", "of_copy",
                "x_cub");
  line("carry", t_carry, per_key);
  line("cub", t_cub, 0.0);
  line("memcpy", t_copy, least / static_cast<double>(n));
  for (void* p :
       {static_cast<void*>(kin), static_cast<void*>(kout), static_cast<void*>(kref), static_cast<void*>(vin),
        static_cast<void*>(vout), static_cast<void*>(vref), temp, flush.buffer})
    cudaFree(p);
  return ok ? 0 : 1;
}

template <class K>
int run_values(const config& c) {
  using carry_validate::value12;
  using carry_validate::value16;
  if (c.values == 0) return run<K, carry::radix_detail::null_value>(c);
  if constexpr (std::is_same_v<K, std::uint32_t>) {
    switch (c.values) {
    case 1:
      return run<K, std::uint8_t>(c);
    case 2:
      return run<K, std::uint16_t>(c);
    case 4:
      return run<K, std::uint32_t>(c);
    case 8:
      return run<K, std::uint64_t>(c);
    case 12:
      return run<K, value12>(c);
    case 16:
      return run<K, value16>(c);
    }
  } else if constexpr (std::is_same_v<K, std::uint64_t>) {
    if (c.values == 4) return run<K, std::uint32_t>(c);
    if (c.values == 8) return run<K, std::uint64_t>(c);
  } else if constexpr (std::is_same_v<K, float>) {
    if (c.values == 4) return run<K, std::uint32_t>(c);
  }
  std::fprintf(stderr, "carry sort: --values %d does not go with --key %s (see carry sort --help)\n",
               c.values, c.key.c_str());
  return 2;
}

} // namespace

int carry_tool::sort_main(int argc, char** argv) {
  config c;
  const int parsed = parse_options(
      "sort", usage,
      {count("--n", c.n), text("--key", c.key), whole("--values", 0, 16, c.values),
       flag("--descending", c.descending), flag("--argsort", c.argsort),
       whole("--begin-bit", 0, 64, c.begin_bit), whole("--end-bit", 0, 64, c.end_bit), text("--data", c.data),
       text("--input", c.input), text("--algorithm", c.algorithm), flag("--no-adaptive", c.adaptive, false),
       whole("--reps", 1, 1000000, c.reps), flag("--csv", c.csv)},
      argc, argv);
  if (parsed >= 0) return parsed;
  if (c.algorithm == "auto") c.algorithm = "automatic";
  carry_validate::key_dist d;
  if (!carry_validate::parse_dist(c.data, d)) {
    std::fprintf(
        stderr,
        "carry sort: --data does not take '%s' (uniform, sorted, reversed, equal, two, lowent, specials)\n",
        c.data.c_str());
    return 2;
  }
  if (c.algorithm != "automatic" && c.algorithm != "onesweep" && c.algorithm != "three_kernel") {
    std::fprintf(stderr, "carry sort: --algorithm does not take '%s' (auto, onesweep, three_kernel)\n",
                 c.algorithm.c_str());
    return 2;
  }
  const std::string k = c.key;
  const char* const keys[] = {"u8",  "u16", "u32", "u64",  "i8",  "i16",
                              "i32", "i64", "f16", "bf16", "f32", "f64"};
  if (std::none_of(std::begin(keys), std::end(keys), [&](const char* x) { return k == x; })) {
    std::fprintf(stderr,
                 "carry sort: --key does not take '%s' (u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64)\n",
                 k.c_str());
    return 2;
  }
  if (c.argsort) {
    if (c.values != 0 && c.values != 4) {
      std::fprintf(stderr, "carry sort: --argsort gives u32 values (--values 4)\n");
      return 2;
    }
    if (c.n > UINT32_MAX) {
      std::fprintf(stderr, "carry sort: --argsort counts u32 indices: --n at most 2^32 - 1\n");
      return 2;
    }
    c.values = 4;
  }
  if (!print_gpu()) return 2;
  if (k == "u8") return run_values<std::uint8_t>(c);
  if (k == "u16") return run_values<std::uint16_t>(c);
  if (k == "u32") return run_values<std::uint32_t>(c);
  if (k == "u64") return run_values<std::uint64_t>(c);
  if (k == "i8") return run_values<std::int8_t>(c);
  if (k == "i16") return run_values<std::int16_t>(c);
  if (k == "f16") return run_values<__half>(c);
  if (k == "bf16") return run_values<__nv_bfloat16>(c);
  if (k == "i32") return run_values<std::int32_t>(c);
  if (k == "i64") return run_values<std::int64_t>(c);
  if (k == "f32") return run_values<float>(c);
  return run_values<double>(c);
}
