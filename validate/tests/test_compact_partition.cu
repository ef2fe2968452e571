// GPU tests: the stable partition against the CPU reference and CUB (whose rejected part is reversed).
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

template <class T>
void partition_case(const std::vector<T>& in, T bound, int mode, bool with_cub) {
  std::size_t num = 0;
  const auto expected = reference_partition(in, [&](std::size_t i) { return in[i] < bound; }, num, true);
  const auto r = run_compact(carry_partition<T>(bound, compact_modes[mode]), in, false, poison_byte, true);
  check_compact(r, expected, num, in.size());
  if (!with_cub) return;
  // CUB: selected in order, then the rejected in reverse order
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  device_buffer<T> d_in(static_cast<std::size_t>(n)), d_out(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_num(1);
  d_in.upload(in);
  std::size_t bytes = 0;
  REQUIRE(cub_partition_less(nullptr, bytes, d_in.ptr, d_out.ptr, d_num.ptr, n, bound, false, cudaStream_t{}) ==
          cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(cub_partition_less(temp.ptr, bytes, d_in.ptr, d_out.ptr, d_num.ptr, n, bound, false, cudaStream_t{}) ==
          cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_num.download(1)[0] == r.num);
  auto cub = d_out.download(static_cast<std::size_t>(n));
  std::reverse(cub.begin() + r.num, cub.end());
  REQUIRE(std::memcmp(cub.data(), r.out.data(), cub.size() * sizeof(T)) == 0);
}

} // namespace

TEST_CASE("partition u32: sizes x selectivity x algorithm, stable, against the CPU and CUB", "[partition]") {
  const std::int64_t tile = carry::compact_tuning::policy<std::uint32_t>::tile_items;
  std::vector<std::int64_t> sizes{1,    2,      31,      tile - 1,      tile,          tile + 1,     2 * tile,
                                  7919, 104729, 1000003, (1 << 20) + 7, (1 << 22) + 3, 3 * tile + 17};
  for (std::int64_t n : capped_sizes(sizes)) {
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n) + 1);
    for (int percent : {0, 1, 50, 99, 100})
      for (int m = 0; m < 3; ++m) {
        INFO("n = " << n << ", " << percent << " %, " << compact_mode_name(m));
        partition_case<std::uint32_t>(in, u32_bound(percent), m, m == 0 && (percent == 1 || percent == 50));
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
    partition_case<std::uint8_t>(uniform_values<std::uint8_t>(static_cast<std::size_t>(n), 5), 100, 0, true);
    partition_case<std::uint64_t>(uniform_values<std::uint64_t>(static_cast<std::size_t>(n), 6), std::uint64_t{1} << 62,
                                  0, true);
    // few distinct u64 values: the order among equal items is visible through the index in the high bits
    std::vector<std::uint64_t> tagged(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < tagged.size(); ++i) tagged[i] = (std::uint64_t{i} << 8) | (i * 2654435761u >> 13) % 5;
    std::size_t num = 0;
    const auto expected =
        reference_partition(tagged, [&](std::size_t i) { return (tagged[i] & 0xff) < 2; }, num, true);
    check_compact(run_compact<std::uint64_t>(
                      [](void* t, std::size_t& b, std::uint64_t* i, std::uint64_t* o, std::int64_t* c, std::int64_t k) {
                        return carry::partition(t, b, static_cast<const std::uint64_t*>(i), o, c, k, low_byte_below_2{});
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
