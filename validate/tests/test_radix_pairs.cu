// GPU tests of sort_pairs / sort_pairs_descending (values of 1 to 16 bytes) and of the double-buffer
// forms of keys and pairs (the selector, the result in current(), no n-sized scratch); values from a
// counting iterator (an argsort) and a transform iterator; the stable merge of sorted runs.
#include <algorithm>

#include <catch2/catch.hpp>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "carry/radixsort/detail/merge.cuh"
#include "tests/common/radix_harness.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;
using A = carry::radix_sort_algorithm;

namespace {
template <class V>
std::vector<V> make_values(std::size_t n, std::uint64_t seed) {
  const auto bytes = random_bits<unsigned char>(n * sizeof(V), seed);
  std::vector<V> v(n);
  if (n) std::memcpy(v.data(), bytes.data(), n * sizeof(V));
  return v;
}

template <class K, class V>
void pairs_case(std::int64_t max_n, key_dist d = key_dist::uniform, bool every_form = true) {
  const std::int64_t tile = carry::radix_detail::tile_shape<K, V>::tile_items;
  const std::int64_t ctile = carry::radix_detail::cluster_shape<K, V>::tile_items;
  auto sizes = edge_sizes(tile);
  for (std::int64_t extra : {16 * ctile, 16 * ctile + 1, 16 * tile + 1})
    sizes.push_back(extra);                               // path limits
  for (std::int64_t n : sort_sizes<K, V>(sizes, max_n)) { // and both onesweep tiles, whatever max_n
    const auto keys = make_keys<K>(static_cast<std::size_t>(n), d, static_cast<std::uint64_t>(n) + 3);
    const auto values = make_values<V>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n) + 4);
    for (A a : sort_forms(every_form))
      for (bool desc : test_directions())
        check_sort<true>(keys, values, 0, 8 * static_cast<int>(sizeof(K)), desc, with_algorithm(a));
  }
}

} // namespace

// (a named namespace: a helper type of an unnamed one whose member is never called draws nvcc's #177)
namespace form_checks {
// Which onesweep kernels rank whole tiles and pad the last one (radix_detail::whole_form / padded_form):
// keys of up to 4 bytes, the sort's pairs of up to 4-byte keys and values, and not a pass whose digits
// are held (bin_by_key's, a Digit without `recompute`).
namespace rd = carry::radix_detail;
namespace rt = carry::radix_tuning;
struct held_digit {
  __device__ int bin_of(std::uint32_t k) const { return static_cast<int>(k & 255u); }
};
static_assert(!rd::digit_recompute<held_digit>::value);
static_assert(rd::whole_form<true, std::uint32_t, std::uint32_t, rd::radix_digit<std::uint32_t>> ==
              rt::whole_tiles<carry::radix_tuning::default_policy, true, 4, 4>);
static_assert(rd::padded_form<true, std::uint32_t, std::uint32_t, rd::radix_digit<std::uint32_t>> ==
              rt::padded_partial_tiles<carry::radix_tuning::default_policy, true, 4, 4>);
static_assert(!rd::whole_form<true, std::uint32_t, std::uint32_t, held_digit>);
static_assert(!rd::padded_form<true, std::uint32_t, std::uint32_t, held_digit>);
static_assert(rd::whole_form<false, std::uint32_t, rd::null_value, held_digit> ==
              rt::whole_tiles<carry::radix_tuning::default_policy, false, 4>);
static_assert(!rd::whole_form<true, std::uint64_t, std::uint64_t, rd::radix_digit<std::uint64_t>> ||
              8 <= rt::default_policy::whole_pair_bytes);
} // namespace form_checks

TEST_CASE("sort_pairs u32 keys with values of 1, 2, 4, 8, 12 and 16 bytes", "[radix]") {
  pairs_case<std::uint32_t, std::uint32_t>(std::int64_t{1} << 21);
  pairs_case<std::uint32_t, std::uint8_t>(70000);
  pairs_case<std::uint32_t, std::uint16_t>(70000, key_dist::uniform,
                                           false); // sanitizer mode: automatic alone
  pairs_case<std::uint32_t, std::uint64_t>(70000);
  pairs_case<std::uint32_t, value12>(70000, key_dist::uniform, false);
  pairs_case<std::uint32_t, value16>(70000, key_dist::uniform, false);
}

TEST_CASE("sort_pairs: u64, f32 and i16 keys; equal and two-valued keys keep value order", "[radix]") {
  pairs_case<std::uint64_t, std::uint32_t>(std::int64_t{1} << 21);
  pairs_case<std::uint64_t, std::uint64_t>(70000);
  pairs_case<float, std::uint32_t>(70000, key_dist::uniform, false); // sanitizer mode: automatic alone
  pairs_case<std::int16_t, std::uint32_t>(70000, key_dist::uniform, false);
  pairs_case<std::uint32_t, std::uint32_t>(200000, key_dist::all_equal, false);
  pairs_case<std::uint32_t, std::uint32_t>(200000, key_dist::two_values, false);
  pairs_case<std::uint32_t, std::uint32_t>(200000, key_dist::sorted, false);
  pairs_case<float, std::uint32_t>(200000, key_dist::specials);
}

TEST_CASE("sort_pairs: mid sizes by buckets (u32 keys with 2- and 4-byte values), and by the passes",
          "[radix]") {
  namespace rt = carry::radix_tuning;
  STATIC_REQUIRE(rt::bucket_max_n<carry::radix_tuning::default_policy> >= 100003);
  for (std::int64_t n : capped_sizes({70001, 100003})) {
    for (key_dist d : {key_dist::uniform, key_dist::low_entropy}) {
      const auto keys =
          make_keys<std::uint32_t>(static_cast<std::size_t>(n), d, static_cast<std::uint64_t>(n));
      const auto v32 = make_values<std::uint32_t>(static_cast<std::size_t>(n), 3);
      const auto v16 = make_values<std::uint16_t>(static_cast<std::size_t>(n), 4);
      // MSD pass 3, or the passes (bucket 0 too large; or a build whose mid tiles stop below n)
      const unsigned want = d == key_dist::uniform && bucket_tiles(n) ? 4u : 0u;
      for (bool desc : test_directions()) {
        INFO(dist_name(d));
        unsigned top = 99;
        check_sort<true>(keys, v32, 0, 32, desc, with_algorithm(A::automatic), true,
                         [&](const unsigned char* t) {
                           top = mid_control_after<std::uint32_t, std::uint32_t>(t, n, 4).bucket_top;
                         });
        REQUIRE(top == want);
        top = 99;
        check_sort<true>(keys, v16, 0, 32, desc, with_algorithm(A::automatic), true,
                         [&](const unsigned char* t) {
                           top = mid_control_after<std::uint32_t, std::uint16_t>(t, n, 4).bucket_top;
                         });
        REQUIRE(top == want);
      }
    }
  }
}

TEST_CASE("sort_pairs: cluster sizes by the local form and by the passes (u32 keys, 1- and 4-byte values)",
          "[radix]") {
  // radix_tuning::cluster_local: uniform keys take it, low-entropy ones and keys below 2^24 the passes
  // (where the local storage of keys and values fits the kernel's budget; otherwise the passes always)
  using nv = carry::radix_detail::null_value;
  const std::int64_t ctile = carry::radix_detail::cluster_shape<std::uint32_t, nv>::tile_items;
  for (std::int64_t n : capped_sizes({3, 1000, 4097, 16384, 40000, 16 * ctile - 1}))
    for (key_dist d : {key_dist::uniform, key_dist::low_entropy})
      for (std::uint32_t mask : {~0u, 0x00FFFFFFu}) {
        auto keys =
            make_keys<std::uint32_t>(static_cast<std::size_t>(n), d, static_cast<std::uint64_t>(n) + 21);
        for (auto& k : keys) k &= mask;
        INFO(dist_name(d) << " mask " << std::hex << mask);
        for (bool desc : test_directions()) {
          check_sort<true>(keys, make_values<std::uint32_t>(keys.size(), 22), 0, 32, desc,
                           with_algorithm(A::automatic));
          check_sort<true>(keys, make_values<std::uint8_t>(keys.size(), 23), 0, 32, desc,
                           with_algorithm(A::automatic));
        }
      }
}

TEST_CASE("sort_pairs: keys grouped by their low byte (bin_by_key's output; the demo's sort step)",
          "[radix]") {
  for (std::int64_t n : capped_sizes({1000, 100003, (1 << 20) + 3})) {
    const auto keys =
        grouped_by_low_byte(make_keys<std::uint32_t>(static_cast<std::size_t>(n), key_dist::uniform, 41));
    const auto values = make_values<std::uint32_t>(keys.size(), 42);
    for (A a : {A::automatic, A::onesweep})
      for (bool desc : test_directions()) check_sort<true>(keys, values, 0, 32, desc, with_algorithm(a));
  }
}

namespace {
struct widen_index { // value i of the transform-iterator case: a u64 that shows where item i went
  __host__ __device__ std::uint64_t operator()(std::uint32_t i) const { return 0x100000000ull * i + 7u; }
};
} // namespace

TEST_CASE("sort_pairs: values from a counting iterator (argsort) and a transform iterator",
          "[radix][iterators]") {
  for (std::int64_t n : capped_sizes({0, 1, 1000, 65537, 1000003, (1 << 22) + 3})) {
    INFO("n " << n);
    const auto keys = make_keys<std::uint32_t>(static_cast<std::size_t>(n), key_dist::uniform, 77);
    device_buffer<std::uint32_t> d_k(keys.size() + 1), d_ko(keys.size(), 8);
    device_buffer<std::uint32_t> d_idx(keys.size(), 8);
    device_buffer<std::uint64_t> d_wide(keys.size(), 8);
    d_k.upload(keys);
    for (bool desc : test_directions()) {
      INFO("desc " << desc);
      const auto order = reference_sort_order(keys, 0, 32, desc);
      std::vector<std::uint32_t> want_idx(order.size());
      std::vector<std::uint64_t> want_wide(order.size());
      for (std::size_t i = 0; i < order.size(); ++i) {
        want_idx[i] = static_cast<std::uint32_t>(order[i]);
        want_wide[i] = widen_index{}(static_cast<std::uint32_t>(order[i]));
      }
      const thrust::counting_iterator<std::uint32_t> iota(0);
      const auto wide = thrust::make_transform_iterator(iota, widen_index{});
      auto run = [&](auto values_in, auto* values_out) {
        d_ko.poison();
        std::size_t bytes = 0;
        auto call = [&](void* t) {
          return desc ? carry::sort_pairs_descending(t, bytes, d_k.ptr, d_ko.ptr, values_in, values_out, n)
                      : carry::sort_pairs(t, bytes, d_k.ptr, d_ko.ptr, values_in, values_out, n);
        };
        REQUIRE(call(nullptr) == cudaSuccess);
        auto temp = dirty_temp(bytes, 0xA5, 1);
        REQUIRE(call(temp.ptr) == cudaSuccess);
        CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
        REQUIRE(d_ko.download(keys.size()) == permuted(keys, order));
        REQUIRE(d_ko.guard_intact());
      };
      d_idx.poison();
      run(iota, d_idx.ptr);
      REQUIRE(d_idx.download(keys.size()) == want_idx);
      REQUIRE(d_idx.guard_intact());
      d_wide.poison();
      run(wide, d_wide.ptr);
      REQUIRE(d_wide.download(keys.size()) == want_wide);
      REQUIRE(d_wide.guard_intact());
    }
  }
}

TEST_CASE("sort_pairs: partial bit ranges", "[radix]") {
  const auto keys = make_keys<std::uint32_t>(100003, key_dist::uniform, 5);
  const auto values = make_values<std::uint32_t>(100003, 6);
  for (A a : {A::automatic, A::onesweep, A::three_kernel})
    for (auto [b, e] : {std::pair{4, 20}, std::pair{0, 1}, std::pair{31, 32}, std::pair{3, 3}})
      for (bool desc : test_directions()) check_sort<true>(keys, values, b, e, desc, with_algorithm(a));
}

namespace {
/// The double-buffer forms against the CPU reference: the selector flips after an odd number of passes,
/// the result is in current(), for every size class (cluster, onesweep with and without the finishing
/// copy: sorted input skips every pass).
template <bool HAS_VALUES>
void double_buffer_case(std::int64_t n, key_dist d, int begin, int end, bool desc,
                        carry::radix_sort_options opt = carry::radix_sort_options{}) {
  INFO("double buffer n " << n << " " << dist_name(d) << " bits " << begin << ".." << end
                          << (desc ? " desc" : ""));
  const auto keys = make_keys<std::uint32_t>(static_cast<std::size_t>(n), d, 41);
  const auto values = make_values<std::uint64_t>(static_cast<std::size_t>(n), 42);
  device_buffer<std::uint32_t> k0(keys.size(), 16), k1(keys.size(), 16);
  device_buffer<std::uint64_t> v0(keys.size(), 16), v1(keys.size(), 16);
  k0.upload(keys);
  k1.poison();
  v0.upload(values);
  v1.poison();
  carry::double_buffer<std::uint32_t> kb(k0.ptr, k1.ptr);
  carry::double_buffer<std::uint64_t> vb(v0.ptr, v1.ptr);
  auto call = [&](void* t, std::size_t& b) {
    if constexpr (HAS_VALUES)
      return desc ? carry::sort_pairs_descending(t, b, kb, vb, n, begin, end, opt)
                  : carry::sort_pairs(t, b, kb, vb, n, begin, end, opt);
    else
      return desc ? carry::sort_keys_descending(t, b, kb, n, begin, end, opt)
                  : carry::sort_keys(t, b, kb, n, begin, end, opt);
  };
  std::size_t bytes = 0;
  REQUIRE(call(nullptr, bytes) == cudaSuccess);
  REQUIRE(kb.selector == 0);                                                 // the size query flips nothing
  REQUIRE(bytes < static_cast<std::size_t>(n) * 4 + (std::size_t{1} << 22)); // no n-sized scratch
  auto temp = dirty_temp(bytes, 0xFF, 1);
  REQUIRE(call(temp.ptr, bytes) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const int passes = carry::radix_detail::radix_passes(begin, end, 8);
  REQUIRE(kb.selector == (n > 0 && passes % 2 == 1 ? 1 : 0));
  const auto order = reference_sort_order(keys, begin, end, desc);
  REQUIRE(same_bits((kb.selector ? k1 : k0).download(keys.size()), permuted(keys, order)));
  REQUIRE(k0.guard_intact());
  REQUIRE(k1.guard_intact());
  if (HAS_VALUES) {
    REQUIRE(vb.selector == kb.selector);
    REQUIRE(same_bits((vb.selector ? v1 : v0).download(keys.size()), permuted(values, order)));
  }
}
} // namespace

TEST_CASE("double-buffer sorts take options: every algorithm, adaptivity off", "[radix]") {
  for (std::int64_t n : capped_sizes({4097, 100003}))
    for (A a : {A::automatic, A::onesweep, A::three_kernel})
      for (bool adaptive : {true, false}) {
        INFO("algorithm " << static_cast<int>(a) << (adaptive ? "" : ", not adaptive"));
        double_buffer_case<false>(n, key_dist::sorted, 0, 32, false, with_algorithm(a, adaptive));
        double_buffer_case<true>(n, key_dist::uniform, 0, 24, true, with_algorithm(a, adaptive));
      }
}

TEST_CASE("double-buffer sort_keys and sort_pairs: selector, result, every path", "[radix]") {
  for (std::int64_t n : capped_sizes({1, 4095, 4097, 60000, 100003, (1 << 20) + 3}))
    for (key_dist d : {key_dist::uniform, key_dist::sorted, key_dist::all_equal, key_dist::two_values})
      for (auto [b, e] : {std::pair{0, 32}, std::pair{0, 24}, std::pair{8, 16}, std::pair{5, 5}})
        for (bool desc : test_directions()) {
          double_buffer_case<false>(n, d, b, e, desc);
          double_buffer_case<true>(n, d, b, e, desc);
        }
}

namespace merge_checks {
/// Sorted runs of the given sizes (few distinct keys: ties across runs; seed picks them), end to end, with
/// values tagging (run, position) and the order a stable merge of the runs puts them in.
template <class K>
struct merge_input {
  std::vector<K> keys;
  std::vector<std::uint32_t> values;
  std::vector<std::size_t> order;
  merge_input(const std::vector<std::int64_t>& sizes, bool desc, std::uint64_t seed) {
    const auto less = carry::radix_detail::merge_order<K>{desc};
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      auto k = make_keys<K>(static_cast<std::size_t>(sizes[r]),
                            r % 2 ? key_dist::two_values : key_dist::low_entropy, 7 * r + seed);
      std::stable_sort(k.begin(), k.end(), less);
      for (std::size_t i = 0; i < k.size(); ++i) {
        keys.push_back(k[i]);
        values.push_back(static_cast<std::uint32_t>(r << 24 | i));
      }
    }
    order.resize(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return less(keys[a], keys[b]); });
  }
  /// Outputs that differ from the stable merge (keys by their bits; values where with_values).
  std::int64_t wrong(const std::vector<K>& got, const std::vector<std::uint32_t>& gotv,
                     bool with_values) const {
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (std::memcmp(&got[i], &keys[order[i]], sizeof(K)) != 0) ++bad;
      if (with_values && gotv[i] != values[order[i]]) ++bad;
    }
    return bad;
  }
};

/// The device side of a merge_runs call over runs of the given sizes: the runs (every third in pong, where
/// the distributed sort's first level leaves them), outputs with a guard, ping, pong and the scratch.
template <class K>
struct merge_buffers {
  using V = std::uint32_t;
  using N = carry::radix_detail::null_value;
  std::vector<std::int64_t> sizes;
  std::size_t n = 0;
  device_buffer<K> keys, out, ping, pong;
  device_buffer<V> vals, vout, vping, vpong;
  device_buffer<std::int64_t> splits;
  static std::size_t total(const std::vector<std::int64_t>& sizes) {
    std::int64_t t = 0;
    for (auto m : sizes) t += m;
    return static_cast<std::size_t>(t);
  }
  explicit merge_buffers(const std::vector<std::int64_t>& s)
      : sizes(s), n(total(s)), keys(n + 1), out(n, 64), ping(n + 1), pong(n + 1), vals(n + 1), vout(n, 64),
        vping(n + 1), vpong(n + 1),
        splits(static_cast<std::size_t>(carry::radix_detail::merge_splits<K>(static_cast<std::int64_t>(n)))) {
  }
  /// The runs' contents, in keys and in pong (which holds the first level's runs in the distributed sort:
  /// here, copies of them).
  void load_runs(const merge_input<K>& in) {
    keys.upload(in.keys);
    vals.upload(in.values);
    pong.upload(in.keys);
    vpong.upload(in.values);
  }
  /// The runs' contents, poisoned outputs, ping and scratch.
  void load(const merge_input<K>& in) {
    load_runs(in);
    out.poison();
    vout.poison();
    ping.poison();
    vping.poison();
    splits.poison();
  }
  /// The merge of the runs (with their values where with_values) into out on stream s.
  cudaError_t merge(bool desc, bool with_values, cudaStream_t s) {
    std::vector<carry::radix_detail::sorted_run<K, V>> runs;
    std::vector<carry::radix_detail::sorted_run<K, N>> key_runs;
    std::int64_t at = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      const bool in_pong = r % 3 == 1;
      runs.push_back({(in_pong ? pong.ptr : keys.ptr) + at, (in_pong ? vpong.ptr : vals.ptr) + at, sizes[r]});
      key_runs.push_back({(in_pong ? pong.ptr : keys.ptr) + at, nullptr, sizes[r]});
      at += sizes[r];
    }
    return with_values ? carry::radix_detail::merge_runs(runs, out.ptr, vout.ptr, ping.ptr, vping.ptr,
                                                         pong.ptr, vpong.ptr, splits.ptr, desc, s)
                       : carry::radix_detail::merge_runs(key_runs, out.ptr, static_cast<N*>(nullptr),
                                                         ping.ptr, static_cast<N*>(nullptr), pong.ptr,
                                                         static_cast<N*>(nullptr), splits.ptr, desc, s);
  }
};

/// runs sorted runs of the given sizes merged by the tree into poisoned outputs: equal keys must come out
/// in run order.
template <class K>
void merge_case(const std::vector<std::int64_t>& sizes, bool desc, bool with_values) {
  const merge_input<K> in(sizes, desc, 1);
  merge_buffers<K> b(sizes);
  b.load(in);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(b.merge(desc, with_values, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  INFO("runs " << sizes.size() << " total " << b.n << " desc " << desc << " values " << with_values);
  CHECK(in.wrong(b.out.download(b.n), b.vout.download(b.n), with_values) == 0);
  CHECK(b.out.guard_intact());
  if (with_values) CHECK(b.vout.guard_intact());
}
} // namespace merge_checks

TEST_CASE("merge_runs: the stable merge of 1 to 7 sorted runs (empty runs, ties, tile edges; up to four in "
          "one pass), keys and pairs",
          "[radix][merge]") {
  // the tiles of keys alone and of keys with u32 values: merges of whole tiles, one item over and under
  const std::int64_t tile = carry::radix_detail::merge_shape<std::uint32_t, 0>::tile,
                     ptile = carry::radix_detail::merge_shape<std::uint32_t, 4>::tile;
  // and of the four-run merge (three or four runs in one pass)
  const std::int64_t t4 = carry::radix_detail::merge4_shape<std::uint32_t, 0>::tile,
                     p4 = carry::radix_detail::merge4_shape<std::uint32_t, 4>::tile;
  const std::vector<std::vector<std::int64_t>> layouts = {{},
                                                          {5},
                                                          {0, 0},
                                                          {1, 0},
                                                          {0, 7},
                                                          {tile, tile},
                                                          {tile - 1, tile + 1},
                                                          {3 * tile + 5, 1},
                                                          {ptile, ptile},
                                                          {ptile - 1, ptile + 1},
                                                          {2 * ptile, ptile},
                                                          {100000, 123457},
                                                          {1000, 0, 2000},
                                                          {tile, 5, ptile * 2, 1},
                                                          {t4, t4, t4, t4},
                                                          {t4 - 1, 1, t4 + 1, 0},
                                                          {0, 3 * t4 + 2, 0, 5},
                                                          {p4, p4 - 1, p4 + 1},
                                                          {1, 1, 1},
                                                          {0, 0, 0, 1},
                                                          {262145, 131071, 99999, 200003},
                                                          {3 * p4, 0, 0, 0},
                                                          {7, 77, 777, 7777, 77777},
                                                          {50000, 0, 50001, 3, 49999, 1, 12345}};
  for (const auto& l : layouts)
    for (bool desc : {false, true})
      for (bool values : {false, true}) merge_checks::merge_case<std::uint32_t>(l, desc, values);
  for (bool desc : {false, true}) {
    merge_checks::merge_case<float>({30000, 30001, 29999}, desc,
                                    true); // -0.0 before +0.0, NaNs by their bits
    merge_checks::merge_case<std::uint64_t>({1, 70000, 65535}, desc, true);
    merge_checks::merge_case<std::uint64_t>({4097, 1, 70000, 65535, 3}, desc, true);
    merge_checks::merge_case<std::uint64_t>({30000, 0, 2, 29999}, desc, false);
    const std::int64_t wide = carry::radix_detail::merge_shape<std::uint64_t, 0>::tile; // 8-byte keys' tile
    merge_checks::merge_case<std::uint64_t>({wide, wide + 1, 40000}, desc, false);
    merge_checks::merge_case<std::int8_t>({5000, 1, 6000, 0}, desc, false);
  }
}

TEST_CASE("merge_runs captured in a CUDA graph: replays with new runs, on two streams, the scratch and ping "
          "holding anything",
          "[radix][merge][graph]") {
  using merge_checks::merge_buffers;
  using merge_checks::merge_input;
  const std::int64_t t4 = carry::radix_detail::merge4_shape<std::uint32_t, 0>::tile,
                     p4 = carry::radix_detail::merge4_shape<std::uint32_t, 4>::tile;
  // four runs (pairs: one four-run pass; keys: the two-run tree through ping), five (a tree in either case:
  // ping, then pong), two, and one lone run beside four (copied along)
  const std::vector<std::vector<std::int64_t>> layouts = {
      {p4 * 7 + 3, 65537, 0, t4 * 5 - 1}, {40000, 3, 77777, 1, 12345}, {100003, 99999}, {5, 6, 7, 8, 30001}};
  for (const auto& l : layouts)
    for (bool desc : test_directions())
      for (bool values : {false, true}) {
        merge_buffers<std::uint32_t> b(l);
        b.load(merge_input<std::uint32_t>(l, desc, 1)); // the capture records launches only
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        captured_call g([&](cudaStream_t s) { return b.merge(desc, values, s); });
        REQUIRE(g.status == cudaSuccess);
        // the scratch (splits) and ping before each replay: zeros, every bit set, random bytes, what the
        // last replay left (its samples, tags and bounds: a stale plan must not be trusted)
        for (int rep = 0; rep < test_reps(6, 3); ++rep) {
          const merge_input<std::uint32_t> in(l, desc, 100 + static_cast<std::uint64_t>(rep));
          const bool leftover = rep % 4 == 3;
          if (leftover)
            b.load_runs(in); // only the runs change, the rest holds the last replay's bytes
          else
            b.load(in);
          const std::size_t words = b.splits.n * sizeof(std::int64_t);
          if (rep % 4 == 0) CARRY_CUDA_OR_DIE(cudaMemset(b.splits.ptr, 0, words));
          if (rep % 4 == 1) {
            CARRY_CUDA_OR_DIE(cudaMemset(b.splits.ptr, 0xFF, words));
            CARRY_CUDA_OR_DIE(cudaMemset(b.ping.ptr, 0xFF, b.n * sizeof(std::uint32_t)));
          }
          if (rep % 4 == 2) {
            const auto noise = random_bits<unsigned char>(words, 31 + static_cast<std::uint64_t>(rep));
            if (words)
              CARRY_CUDA_OR_DIE(cudaMemcpy(b.splits.ptr, noise.data(), words, cudaMemcpyHostToDevice));
          }
          REQUIRE(g.replay(rep) == cudaSuccess);
          INFO("runs " << l.size() << " total " << b.n << " desc " << desc << " values " << values
                       << " replay " << rep);
          CHECK(in.wrong(b.out.download(b.n), b.vout.download(b.n), values) == 0);
          CHECK(b.out.guard_intact());
          if (values) CHECK(b.vout.guard_intact());
        }
      }
}
