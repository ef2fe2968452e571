// GPU tests: the radix sort under CUDA-graph capture and replay, with changing inputs (random, sorted,
// all-equal: the adaptive decisions change from replay to replay), temp storage holding anything, on two
// streams; every pass structure; values through an iterator (staged into temp storage); n = 0 under replay.
#include <catch2/catch.hpp>

#include <carry/scan/transform_input.hpp>

#include "tests/common/radix_harness.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;
using A = carry::radix_sort_algorithm;

namespace {
struct same_value { // values read through a transform iterator (not a pointer): staged by the sort
  template <class V>
  __host__ __device__ V operator()(const V& v) const {
    return v;
  }
};

/// Sorts K keys (and V values unless KEYS_ONLY) under one captured graph replayed eight times with new
/// inputs and temp storage set to 0xFF, zeros or random bytes before each replay, or left holding what
/// another call (uncaptured, n / 3 + 1 keys, a narrower bit range: another layout and pass count) wrote.
template <class K = std::uint32_t, class V = std::uint32_t, bool KEYS_ONLY = false>
void graph_case(std::int64_t n, A algorithm, bool double_buffer, bool iterator_values = false) {
  INFO("n " << n << " " << algorithm_name(algorithm) << (double_buffer ? " double buffer" : "")
            << (iterator_values ? " values through an iterator" : "") << " key bytes " << sizeof(K)
            << (KEYS_ONLY ? " keys only" : " value bytes ") << (KEYS_ONLY ? 0 : sizeof(V)));
  const std::size_t un = static_cast<std::size_t>(n);
  constexpr int bits = 8 * static_cast<int>(sizeof(K));
  device_buffer<K> kin(un), kout(un, 16);
  device_buffer<V> vin(un), vout(un, 16);
  carry::double_buffer<K> kb(kin.ptr, kout.ptr);
  carry::double_buffer<V> vb(vin.ptr, vout.ptr);
  const carry::radix_sort_options opt = with_algorithm(algorithm);
  // the sort of the first m items over bits [0, end) in this case's form
  auto call = [&](void* t, std::size_t& b, cudaStream_t s, std::int64_t m, int end) {
    if (double_buffer) {
      carry::double_buffer<K> k = kb; // the captured call's selectors start at 0
      carry::double_buffer<V> v = vb;
      if constexpr (KEYS_ONLY)
        return carry::sort_keys(t, b, k, m, 0, end, s);
      else
        return carry::sort_pairs(t, b, k, v, m, 0, end, s);
    }
    if constexpr (KEYS_ONLY)
      return carry::sort_keys(t, b, kin.ptr, kout.ptr, m, 0, end, opt, s);
    else if (iterator_values)
      return carry::sort_pairs(t, b, static_cast<const K*>(kin.ptr), kout.ptr,
                               carry::make_transform_input(static_cast<const V*>(vin.ptr), same_value{}),
                               vout.ptr, m, 0, end, opt, s);
    else
      return carry::sort_pairs(t, b, kin.ptr, kout.ptr, vin.ptr, vout.ptr, m, 0, end, opt, s);
  };
  std::size_t bytes = 0;
  REQUIRE(call(nullptr, bytes, 0, n, bits) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  captured_call g([&](cudaStream_t s) { return call(temp.ptr, bytes, s, n, bits); });
  REQUIRE(g.status == cudaSuccess);
  const key_dist dists[] = {key_dist::uniform,    key_dist::sorted,     key_dist::all_equal,
                            key_dist::two_values, key_dist::uniform,    key_dist::reversed,
                            key_dist::uniform,    key_dist::low_entropy};
  for (int rep = 0; rep < 8; ++rep) {
    INFO("replay " << rep << " " << dist_name(dists[rep]) << " temp " << rep % 4);
    if (rep % 4 == 0) CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0xFF, bytes));
    if (rep % 4 == 1) CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0, bytes));
    if (rep % 4 == 2) temp.upload(random_bits<unsigned char>(bytes, static_cast<std::uint64_t>(rep + n)));
    if (rep % 4 == 3) { // another call's leftovers: fewer keys, the low half of the bits, the same form
      std::size_t b = bytes;
      REQUIRE(call(temp.ptr, b, 0, n / 3 + 1, bits / 2) == cudaSuccess);
      CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    }
    const auto keys = make_keys<K>(un, dists[rep], static_cast<std::uint64_t>(n * 7 + rep));
    const auto values = random_bits<V>(un, static_cast<std::uint64_t>(rep + 100));
    kin.upload(keys);
    vin.upload(values);
    kout.poison();
    vout.poison();
    REQUIRE(g.replay(rep) == cudaSuccess);
    const auto order = reference_sort_order(keys, 0, bits, false);
    // an even number of passes: the double-buffer result is in the current buffer (kin), else in kout
    REQUIRE(same_bits((double_buffer ? kin : kout).download(un), permuted(keys, order)));
    if (!KEYS_ONLY) REQUIRE(same_bits((double_buffer ? vin : vout).download(un), permuted(values, order)));
    REQUIRE(kout.guard_intact());
    REQUIRE(vout.guard_intact());
  }
}
} // namespace

TEST_CASE("radix sort under graph replay: changing inputs, dirty temp storage, two streams", "[graph]") {
  for (std::int64_t n : capped_sizes({1, 4097, 60000, 100003, (1 << 20) + 3, (1 << 23) + 5}))
    for (A a : {A::automatic, A::onesweep, A::three_kernel}) graph_case(n, a, false);
  for (std::int64_t n : capped_sizes({4097, 100003, (1 << 20) + 3})) graph_case(n, A::automatic, true);
  // u32 keys only: wide_min_n + 3 keys take the wide tile (its first launch, under capture, sets the
  // kernel's dynamic-memory limit)
  for (std::int64_t n : capped_sizes({100003}))
    for (bool db : {false, true}) graph_case<std::uint32_t, std::uint32_t, true>(n, A::automatic, db);
  for (std::int64_t n :
       capped_sizes({carry::radix_tuning::wide_min_n<carry::radix_tuning::default_policy> + 3}))
    graph_case<std::uint32_t, std::uint32_t, true>(n, A::automatic, false);
}

TEST_CASE("radix sort under graph replay: values through an iterator, staged into temp storage",
          "[graph][iterators]") {
  for (std::int64_t n : capped_sizes({1, 4097, 100003, (1 << 20) + 3}))
    for (A a : {A::automatic, A::onesweep}) graph_case(n, a, false, true);
  graph_case<std::uint32_t, std::uint64_t>(100003, A::automatic, false, true);
}

TEST_CASE("radix sort under graph replay: 8-byte keys and values (8-byte tiles)", "[graph]") {
  using u64 = std::uint64_t;
  for (std::int64_t n : capped_sizes({3000, 50001, 100003, (1 << 20) + 3})) {
    for (A a : {A::automatic, A::onesweep}) {
      graph_case<u64, u64, true>(n, a, false);     // u64 keys
      graph_case<u64, u64>(n, a, false);           // u64 / u64 pairs
      graph_case<std::uint32_t, u64>(n, a, false); // u32 keys, 8-byte values: the value sets the tile
    }
    graph_case<u64, u64, true>(n, A::automatic, true);
  }
}

TEST_CASE("radix sort under graph replay with n = 0: nothing written", "[graph][empty]") {
  device_buffer<std::uint32_t> k(8), v(8);
  k.poison();
  v.poison();
  std::size_t bytes = 0;
  REQUIRE(carry::sort_pairs(nullptr, bytes, k.ptr, k.ptr + 4, v.ptr, v.ptr + 4, 0) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  captured_call g([&](cudaStream_t s) {
    return carry::sort_pairs(temp.ptr, bytes, k.ptr, k.ptr + 4, v.ptr, v.ptr + 4, 0, 0, 32, s);
  });
  REQUIRE(g.status == cudaSuccess);
  for (int rep = 0; rep < 3; ++rep) {
    REQUIRE(g.replay(rep) == cudaSuccess);
    REQUIRE(k.download(8) == std::vector<std::uint32_t>(8, 0xA5A5A5A5u));
    REQUIRE(v.download(8) == std::vector<std::uint32_t>(8, 0xA5A5A5A5u));
  }
  // values through an iterator: nothing staged, nothing written
  const auto values = carry::make_transform_input(static_cast<const std::uint32_t*>(v.ptr), same_value{});
  std::size_t it_bytes = 0;
  REQUIRE(carry::sort_pairs(nullptr, it_bytes, static_cast<const std::uint32_t*>(k.ptr), k.ptr + 4, values,
                            v.ptr + 4, 0) == cudaSuccess);
  device_buffer<unsigned char> it_temp(it_bytes);
  captured_call gi([&](cudaStream_t s) {
    return carry::sort_pairs(it_temp.ptr, it_bytes, static_cast<const std::uint32_t*>(k.ptr), k.ptr + 4,
                             values, v.ptr + 4, 0, 0, 32, s);
  });
  REQUIRE(gi.status == cudaSuccess);
  for (int rep = 0; rep < 3; ++rep) {
    REQUIRE(gi.replay(rep) == cudaSuccess);
    REQUIRE(k.download(8) == std::vector<std::uint32_t>(8, 0xA5A5A5A5u));
    REQUIRE(v.download(8) == std::vector<std::uint32_t>(8, 0xA5A5A5A5u));
  }
}
