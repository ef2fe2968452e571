// GPU tests: the by-key scans (inclusive/exclusive, sums and any operator) against the CPU reference and
// CUB: run lengths 1, 2, random, one run of all n, runs across tile boundaries, keys of 1 to 16 bytes with
// a custom equality, a non-commutative operator, float determinism across runs and streams, in place,
// n = 0 and bad arguments.
#include <cub/device/device_scan.cuh>

#include <random>

#include "tests/common/keyed_cases.cuh"
#include "tests/common/scan_harness.cuh"

#include <carry/scan/device_scan_by_key.cuh>

using namespace carry_validate;

namespace {

constexpr std::int64_t tile = carry::tuning::keyed_scan_policy<std::uint32_t, std::uint32_t>::tile_items;

std::vector<std::int64_t> sizes() {
  return capped_sizes({1, 2, 33, tile - 1, tile, tile + 1, 3 * tile + 7, 100003, 1000003});
}

template <class K, class V, class Eq, class Op>
void reference(const std::vector<K>& keys, const std::vector<V>& values, Eq eq, Op op, V init,
               std::vector<V>& inc, std::vector<V>& exc) {
  inc.resize(keys.size());
  exc.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool head = i == 0 || !eq(keys[i - 1], keys[i]);
    exc[i] = head ? init : op(exc[i - 1], values[i - 1]); // init op v[s] op ... op v[i - 1]
    inc[i] = head ? values[i] : op(inc[i - 1], values[i]);
  }
}

} // namespace

TEST_CASE("inclusive/exclusive_sum_by_key u32: run lengths 1, 2, 8, one run; against the CPU and CUB",
          "[scan][by_key]") {
  for (std::int64_t n : sizes()) {
    for (int mean : {0, 1, 2, 8, -1}) {
      INFO("n = " << n << ", mean run " << mean);
      const auto keys =
          run_keys(n, mean, static_cast<std::uint64_t>(n) * 7 + static_cast<std::uint64_t>(mean + 2));
      std::vector<std::uint32_t> values(keys.size());
      std::mt19937 g(static_cast<unsigned>(n));
      for (auto& v : values) v = g() % 1000;
      std::vector<std::uint32_t> inc, exc;
      reference(keys, values, carry::equal_to{}, carry::sum{}, 0u, inc, exc);
      device_buffer<std::uint32_t> d_keys(keys.size()), d_values(keys.size()), d_out(keys.size(), 16),
          d_cub(keys.size());
      d_keys.upload(keys);
      d_values.upload(values);
      const std::uint32_t* k = d_keys.ptr;
      const std::uint32_t* v = d_values.ptr;
      for (int exclusive = 0; exclusive < 2; ++exclusive) {
        d_out.poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return exclusive ? carry::exclusive_sum_by_key(t, b, k, v, d_out.ptr, n)
                           : carry::inclusive_sum_by_key(t, b, k, v, d_out.ptr, n);
        });
        REQUIRE(d_out.download(keys.size()) == (exclusive ? exc : inc));
        REQUIRE(d_out.guard_intact());
        std::size_t bytes = 0;
        auto cub = [&](void* t, std::size_t& b) {
          return exclusive ? cub::DeviceScan::ExclusiveSumByKey(t, b, k, v, d_cub.ptr, static_cast<int>(n))
                           : cub::DeviceScan::InclusiveSumByKey(t, b, k, v, d_cub.ptr, static_cast<int>(n));
        };
        REQUIRE(cub(nullptr, bytes) == cudaSuccess);
        device_buffer<unsigned char> temp(bytes);
        REQUIRE(cub(temp.ptr, bytes) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(d_cub.download(keys.size()) == (exclusive ? exc : inc));
      }
    }
  }
}

TEST_CASE("scan_by_key: a non-commutative operator, 16-byte keys with a custom equality, in place",
          "[scan][by_key]") {
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    std::vector<wide_key> keys;
    std::vector<byte_matrix> values;
    wide_keyed_input(n, static_cast<std::uint64_t>(n) + 1, keys, values);
    const byte_matrix init{3, 1, 4, 1};
    std::vector<byte_matrix> inc, exc;
    reference(keys, values, same_id{}, byte_product{}, init, inc, exc);
    device_buffer<wide_key> d_keys(keys.size());
    device_buffer<byte_matrix> d_values(keys.size()), d_out(keys.size(), 16);
    d_keys.upload(keys);
    for (int exclusive = 0; exclusive < 2; ++exclusive) {
      for (bool in_place : {false, true}) {
        INFO((exclusive ? "exclusive" : "inclusive") << (in_place ? ", in place" : ""));
        d_values.upload(values);
        d_out.poison();
        byte_matrix* out = in_place ? d_values.ptr : d_out.ptr;
        run_two_phase([&](void* t, std::size_t& b) {
          return exclusive ? carry::exclusive_scan_by_key(t, b, d_keys.ptr, d_values.ptr, out, byte_product{},
                                                          init, n, same_id{})
                           : carry::inclusive_scan_by_key(t, b, d_keys.ptr, d_values.ptr, out, byte_product{},
                                                          n, same_id{});
        });
        const auto got = (in_place ? d_values : d_out).download(keys.size());
        const auto& want = exclusive ? exc : inc;
        REQUIRE(std::equal(got.begin(), got.end(), want.begin()));
      }
    }
  }
}

TEST_CASE(
    "scan_by_key of floats, deterministic: the same bits every run and on every stream; n = 0; bad arguments",
    "[scan][by_key]") {
  const std::int64_t n = sanitize_mode() ? 20000 : (1 << 22) + 3;
  const auto keys = run_keys(n, 8, 3);
  std::vector<float> values(keys.size());
  std::mt19937 g(4);
  for (auto& v : values) v = static_cast<float>(g() % 100000) / 7.0f;
  device_buffer<std::uint32_t> d_keys(keys.size());
  device_buffer<float> d_values(keys.size()), d_out(keys.size());
  d_keys.upload(keys);
  d_values.upload(values);
  carry::scan_options det;
  det.deterministic = true;
  std::size_t bytes = 0;
  REQUIRE(carry::inclusive_scan_by_key(nullptr, bytes, d_keys.ptr, d_values.ptr, d_out.ptr, carry::sum{}, n,
                                       carry::equal_to{}, det) == cudaSuccess);
  const std::vector<float> first = same_bits_every_run(
      bytes,
      [&](void* t, std::size_t b, cudaStream_t s) {
        return carry::inclusive_scan_by_key(t, b, d_keys.ptr, d_values.ptr, d_out.ptr, carry::sum{}, n,
                                            carry::equal_to{}, det, s);
      },
      [&] { return d_out.download(keys.size()); });
  // the sums take the options after the equality functor too: the same bits
  {
    device_buffer<unsigned char> t(bytes);
    REQUIRE(carry::inclusive_sum_by_key(t.ptr, bytes, d_keys.ptr, d_values.ptr, d_out.ptr, n,
                                        carry::equal_to{}, det, cudaStream_t{}) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto again = d_out.download(keys.size());
    REQUIRE(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)) == 0);
    std::size_t ebytes = 0;
    REQUIRE(carry::exclusive_sum_by_key(nullptr, ebytes, d_keys.ptr, d_values.ptr, d_out.ptr, n,
                                        carry::equal_to{}, det) == cudaSuccess);
    device_buffer<unsigned char> et(ebytes);
    REQUIRE(carry::exclusive_sum_by_key(et.ptr, ebytes, d_keys.ptr, d_values.ptr, d_out.ptr, n,
                                        carry::equal_to{}, det, cudaStream_t{}) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto excl = d_out.download(keys.size());
    // each run seeded with 0: 0 at its first item, that item's value at its second
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (i == 0 || keys[i] != keys[i - 1]) {
        REQUIRE(excl[i] == 0.0f);
        if (i + 1 < keys.size() && keys[i + 1] == keys[i]) REQUIRE(excl[i + 1] == values[i]);
      }
  }
  device_buffer<unsigned char> temp(bytes);
  // each run's sum against a double-precision reference
  double run = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    run = i == 0 || keys[i] != keys[i - 1] ? values[i] : run + values[i];
    REQUIRE(std::fabs(first[i] - run) <= 1e-4 * std::fabs(run) + 1e-3);
  }
  // n = 0 writes nothing; a null key pointer is refused and writes nothing
  device_buffer<float> d_none(4, 4);
  d_none.poison();
  REQUIRE(carry::inclusive_sum_by_key(temp.ptr, bytes, d_keys.ptr, d_values.ptr, d_none.ptr, 0) ==
          cudaSuccess);
  REQUIRE(carry::inclusive_sum_by_key(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                      d_values.ptr, d_none.ptr, 4) == cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_none.guard_intact());
  const auto untouched = d_none.download(4);
  for (float x : untouched) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    REQUIRE(bits == 0xA5A5A5A5u);
  }
}

namespace {

/// Not associative: any change in how a run's values are grouped changes the bits.
struct leaky_sum {
  __host__ __device__ float operator()(float a, float b) const { return a * 0.75f + b; }
};

/// Runs of 1 to 16 items, with runs of up to 3 tiles and of 20 to 70 tiles (past a group of 32 tiles
/// of the canonical look-back) among them.
std::vector<std::uint32_t> mixed_run_keys(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
  std::mt19937_64 g(seed);
  std::uint32_t v = 3;
  for (std::size_t i = 0; i < k.size(); ++v) {
    const std::uint64_t pick = g() % 100;
    const std::uint64_t len = pick < 90   ? 1 + g() % 16
                              : pick < 97 ? 1 + g() % (3 * tile)
                                          : 20 * tile + g() % (50 * tile);
    for (std::uint64_t j = 0; j < len && i < k.size(); ++j) k[i++] = v;
  }
  return k;
}

} // namespace

TEST_CASE("scan_by_key stopping the look-back at a run start: deterministic floats get the full canonical "
          "fold's bits; u32 sums exact; runs of 1 to 70 tiles",
          "[scan][by_key]") {
  using K = std::uint32_t;
  using P = carry::tuning::keyed_scan_policy<K, float>;
  const std::int64_t n = sanitize_mode() ? 40 * tile + 5 : 300 * tile + 77;
  carry::scan_options det;
  det.deterministic = true;
  std::vector<float> values(static_cast<std::size_t>(n));
  std::mt19937 g(11);
  for (auto& v : values) v = static_cast<float>(g() % 100000) / 7.0f;
  device_buffer<K> d_keys(values.size());
  device_buffer<float> d_values(values.size()), d_out(values.size());
  d_values.upload(values);
  for (int shape = 0; shape < 3; ++shape) {
    // mixed runs; one run of all n (only tile 0 starts a run); runs of one to three tiles
    const auto keys =
        shape == 0 ? mixed_run_keys(n, 21) : run_keys(n, shape == 1 ? -1 : static_cast<int>(2 * tile), 22);
    d_keys.upload(keys);
    auto both = [&](auto b) {
      using B = decltype(b);
      auto call = [&](auto behaviour, void* t, std::size_t& bytes, cudaStream_t s) {
        return carry::detail::dispatch_keyed<P>(t, bytes, static_cast<const K*>(d_keys.ptr),
                                                static_cast<const float*>(d_values.ptr), behaviour, n, det,
                                                true, s);
      };
      std::size_t bytes = 0;
      REQUIRE(call(b, nullptr, bytes, cudaStream_t{}) == cudaSuccess);
      const auto cut = same_bits_every_run(
          bytes, [&](void* t, std::size_t sz, cudaStream_t s) { return call(b, t, sz, s); },
          [&] { return d_out.download(values.size()); });
      d_out.poison();
      const auto full = same_bits_every_run(
          bytes, [&](void* t, std::size_t sz, cudaStream_t s) { return call(uncut<B>{b}, t, sz, s); },
          [&] { return d_out.download(values.size()); });
      REQUIRE(std::memcmp(cut.data(), full.data(), cut.size() * sizeof(float)) == 0);
      return cut;
    };
    using carry::detail::scan_by_key_behaviour;
    const auto sums = both(scan_by_key_behaviour<false, K, float, carry::sum, carry::equal_to, float*>{
        carry::equal_to{}, carry::sum{}, 0.0f, d_out.ptr});
    both(scan_by_key_behaviour<true, K, float, leaky_sum, carry::equal_to, float*>{
        carry::equal_to{}, leaky_sum{}, 1.5f, d_out.ptr});
    // the fast look-back (it stops at a run start too) on u32 values: exact against the CPU
    {
      std::vector<std::uint32_t> u(keys.size()), want;
      for (std::size_t i = 0; i < u.size(); ++i) u[i] = static_cast<std::uint32_t>(i * 2654435761u) >> 7u;
      std::vector<std::uint32_t> exc_unused;
      reference(keys, u, carry::equal_to{}, carry::sum{}, 0u, want, exc_unused);
      device_buffer<std::uint32_t> d_u(u.size()), d_uo(u.size());
      d_u.upload(u);
      d_uo.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::inclusive_sum_by_key(t, b, static_cast<const K*>(d_keys.ptr),
                                           static_cast<const std::uint32_t*>(d_u.ptr), d_uo.ptr, n);
      });
      REQUIRE(d_uo.download(u.size()) == want);
    }
    // the sums against a double-precision reference
    double run = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      run = i == 0 || keys[i] != keys[i - 1] ? values[i] : run + values[i];
      REQUIRE(std::fabs(sums[i] - run) <= 1e-4 * std::fabs(run) + 1e-3);
    }
  }
}

TEST_CASE("scan_by_key under graph replay: changing keys and values, dirty temp storage",
          "[scan][by_key][graph]") {
  const std::int64_t n = sanitize_mode() ? 20000 : 9 * tile + 5;
  device_buffer<std::uint32_t> d_keys(static_cast<std::size_t>(n)), d_values(static_cast<std::size_t>(n)),
      d_inc(static_cast<std::size_t>(n)), d_exc(static_cast<std::size_t>(n));
  const std::uint32_t* k = d_keys.ptr;
  const std::uint32_t* v = d_values.ptr;
  std::size_t bytes = 0, b2 = 0;
  REQUIRE(carry::inclusive_sum_by_key(nullptr, bytes, k, v, d_inc.ptr, n) == cudaSuccess);
  REQUIRE(carry::exclusive_scan_by_key(nullptr, b2, k, v, d_exc.ptr, carry::sum{}, 5u, n) == cudaSuccess);
  bytes = std::max(bytes, b2);
  device_buffer<unsigned char> temp(bytes);
  captured_call graph([&](cudaStream_t s) {
    std::size_t b = bytes;
    const cudaError_t e = carry::inclusive_sum_by_key(temp.ptr, b, k, v, d_inc.ptr, n, carry::equal_to{}, s);
    if (e != cudaSuccess) return e;
    return carry::exclusive_scan_by_key(temp.ptr, b, k, v, d_exc.ptr, carry::sum{}, 5u, n, carry::equal_to{},
                                        s);
  });
  REQUIRE(graph.status == cudaSuccess);
  for (int rep = 0; rep < test_reps(8, 4); ++rep) {
    const auto keys = run_keys(n, rep % 2 == 0 ? 3 : 40, static_cast<std::uint64_t>(rep) + 100);
    std::vector<std::uint32_t> values(keys.size());
    std::mt19937 g(static_cast<unsigned>(rep));
    for (auto& x : values) x = g() % 1000;
    std::vector<std::uint32_t> inc, exc;
    reference(keys, values, carry::equal_to{}, carry::sum{}, 5u, inc, exc);
    d_keys.upload(keys);
    d_values.upload(values);
    dirty_temp(temp.ptr, bytes, rep);
    REQUIRE(graph.replay(rep) == cudaSuccess);
    REQUIRE(d_inc.download(keys.size()) == inc);
    REQUIRE(d_exc.download(keys.size()) == exc);
  }
}
