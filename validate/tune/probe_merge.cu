// Merge probe: carry's stable merge of two sorted runs (keys; keys with values) in several tile shapes, the
// tree of four runs the 4-rank distributed sort merges, against CUB's DeviceMerge and a copy of the same
// bytes, cold L2, median of event-timed calls.
// usage: carry_probe_merge [log2 of the merged total, default 28] [reps, default 20] [wide]
//   wide: 8-byte keys alone, u64/u64 and u32/u64 pairs (the policy's wide tile); else u32 keys and u32/u32
#include <carry/radixsort/detail/merge.cuh>
#include <carry/radixsort/device_radix_sort.cuh>
#include <cub/device/device_merge.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "bench/timing.cuh"

namespace {

template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t v = 0;
    for (unsigned w = 0; w < sizeof(T) / 4; ++w) {
      unsigned x = static_cast<unsigned>(i) * 0x9E3779B9u ^ (seed + 0x85ebca6bu * w);
      x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
      v = v << 32 | x;
    }
    p[i] = static_cast<T>(v);
  }
}

using carry::radix_detail::null_value;

template <class K, class V>
struct runs {
  K *keys = nullptr, *out = nullptr, *ping = nullptr;
  V *vals = nullptr, *vout = nullptr, *vping = nullptr;
  std::int64_t* splits = nullptr;
  std::int64_t n = 0;
};

/// n keys in `parts` sorted runs laid end to end, values random.
template <class K, class V>
runs<K, V> make(std::int64_t n, int parts) {
  runs<K, V> r;
  r.n = n;
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.keys, n * sizeof(K)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.out, n * sizeof(K)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.ping, n * sizeof(K)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.vals, n * sizeof(V)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.vout, n * sizeof(V)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.vping, n * sizeof(V)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&r.splits, carry::radix_detail::merge_splits<K>(n) * 8));
  fill_kernel<<<1024, 256>>>(r.out, n, 12345u);
  std::size_t bytes = 0;
  const std::int64_t part = n / parts;
  carry::sort_keys(nullptr, bytes, r.out, r.keys, part, 0);
  void* temp;
  CARRY_CUDA_OR_DIE(cudaMalloc(&temp, bytes));
  for (int p = 0; p < parts; ++p) {
    std::size_t b = bytes;
    CARRY_CUDA_OR_DIE(carry::sort_keys(temp, b, r.out + p * part, r.keys + p * part, part, 0));
  }
  fill_kernel<<<1024, 256>>>(r.vals, n, 777u);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  cudaFree(temp);
  return r;
}

template <class K, class V>
bool merged_ok(const runs<K, V>& r) {
  std::vector<K> h(r.n);
  CARRY_CUDA_OR_DIE(cudaMemcpy(h.data(), r.out, r.n * sizeof(K), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 1; i < r.n; ++i)
    if (h[i - 1] > h[i]) return false;
  return true;
}

carry_validate::l2_flush flush() {
  carry_validate::l2_flush f;
  CARRY_CUDA_OR_DIE(cudaMalloc(&f.buffer, f.bytes));
  return f;
}

/// A merge of the two runs of r (with values where pairs): merge_two (the policy's shape) where THREADS is
/// 0, else merge_two_shaped; shapes whose tile exceeds static shared memory are skipped.
template <int THREADS, int ITEMS, int MIN_BLOCKS, class K, class V>
void shape(const runs<K, V>& r, bool pairs, int reps, const carry_validate::l2_flush& f, double copy_us) {
  constexpr long tile = long{THREADS} * ITEMS;
  constexpr bool keys_fit = (tile + 1) * long{sizeof(K)} <= 48 * 1024;
  constexpr bool pairs_fit = (tile + 1) * long{sizeof(K)} + tile * 4 <= 48 * 1024;
  if (!(pairs ? pairs_fit : keys_fit)) return;
  const std::int64_t h = r.n / 2;
  auto merge = [&](auto va, auto vb, auto vout) {
#ifndef PROBE_SHIPPED_ONLY
    if constexpr (THREADS > 0)
      return carry::radix_detail::merge_two_shaped<THREADS, ITEMS, MIN_BLOCKS>(
          r.keys, h, va, r.keys + h, r.n - h, vb, r.out, vout, r.splits, false, cudaStream_t{});
#endif
    return carry::radix_detail::merge_two(r.keys, h, va, r.keys + h, r.n - h, vb, r.out, vout, r.splits,
                                          false, cudaStream_t{});
  };
  auto call = [&] {
    if constexpr (pairs_fit)
      if (pairs) {
        CARRY_CUDA_OR_DIE(merge(static_cast<const V*>(r.vals), static_cast<const V*>(r.vals + h), r.vout));
        return;
      }
    if constexpr (keys_fit)
      CARRY_CUDA_OR_DIE(merge(static_cast<const null_value*>(nullptr),
                              static_cast<const null_value*>(nullptr), static_cast<null_value*>(nullptr)));
  };
  const double us = carry_validate::median_event_us_after(f, call, reps, true);
  if (THREADS > 0)
    std::printf("%-6s merge_two %4dx%-2d min %d %9.1f us  %.2f of copy  %s\n", pairs ? "pairs" : "keys",
                THREADS, ITEMS, MIN_BLOCKS, us, copy_us / us, merged_ok(r) ? "ok" : "NOT SORTED");
  else
    std::printf("%-6s merge_two shipped   %9.1f us  %.2f of copy  %s\n", pairs ? "pairs" : "keys", us,
                copy_us / us, merged_ok(r) ? "ok" : "NOT SORTED");
}

/// Tile shapes to time: (threads, items, min blocks) triples.
template <int... S>
struct shapes {};
/// time(threads, items, min blocks) for each shape, each an std::integral_constant.
template <class Time>
void for_shapes(shapes<>, Time&&) {}
template <int T, int I, int M, int... Rest, class Time>
void for_shapes(shapes<T, I, M, Rest...>, Time&& time) {
  time(std::integral_constant<int, T>{}, std::integral_constant<int, I>{}, std::integral_constant<int, M>{});
  for_shapes(shapes<Rest...>{}, time);
}

/// The copy of the bytes and CUB's merge of r's two runs, then carry's in every shape of Shapes and in the
/// policy's.
template <class Shapes, class K, class V>
void compare(const runs<K, V>& two, bool pairs, int reps, const carry_validate::l2_flush& f) {
  const std::int64_t n = two.n, h = n / 2;
  const double copy_us = carry_validate::median_event_us_after(
      f,
      [&] {
        CARRY_CUDA_OR_DIE(cudaMemcpyAsync(two.out, two.keys, n * sizeof(K), cudaMemcpyDeviceToDevice));
        if (pairs)
          CARRY_CUDA_OR_DIE(cudaMemcpyAsync(two.vout, two.vals, n * sizeof(V), cudaMemcpyDeviceToDevice));
      },
      reps, true);
  std::printf("%-6s %zu/%zu-byte copy of the bytes %9.1f us (n = %lld)\n", pairs ? "pairs" : "keys",
              sizeof(K), pairs ? sizeof(V) : std::size_t{0}, copy_us, static_cast<long long>(n));
  std::size_t cb = 0;
  void* ct = nullptr;
  if (pairs)
    cub::DeviceMerge::MergePairs(nullptr, cb, two.keys, two.vals, h, two.keys + h, two.vals + h, n - h,
                                 two.out, two.vout);
  else
    cub::DeviceMerge::MergeKeys(nullptr, cb, two.keys, h, two.keys + h, n - h, two.out);
  CARRY_CUDA_OR_DIE(cudaMalloc(&ct, cb));
  const double cub_us = carry_validate::median_event_us_after(
      f,
      [&] {
        if (pairs)
          CARRY_CUDA_OR_DIE(cub::DeviceMerge::MergePairs(ct, cb, two.keys, two.vals, h, two.keys + h,
                                                         two.vals + h, n - h, two.out, two.vout));
        else
          CARRY_CUDA_OR_DIE(cub::DeviceMerge::MergeKeys(ct, cb, two.keys, h, two.keys + h, n - h, two.out));
      },
      reps, true);
  std::printf("%-6s cub DeviceMerge    %9.1f us  %.2f of copy  %s\n", pairs ? "pairs" : "keys", cub_us,
              copy_us / cub_us, merged_ok(two) ? "ok" : "NOT SORTED");
  cudaFree(ct);
#ifndef PROBE_SHIPPED_ONLY
  for_shapes(Shapes{}, [&](auto t, auto i, auto m) {
    shape<decltype(t)::value, decltype(i)::value, decltype(m)::value>(two, pairs, reps, f, copy_us);
  });
#endif
  shape<0, 0, 0>(two, pairs, reps, f, copy_us);
}

/// f(values, value ping, value out): r's value buffers for pairs, null_value pointers for keys alone (the
/// merges then move keys only).
template <class K, class V, class F>
void with_values(const runs<K, V>& r, bool pairs, F&& f) {
  if (pairs)
    f(static_cast<const V*>(r.vals), r.vping, r.vout);
  else
    f(static_cast<const null_value*>(nullptr), static_cast<null_value*>(nullptr),
      static_cast<null_value*>(nullptr));
}
/// p + i, or null where p is (keys alone).
template <class P>
P* offset(P* p, std::int64_t i) {
  return p != nullptr ? p + i : p;
}

/// One four-run merge of r's four runs in the given shape (THREADS 0: merge_runs, the policy's), keys or
/// pairs.
template <int THREADS, int ITEMS, int MIN_BLOCKS, class K, class V>
void four_shape(const runs<K, V>& r, bool pairs, int reps, const carry_validate::l2_flush& f,
                double tree_us) {
  constexpr long tile = long{THREADS} * ITEMS;
  constexpr bool fits = 2 * (tile + 1) * long{sizeof(K)} + tile * 4 <= 48 * 1024;
  if (!fits) return;
  const std::int64_t q = r.n / 4;
  auto call = [&] {
    with_values(r, pairs, [&](auto va, auto vping, auto vout) {
      if constexpr (THREADS > 0) {
        CARRY_CUDA_OR_DIE((carry::radix_detail::merge_four_shaped<THREADS, ITEMS, MIN_BLOCKS>(
            r.keys, q, va, r.keys + q, q, offset(va, q), r.keys + 2 * q, q, offset(va, 2 * q), r.keys + 3 * q,
            q, offset(va, 3 * q), r.out, vout, r.splits, false, cudaStream_t{})));
      } else {
        using VT = std::remove_pointer_t<decltype(vout)>;
        std::vector<carry::radix_detail::sorted_run<K, VT>> rs;
        for (int p = 0; p < 4; ++p) rs.push_back({r.keys + p * q, offset(va, p * q), q});
        CARRY_CUDA_OR_DIE(carry::radix_detail::merge_runs(rs, r.out, vout, r.ping, vping, r.ping, vping,
                                                          r.splits, false, cudaStream_t{}));
      }
    });
  };
  const double us = carry_validate::median_event_us_after(f, call, reps, true);
  if (THREADS > 0)
    std::printf("%-6s merge_four %4dx%-2d min %d %9.1f us  %.2f of the tree  %s\n", pairs ? "pairs" : "keys",
                THREADS, ITEMS, MIN_BLOCKS, us, tree_us / us, merged_ok(r) ? "ok" : "NOT SORTED");
  else
    std::printf("%-6s merge_runs of 4 (one pass, shipped) %9.1f us  %.2f of the tree  %s\n",
                pairs ? "pairs" : "keys", us, tree_us / us, merged_ok(r) ? "ok" : "NOT SORTED");
}

/// Four runs of r merged by the two-run tree (merge(merge(a, b), merge(c, e)): three merge_two calls, two
/// passes over the bytes), then in one pass in several shapes and the policy's.
template <class K, class V>
void four_runs(const runs<K, V>& r, bool pairs, int reps, const carry_validate::l2_flush& f) {
  const std::int64_t q = r.n / 4;
  auto tree = [&] {
    with_values(r, pairs, [&](auto va, auto vping, auto vout) {
      using carry::radix_detail::merge_two;
      CARRY_CUDA_OR_DIE(merge_two(static_cast<const K*>(r.keys), q, va, r.keys + q, q, offset(va, q), r.ping,
                                  vping, r.splits, false, cudaStream_t{}));
      CARRY_CUDA_OR_DIE(merge_two(static_cast<const K*>(r.keys + 2 * q), q, offset(va, 2 * q), r.keys + 3 * q,
                                  q, offset(va, 3 * q), r.ping + 2 * q, offset(vping, 2 * q), r.splits, false,
                                  cudaStream_t{}));
      CARRY_CUDA_OR_DIE(merge_two(static_cast<const K*>(r.ping), 2 * q, vping, r.ping + 2 * q, 2 * q,
                                  offset(vping, 2 * q), r.out, vout, r.splits, false, cudaStream_t{}));
    });
  };
  const double tree_us = carry_validate::median_event_us_after(f, tree, reps, true);
  std::printf("%-6s tree of merge_two (two passes) %9.1f us  %s\n", pairs ? "pairs" : "keys", tree_us,
              merged_ok(r) ? "ok" : "NOT SORTED");
#ifndef PROBE_SHIPPED_ONLY
  using four_shapes = shapes<256, 15, 4, 256, 11, 4, 256, 9, 6, 256, 7, 8, 128, 15, 8, 384, 9, 4, 512, 7, 3>;
  for_shapes(four_shapes{}, [&](auto t, auto i, auto m) {
    four_shape<decltype(t)::value, decltype(i)::value, decltype(m)::value>(r, pairs, reps, f, tree_us);
  });
#endif
  four_shape<0, 0, 0>(r, pairs, reps, f, tree_us);
}

} // namespace

int main(int argc, char** argv) {
  const int lg = argc > 1 ? std::atoi(argv[1]) : 28;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  const bool wide = argc > 3 && std::strcmp(argv[3], "wide") == 0;
  const std::int64_t n = std::int64_t{1} << lg;
  const auto f = flush();
  if (wide) {
    // the first, the tile the merge began with
    using wide_shapes =
        shapes<256, 7, 1, 256, 7, 3, 256, 9, 2, 256, 11, 2, 384, 7, 2, 384, 9, 2, 512, 7, 2, 512, 5, 3>;
    const auto k8 = make<std::uint64_t, std::uint64_t>(n / 2, 2); // the same bytes as 2^lg u32 keys
    compare<wide_shapes>(k8, false, reps, f);
    compare<wide_shapes>(k8, true, reps, f);
    const auto k4v8 = make<std::uint32_t, std::uint64_t>(n / 2, 2);
    compare<wide_shapes>(k4v8, true, reps, f);
    return 0;
  }
  // the first, the tile the merge began with
  using narrow_shapes =
      shapes<256, 11, 1, 256, 15, 4, 384, 15, 4, 512, 11, 4, 512, 15, 3, 512, 19, 3, 512, 23, 2>;
  const auto two = make<unsigned, unsigned>(n, 2);
  for (bool pairs : {false, true}) compare<narrow_shapes>(two, pairs, reps, f);
  // the 4-rank distributed sort's merge: four runs by a tree of two-run merges (two passes) against the
  // four-run merge in one pass (the policy's, via merge_runs, and other shapes), keys and pairs
  const auto four = make<unsigned, unsigned>(n, 4);
  for (bool pairs : {false, true}) four_runs(four, pairs, reps, f);
  return 0;
}
