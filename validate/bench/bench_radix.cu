// Benchmark: carry's radix sort (automatic path, and the three-kernel form) against CUB's DeviceRadixSort
// (the better of its `int` and 64-bit num_items paths) and a device copy of the keys and values, in one
// run: keys u32, f32 and u64, pairs u32/u32 (and u64/u64 from 2^20), and at 2^26 sorted, all-equal and
// two-valued u32 keys. Every timed call starts on a cold L2 (a 192 MB memset first) and is queued behind a
// spin kernel (GPU time alone); medians after warm-up. Each carry result is checked bitwise against CUB
// once before timing. Timed calls of carry, CUB and the copy write the same output buffers, taken in turn
// from `out_sets` separately allocated sets: a pass's scatter speed depends on where its output lies
// (NOTES.md, eighteenth session), so no implementation keeps a luckier buffer than another.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <carry/radixsort/device_radix_sort.cuh>

#include "bench/baselines/baselines.hpp"
#include "bench/baselines/baselines_radix.hpp"
#include "tests/common/apps_reference.hpp"
#include "bench/bench_args.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/radix_reference.hpp"
#include "bench/timing.cuh"

using namespace carry_validate;
using A = carry::radix_sort_algorithm;

namespace {

struct row {
  std::string op, impl, type;
  std::int64_t n;
  double us, bytes_per_key; // bytes_per_key: the traffic model of carry's pass structure (0: not modelled)
};
std::vector<row> rows;
int reps = 20;
constexpr int out_sets = 4;

device_buffer<unsigned char>& temp_of(std::size_t bytes) {
  static device_buffer<unsigned char>* t = nullptr;
  if (t == nullptr || t->n < bytes) {
    delete t;
    t = new device_buffer<unsigned char>(bytes);
  }
  return *t;
}

/// One op at one size: carry (automatic and three kernels), CUB (both size paths), a copy of the keys
/// and values. K keys, V values (null_value: keys only).
template <class K, class V>
void bench_sort(const std::string& op, const char* type, const std::vector<K>& keys, bool with_three) {
  constexpr bool pairs = !std::is_same_v<V, carry::radix_detail::null_value>;
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  const std::size_t un = keys.size();
  device_buffer<K> kin(un), kref(un);
  device_buffer<V> vin(pairs ? un : 0), vref(pairs ? un : 0);
  std::vector<device_buffer<K>> kouts;
  std::vector<device_buffer<V>> vouts;
  for (int i = 0; i < out_sets; ++i) kouts.emplace_back(un), vouts.emplace_back(pairs ? un : 0);
  kin.upload(keys);
  if constexpr (pairs) {
    const auto bytes = random_bits<unsigned char>(un * sizeof(V), 3);
    std::vector<V> v(un);
    std::memcpy(v.data(), bytes.data(), bytes.size());
    vin.upload(v);
  }
  device_buffer<unsigned char> flush(std::size_t{192} << 20);
  const l2_flush cold{flush.ptr, flush.n};
  // s: the output set a call writes (carry's, CUB's and the copy's timed calls alike); CUB's check
  // writes the reference buffers (s < 0)
  auto carry_call = [&](void* t, std::size_t& b, A a, int s) {
    carry::radix_sort_options o;
    o.algorithm = a;
    if constexpr (pairs)
      return carry::sort_pairs(t, b, static_cast<const K*>(kin.ptr), kouts[s].ptr,
                               static_cast<const V*>(vin.ptr), vouts[s].ptr, n, 0,
                               8 * static_cast<int>(sizeof(K)), o);
    else
      return carry::sort_keys(t, b, static_cast<const K*>(kin.ptr), kouts[s].ptr, n, 0,
                              8 * static_cast<int>(sizeof(K)), o);
  };
  auto cub_call = [&](void* t, std::size_t& b, bool wide, int s) {
    K* kout = s < 0 ? kref.ptr : kouts[s].ptr;
    V* vout = s < 0 ? vref.ptr : vouts[s].ptr;
    if constexpr (pairs)
      return cub_radix_pairs(t, b, kin.ptr, kout, vin.ptr, vout, n, 0, 8 * static_cast<int>(sizeof(K)), false,
                             wide, 0);
    else
      return cub_radix_keys(t, b, kin.ptr, kout, n, 0, 8 * static_cast<int>(sizeof(K)), false, wide, 0);
  };
  std::size_t need = 0;
  for (A a : {A::automatic, A::three_kernel}) {
    std::size_t b = 0;
    CARRY_CUDA_OR_DIE(carry_call(nullptr, b, a, 0));
    need = std::max(need, b);
  }
  for (bool wide : {false, true}) {
    std::size_t b = 0;
    if (!wide && n > INT_MAX) continue;
    CARRY_CUDA_OR_DIE(cub_call(nullptr, b, wide, -1));
    need = std::max(need, b);
  }
  auto& temp = temp_of(need);
  // ---- check once, bitwise against CUB ----
  std::size_t b = need;
  CARRY_CUDA_OR_DIE(cub_call(temp.ptr, b, n > INT_MAX, -1));
  for (A a : {A::automatic, A::three_kernel}) {
    if (a == A::three_kernel && !with_three) continue;
    b = need;
    CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0xFF, need));
    CARRY_CUDA_OR_DIE(carry_call(temp.ptr, b, a, 0));
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    bool same = same_bits(kouts[0].download(un), kref.download(un));
    if constexpr (pairs) same = same && same_bits(vouts[0].download(un), vref.download(un));
    if (!same) {
      std::fprintf(stderr, "MISMATCH: %s %s at n = %lld\n", op.c_str(),
                   a == A::automatic ? "carry" : "carry three_kernel", static_cast<long long>(n));
      std::exit(1);
    }
  }
  // ---- time: every implementation writes the output sets in the same turn ----
  const double item = static_cast<double>(sizeof(K) + (pairs ? sizeof(V) : 0));
  const int passes = static_cast<int>(sizeof(K));
  auto timed = [&](auto&& call) { return median_rotating_event_us_after(cold, call, out_sets, reps, true); };
  auto t_carry = [&](A a) {
    return timed([&, a](int s) {
      std::size_t t = need;
      CARRY_CUDA_OR_DIE(carry_call(temp.ptr, t, a, s));
    });
  };
  rows.push_back({op, "carry", type, n, t_carry(A::automatic), sizeof(K) + passes * 2.0 * item});
  if (with_three)
    rows.push_back(
        {op, "carry three_kernel", type, n, t_carry(A::three_kernel), passes * (sizeof(K) + 2.0 * item)});
  for (bool wide : {false, true}) {
    if (!wide && n > INT_MAX) continue;
    rows.push_back({op, wide ? "cub (int64 n)" : "cub (int n)", type, n, timed([&, wide](int s) {
                      std::size_t t = need;
                      CARRY_CUDA_OR_DIE(cub_call(temp.ptr, t, wide, s));
                    }),
                    0.0});
  }
  rows.push_back({op, "memcpy", type, n, timed([&](int s) {
                    CARRY_CUDA_OR_DIE(
                        cudaMemcpyAsync(kouts[s].ptr, kin.ptr, un * sizeof(K), cudaMemcpyDeviceToDevice));
                    if (pairs)
                      CARRY_CUDA_OR_DIE(
                          cudaMemcpyAsync(vouts[s].ptr, vin.ptr, un * sizeof(V), cudaMemcpyDeviceToDevice));
                  }),
                  2.0 * item});
}

} // namespace

int main(int argc, char** argv) {
  bench_args args{14, 28, "bench_radix.csv", ""};
  if (const int rc =
          bench_start("carry_bench_radix",
                      "[--min-log2 N] [--max-log2 N] [--op keys|pairs|adaptive] [--reps R] [--csv FILE]",
                      argc, argv, args,
                      [&](const std::string& a, int& i) {
                        if (a != "--reps" || i + 1 >= argc) return false;
                        reps = std::atoi(argv[++i]);
                        return true;
                      });
      rc >= 0)
    return rc;
  const int min_log2 = args.min_log2, max_log2 = args.max_log2;
  const std::string csv = args.csv, only = args.only;
  for (int l = min_log2; l <= max_log2; l += 2) {
    const std::size_t n = std::size_t{1} << l;
    if (only.empty() || only == "keys") {
      bench_sort<std::uint32_t, carry::radix_detail::null_value>(
          "keys", "u32", make_keys<std::uint32_t>(n, key_dist::uniform, l), true);
      bench_sort<float, carry::radix_detail::null_value>("keys", "f32",
                                                         make_keys<float>(n, key_dist::uniform, l), false);
      if (l <= 26)
        bench_sort<std::uint64_t, carry::radix_detail::null_value>(
            "keys", "u64", make_keys<std::uint64_t>(n, key_dist::uniform, l), true);
    }
    if ((only.empty() || only == "pairs") && l <= 26)
      bench_sort<std::uint32_t, std::uint32_t>("pairs", "u32/u32",
                                               make_keys<std::uint32_t>(n, key_dist::uniform, l), true);
    if ((only.empty() || only == "pairs") && l >= 20 && l <= 26) // 8-byte keys and values: 2 blocks an SM
      bench_sort<std::uint64_t, std::uint64_t>("pairs", "u64/u64",
                                               make_keys<std::uint64_t>(n, key_dist::uniform, l), false);
    if ((only.empty() || only == "adaptive") && l == 26)
      for (key_dist d : {key_dist::sorted, key_dist::all_equal, key_dist::two_values})
        bench_sort<std::uint32_t, carry::radix_detail::null_value>(std::string("keys ") + dist_name(d), "u32",
                                                                   make_keys<std::uint32_t>(n, d, l), false);
    std::fprintf(stderr, "2^%d done\n", l);
  }
  // ---- the table: ratio to the better CUB path, bytes per key, fraction of copy bandwidth ----
  FILE* f = std::fopen(csv.c_str(), "w");
  if (f) std::fprintf(f, "# %s\n", bench_banner(cccl_version()).c_str());
  if (f) std::fprintf(f, "op,impl,type,n,median_us,gkeys,bytes_per_key,frac_copy,vs_cub,method\n");
  std::printf("%-16s %-20s %-8s %12s %10s %9s %7s %8s %8s\n", "op", "impl", "type", "n", "us", "Gkeys/s",
              "B/key", "of copy", "vs cub");
  for (const row& r : rows) {
    double cub = 1e30, copy_gbps = 0;
    for (const row& o : rows)
      if (o.op == r.op && o.type == r.type && o.n == r.n) {
        if (o.impl.rfind("cub", 0) == 0) cub = std::min(cub, o.us);
        if (o.impl == "memcpy") copy_gbps = o.bytes_per_key * static_cast<double>(o.n) / o.us / 1e3;
      }
    const double gkeys = static_cast<double>(r.n) / r.us / 1e3;
    const double frac = r.bytes_per_key > 0 && copy_gbps > 0
                            ? r.bytes_per_key * static_cast<double>(r.n) / r.us / 1e3 / copy_gbps
                            : 0;
    const double vs_cub = cub < 1e29 ? cub / r.us : 0.0;
    std::printf("%-16s %-20s %-8s %12lld %10.2f %9.3f %7.1f %8.3f %8.3f\n", r.op.c_str(), r.impl.c_str(),
                r.type.c_str(), static_cast<long long>(r.n), r.us, gkeys, r.bytes_per_key, frac, vs_cub);
    if (f)
      std::fprintf(f, "%s,%s,%s,%lld,%.2f,%.4f,%.1f,%.4f,%.4f,cold-blocked\n", r.op.c_str(), r.impl.c_str(),
                   r.type.c_str(), static_cast<long long>(r.n), r.us, gkeys, r.bytes_per_key, frac, vs_cub);
  }
  if (f) std::fclose(f);
  return 0;
}
