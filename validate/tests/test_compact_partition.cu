// GPU tests: the stable partition against the CPU reference and CUB (whose rejected part is reversed), and the
// reversed partition (CUB's layout) against both bit for bit: every tile kind, every pass, graph replay, bad input.
#include <algorithm>

#include <thrust/iterator/counting_iterator.h>

#include "tests/common/compact_harness.cuh"

using namespace carry_validate;

namespace {

template <class T>
compact_call<T> carry_partition(T bound, carry::compact_options opt) {
  return [=](void* t, std::size_t& b, T* in, T* out, std::int64_t* num, std::int64_t n) {
    return carry::partition(t, b, static_cast<const T*>(in), out, num, n, less_than<T>{bound}, opt);
  };
}

/// compact_modes[mode], the rejected items reversed (CUB's layout) where asked.
inline carry::compact_options partition_mode(int mode, bool reversed) {
  carry::compact_options o = compact_modes[mode];
  if (reversed) o.rejected = carry::partition_order::reversed;
  return o;
}

/// The CPU reference of a partition: the stable one, its rejected part reversed where asked.
template <class T, class Sel>
std::vector<T> reference_partition_in(const std::vector<T>& in, Sel selected, std::size_t& num,
                                      bool reversed) {
  auto expected = reference_partition(in, selected, num, true);
  if (reversed) std::reverse(expected.begin() + static_cast<std::ptrdiff_t>(num), expected.end());
  return expected;
}

template <class T>
void partition_case(const std::vector<T>& in, T bound, int mode, bool with_cub, bool reversed = false) {
  std::size_t num = 0;
  const auto expected = reference_partition_in(
      in, [&](std::size_t i) { return in[i] < bound; }, num, reversed);
  const auto r =
      run_compact(carry_partition<T>(bound, partition_mode(mode, reversed)), in, false, poison_byte, true);
  check_compact(r, expected, num, in.size());
  if (!with_cub) return;
  // CUB: selected in order, then the rejected in reverse order
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  device_buffer<T> d_in(static_cast<std::size_t>(n)), d_out(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_num(1);
  d_in.upload(in);
  std::size_t bytes = 0;
  REQUIRE(cub_partition_less(nullptr, bytes, d_in.ptr, d_out.ptr, d_num.ptr, n, bound, false,
                             cudaStream_t{}) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(cub_partition_less(temp.ptr, bytes, d_in.ptr, d_out.ptr, d_num.ptr, n, bound, false,
                             cudaStream_t{}) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_num.download(1)[0] == r.num);
  auto cub = d_out.download(static_cast<std::size_t>(n));
  if (!reversed) std::reverse(cub.begin() + r.num, cub.end()); // reversed: CUB's own layout, as it is
  REQUIRE(std::memcmp(cub.data(), r.out.data(), cub.size() * sizeof(T)) == 0);
}

} // namespace

TEST_CASE("partition u32: sizes x selectivity x algorithm, stable, against the CPU and CUB", "[partition]") {
  const std::int64_t tile = carry::compact_tuning::policy<std::uint32_t>::tile_items;
  // 1101 tiles: the count + scatter pass folds the counts in two rounds, ending on an odd count
  std::vector<std::int64_t> sizes{
      1,    2,      31,      tile - 1,      tile,          tile + 1,      2 * tile,
      7919, 104729, 1000003, (1 << 20) + 7, (1 << 22) + 3, 3 * tile + 17, 1101 * tile + 5};
  for (std::int64_t n : capped_sizes(sizes)) {
    const auto in =
        uniform_values<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n) + 1);
    for (int percent : {0, 1, 50, 99, 100})
      for (int m = 0; m < 3; ++m) {
        INFO("n = " << n << ", " << percent << " %, " << compact_mode_name(m));
        partition_case<std::uint32_t>(in, u32_bound(percent), m, m == 0 && (percent == 1 || percent == 50));
        INFO("reversed");
        partition_case<std::uint32_t>(in, u32_bound(percent), m, percent == 1 || percent == 50, true);
      }
  }
}

namespace {
struct low_byte_below_2 {
  __host__ __device__ bool operator()(std::uint64_t x) const { return (x & 0xff) < 2; }
};
struct odd {
  __host__ __device__ bool operator()(long long i) const { return i % 2 != 0; }
};
} // namespace

TEST_CASE("partition: u8 and u64 items; few distinct values (ties keep input order)", "[partition]") {
  for (std::int64_t n : capped_sizes({1, 2047, 2048, 2049, 4097, 65537, 1000003})) {
    INFO("n = " << n);
    for (bool reversed : {false, true}) {
      INFO((reversed ? "reversed" : "stable"));
      partition_case<std::uint8_t>(uniform_values<std::uint8_t>(static_cast<std::size_t>(n), 5), 100, 0, true,
                                   reversed);
      partition_case<std::uint64_t>(uniform_values<std::uint64_t>(static_cast<std::size_t>(n), 6),
                                    std::uint64_t{1} << 62, 0, true, reversed);
    }
    // few distinct u64 values: the order among equal items is visible through the index in the high bits
    std::vector<std::uint64_t> tagged(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < tagged.size(); ++i)
      tagged[i] = (std::uint64_t{i} << 8) | (i * 2654435761u >> 13) % 5;
    std::size_t num = 0;
    const auto expected = reference_partition(
        tagged, [&](std::size_t i) { return (tagged[i] & 0xff) < 2; }, num, true);
    check_compact(
        run_compact<std::uint64_t>(
            [](void* t, std::size_t& b, std::uint64_t* i, std::uint64_t* o, std::int64_t* c, std::int64_t k) {
              return carry::partition(t, b, static_cast<const std::uint64_t*>(i), o, c, k,
                                      low_byte_below_2{});
            },
            tagged, false, poison_byte, true),
        expected, num, tagged.size());
  }
}

TEST_CASE("partition over a counting iterator", "[partition][iterator]") {
  for (std::int64_t n : capped_sizes({5, 4097, 300001})) {
    device_buffer<long long> d_out(static_cast<std::size_t>(n));
    device_buffer<int> d_num(1);
    thrust::counting_iterator<long long> first(0);
    std::size_t bytes = 0;
    REQUIRE(carry::partition(nullptr, bytes, first, d_out.ptr, d_num.ptr, n, odd{}) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    temp.poison();
    REQUIRE(carry::partition(temp.ptr, bytes, first, d_out.ptr, d_num.ptr, n, odd{}) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<long long> expected;
    for (long long i = 1; i < n; i += 2) expected.push_back(i);
    const int num = static_cast<int>(expected.size());
    for (long long i = 0; i < n; i += 2) expected.push_back(i);
    REQUIRE(d_num.download(1)[0] == num);
    REQUIRE(d_out.download(static_cast<std::size_t>(n)) == expected);
  }
}

namespace {
/// A 12-byte item: the register tile.
struct triple {
  std::uint32_t a, b, c;
};
struct a_below {
  std::uint32_t bound;
  __host__ __device__ bool operator()(const triple& t) const { return t.a % 1000 < bound; }
};
} // namespace

TEST_CASE("reversed partition (CUB's layout): 12-byte items, a counting iterator, flags; every pass",
          "[partition][reversed]") {
  for (std::int64_t n : capped_sizes({1, 1023, 1024, 1025, 4097, 65537, 300007})) {
    std::vector<triple> in(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < in.size(); ++i)
      in[i] = {static_cast<std::uint32_t>(i * 2654435761u >> 7), static_cast<std::uint32_t>(i),
               ~static_cast<std::uint32_t>(i)};
    for (int m = 0; m < 3; ++m)
      for (bool reversed : {false, true}) {
        INFO("n = " << n << ", " << compact_mode_name(m) << (reversed ? ", reversed" : ", stable"));
        // ---- register tile: 12-byte items ----
        std::size_t num = 0;
        const auto expected = reference_partition_in(
            in, [&](std::size_t i) { return in[i].a % 1000 < 300; }, num, reversed);
        const carry::compact_options opt = partition_mode(m, reversed);
        const auto r = run_compact<triple>(
            [&](void* t, std::size_t& b, triple* i, triple* o, std::int64_t* c, std::int64_t k) {
              return carry::partition(t, b, static_cast<const triple*>(i), o, c, k, a_below{300}, opt);
            },
            in, false, poison_byte, true);
        check_compact(r, expected, num, in.size());
        // ---- index tile: a counting iterator, by predicate and by u8 flags ----
        device_buffer<long long> d_out(static_cast<std::size_t>(n), 16);
        device_buffer<std::int64_t> d_num(1);
        std::vector<unsigned char> flags(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < flags.size(); ++i)
          flags[i] = static_cast<unsigned char>((i * 40503u >> 6) % 3 == 0);
        device_buffer<unsigned char> d_flags(flags.size());
        d_flags.upload(flags);
        const thrust::counting_iterator<long long> first(0);
        for (bool flagged : {false, true}) {
          INFO((flagged ? "flags" : "predicate"));
          d_out.poison();
          d_num.poison();
          run_two_phase([&](void* t, std::size_t& b) {
            return flagged ? carry::partition_flagged(t, b, first, d_flags.ptr, d_out.ptr, d_num.ptr, n, opt)
                           : carry::partition(t, b, first, d_out.ptr, d_num.ptr, n, odd{}, opt);
          });
          std::vector<long long> iota(static_cast<std::size_t>(n));
          for (std::size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<long long>(i);
          std::size_t picked = 0;
          const auto want = reference_partition_in(
              iota, [&](std::size_t i) { return flagged ? flags[i] != 0 : i % 2 != 0; }, picked, reversed);
          REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(picked));
          REQUIRE(d_out.download(static_cast<std::size_t>(n)) == want);
          REQUIRE(d_out.guard_intact());
        }
      }
  }
}

TEST_CASE(
    "reversed partition: graph replay with changing inputs and dirty temp; n = 0; bad input writes nothing",
    "[partition][reversed][graph]") {
  carry::compact_options rev;
  rev.rejected = carry::partition_order::reversed;
  const std::int64_t tile = carry::compact_tuning::policy<std::uint32_t>::tile_items;
  const std::int64_t n = sanitize_mode() ? 20000 : 9 * tile + 13;
  device_buffer<std::uint32_t> d_in(static_cast<std::size_t>(n)), d_out(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_num(1);
  for (int m = 0; m < 3; ++m) {
    INFO(compact_mode_name(m));
    carry::compact_options opt = compact_modes[m];
    opt.rejected = carry::partition_order::reversed;
    std::size_t bytes = 0;
    REQUIRE(carry::partition(nullptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_out.ptr,
                             d_num.ptr, n, less_than<std::uint32_t>{u32_bound(50)}, opt) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    captured_call graph([&](cudaStream_t s) {
      std::size_t b = bytes;
      return carry::partition(temp.ptr, b, static_cast<const std::uint32_t*>(d_in.ptr), d_out.ptr, d_num.ptr,
                              n, less_than<std::uint32_t>{u32_bound(50)}, opt, s);
    });
    REQUIRE(graph.status == cudaSuccess);
    for (int rep = 0; rep < test_reps(8, 4); ++rep) {
      const auto in =
          uniform_values<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(rep) + 77);
      d_in.upload(in);
      d_out.poison();
      dirty_temp(temp.ptr, bytes, rep);
      REQUIRE(graph.replay(rep) == cudaSuccess);
      std::size_t num = 0;
      const auto want = reference_partition_in(
          in, [&](std::size_t i) { return in[i] < u32_bound(50); }, num, true);
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(num));
      REQUIRE(d_out.download(static_cast<std::size_t>(n)) == want);
    }
  }
  // ---- n = 0: the count 0, nothing else; bad input: an error and nothing written ----
  std::size_t bytes = 0;
  REQUIRE(carry::partition(nullptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_out.ptr, d_num.ptr,
                           n, less_than<std::uint32_t>{7}, rev) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  d_out.poison();
  d_num.poison();
  REQUIRE(carry::partition(temp.ptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_out.ptr, d_num.ptr,
                           0, less_than<std::uint32_t>{7}, rev) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_num.download(1)[0] == 0);
  d_num.poison();
  REQUIRE(carry::partition(temp.ptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_in.ptr, d_num.ptr,
                           n, less_than<std::uint32_t>{7}, rev) == cudaErrorInvalidValue); // in place
  std::size_t short_bytes = bytes - 1;
  REQUIRE(carry::partition(temp.ptr, short_bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_out.ptr,
                           d_num.ptr, n, less_than<std::uint32_t>{7}, rev) == cudaErrorInvalidValue);
  carry::compact_options bad;
  bad.rejected = static_cast<carry::partition_order>(7);
  REQUIRE(carry::partition(temp.ptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_out.ptr, d_num.ptr,
                           n, less_than<std::uint32_t>{7}, bad) == cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<std::int64_t> untouched_num = d_num.download(1);
  std::int64_t poison_num;
  std::memset(&poison_num, poison_byte, sizeof(poison_num));
  REQUIRE(untouched_num[0] == poison_num);
  const auto out = d_out.download(static_cast<std::size_t>(n));
  for (std::uint32_t v : out) REQUIRE(v == 0xA5A5A5A5u);
}
