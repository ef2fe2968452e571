// GPU tests: select_flagged, select_if, select_unique against the CPU reference and CUB, every path.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "tests/common/compact_harness.cuh"

using namespace carry_validate;

namespace {

constexpr std::int64_t tile_u32 = carry::compact_tuning::policy<std::uint32_t>::tile_items;

/// Sizes around the tile, primes, several waves of the single pass, a seeded random size.
std::vector<std::int64_t> select_sizes(std::int64_t tile) {
  std::vector<std::int64_t> s{1,
                              2,
                              31,
                              tile - 1,
                              tile,
                              tile + 1,
                              2 * tile,
                              7919,
                              104729,
                              3 * tile + 17,
                              1000003,
                              (1 << 20) + 7,
                              (1 << 22) + 3};
  std::mt19937_64 g(tile);
  s.push_back(1 + static_cast<std::int64_t>(g() % (1 << 21)));
  return capped_sizes(s);
}

template <class T>
compact_call<T> carry_select_if(T bound, carry::compact_options opt) {
  return [=](void* t, std::size_t& b, T* in, T* out, std::int64_t* num, std::int64_t n) {
    if (in == out) return carry::select_if(t, b, in, num, n, less_than<T>{bound});
    return carry::select_if(t, b, static_cast<const T*>(in), out, num, n, less_than<T>{bound}, opt);
  };
}

template <class T>
std::vector<T> expected_select_if(const std::vector<T>& in, T bound, std::size_t& num) {
  return reference_partition(
      in, [&](std::size_t i) { return in[i] < bound; }, num, false);
}

/// CUB on the same input: count and selected items.
template <class T, class CubFn>
void check_against_cub(CubFn cub, const std::vector<T>& in, const compact_result<T>& r) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  device_buffer<T> d_in(n), d_out(n);
  device_buffer<std::int64_t> d_num(1);
  d_in.upload(in);
  std::size_t bytes = 0;
  REQUIRE(cub(nullptr, bytes, d_in.ptr, d_out.ptr, d_num.ptr, n) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(cub(temp.ptr, bytes, d_in.ptr, d_out.ptr, d_num.ptr, n) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::int64_t num = d_num.download(1)[0];
  REQUIRE(num == r.num);
  const auto got = d_out.download(static_cast<std::size_t>(num));
  REQUIRE(std::memcmp(got.data(), r.out.data(), static_cast<std::size_t>(num) * sizeof(T)) == 0);
}

} // namespace

TEST_CASE("select_if u32: sizes x selectivity x algorithm, against the CPU and CUB", "[select]") {
  for (std::int64_t n : select_sizes(tile_u32)) {
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n));
    for (int percent : {0, 1, 50, 99, 100}) {
      const std::uint32_t bound = u32_bound(percent);
      std::size_t num = 0;
      const auto expected = expected_select_if(in, bound, num);
      for (int m = 0; m < 3; ++m) {
        INFO("n = " << n << ", " << percent << " %, " << compact_mode_name(m));
        const auto r = run_compact(carry_select_if<std::uint32_t>(bound, compact_modes[m]), in, false);
        check_compact(r, expected, num, num);
        if (m == 0 && (percent == 50 || percent == 1))
          check_against_cub<std::uint32_t>(
              [&](void* t, std::size_t& b, const std::uint32_t* i, std::uint32_t* o, std::int64_t* c,
                  std::int64_t k) {
                return cub_select_if_less(t, b, i, o, c, k, bound, false, cudaStream_t{});
              },
              in, r);
      }
    }
  }
}

TEST_CASE("select_if: other item types (u8, u64, float)", "[select]") {
  for (std::int64_t n : capped_sizes({1, 2047, 2048, 2049, 4097, 65537, 1000003})) {
    INFO("n = " << n);
    {
      const auto in = uniform_values<std::uint8_t>(static_cast<std::size_t>(n), 11);
      std::size_t num = 0;
      const auto expected = expected_select_if<std::uint8_t>(in, 77, num);
      for (int m = 0; m < 3; ++m)
        check_compact(run_compact(carry_select_if<std::uint8_t>(77, compact_modes[m]), in, false), expected,
                      num, num);
    }
    {
      const auto in = uniform_values<std::uint64_t>(static_cast<std::size_t>(n), 12);
      const std::uint64_t bound = std::uint64_t{1} << 63;
      std::size_t num = 0;
      const auto expected = expected_select_if(in, bound, num);
      for (int m = 0; m < 3; ++m) {
        const auto r = run_compact(carry_select_if<std::uint64_t>(bound, compact_modes[m]), in, false);
        check_compact(r, expected, num, num);
        if (m == 0)
          check_against_cub<std::uint64_t>(
              [&](void* t, std::size_t& b, const std::uint64_t* i, std::uint64_t* o, std::int64_t* c,
                  std::int64_t k) {
                return cub_select_if_less(t, b, i, o, c, k, bound, false, cudaStream_t{});
              },
              in, r);
      }
    }
    {
      const auto in = uniform_values<float>(static_cast<std::size_t>(n), 13);
      std::size_t num = 0;
      const auto expected = expected_select_if(in, 0.3f, num);
      for (int m = 0; m < 3; ++m)
        check_compact(run_compact(carry_select_if<float>(0.3f, compact_modes[m]), in, false), expected, num,
                      num);
    }
  }
}

namespace {
/// select_flagged with flags of type F (values from `flag_of`), against the reference.
template <class T, class F, class FlagOf>
void flagged_case(const std::vector<T>& in, FlagOf flag_of, int mode, bool in_place) {
  const std::size_t n = in.size();
  using H = std::conditional_t<std::is_same<F, bool>::value, unsigned char, F>; // no std::vector<bool>
  std::vector<H> flags(n);
  for (std::size_t i = 0; i < n; ++i) flags[i] = static_cast<H>(static_cast<F>(flag_of(i)));
  device_buffer<F> d_flags(n);
  if (n) CARRY_CUDA_OR_DIE(cudaMemcpy(d_flags.ptr, flags.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  std::size_t num = 0;
  const auto expected = reference_partition(
      in, [&](std::size_t i) { return flags[i] != H(0); }, num, false);
  const F* fp = d_flags.ptr;
  const carry::compact_options opt = compact_modes[mode];
  const auto r = run_compact<T>(
      [&](void* t, std::size_t& b, T* i, T* o, std::int64_t* c, std::int64_t k) {
        if (i == o) return carry::select_flagged(t, b, i, fp, c, k);
        return carry::select_flagged(t, b, static_cast<const T*>(i), fp, o, c, k, opt);
      },
      in, in_place);
  check_compact(r, expected, num, num);
  if constexpr (std::is_same<T, std::uint32_t>::value && std::is_same<F, std::uint8_t>::value) {
    if (!in_place && mode == 0)
      check_against_cub<T>(
          [&](void* t, std::size_t& b, const T* i, T* o, std::int64_t* c, std::int64_t k) {
            return cub_flagged(t, b, i, fp, o, c, k, false, false, cudaStream_t{});
          },
          in, r);
  }
}
} // namespace

TEST_CASE("select_flagged: flag types and values that are neither 0 nor 1", "[select]") {
  for (std::int64_t n : select_sizes(tile_u32)) {
    INFO("n = " << n);
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 21);
    for (int m = 0; m < 3; ++m) {
      INFO(compact_mode_name(m));
      flagged_case<std::uint32_t, std::uint8_t>(
          in,
          [](std::size_t i) {
            return static_cast<std::uint8_t>((i * 2654435761u >> 7) % 4 == 0 ? 0 : (i % 7) * 37);
          },
          m, false);
      flagged_case<std::uint32_t, int>(
          in, [](std::size_t i) { return (i * 40503u >> 5) % 3 == 0 ? -7 : 0; }, m, false);
      flagged_case<std::uint32_t, bool>(
          in, [](std::size_t i) { return (i * 2654435761u >> 9) % 100 < 50; }, m, false);
    }
    flagged_case<std::uint32_t, std::uint8_t>(
        in, [](std::size_t) { return std::uint8_t{0}; }, 0, false);
    flagged_case<std::uint32_t, std::uint8_t>(
        in, [](std::size_t) { return std::uint8_t{1}; }, 0, false);
  }
}

namespace {
struct high_bits_equal {
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return (a >> 4) == (b >> 4); }
};
struct multiple_of_3_or_7 {
  __host__ __device__ bool operator()(int i) const { return i % 3 == 0 || i % 7 == 0; }
};
/// A 12-byte item (no vector loads; flag + value-slot status words are not involved: counts are 64-bit).
struct triple {
  std::uint32_t a, b, c;
};
} // namespace

TEST_CASE("select_flagged: 12-byte items and u64 items", "[select]") {
  for (std::int64_t n : capped_sizes({1, 1023, 1024, 1025, 2049, 65537, 300007})) {
    INFO("n = " << n);
    std::vector<triple> in(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < in.size(); ++i)
      in[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i * 3),
               static_cast<std::uint32_t>(~i)};
    const auto in64 = uniform_values<std::uint64_t>(static_cast<std::size_t>(n), 31);
    for (int m = 0; m < 3; ++m) {
      flagged_case<triple, std::uint8_t>(
          in, [](std::size_t i) { return static_cast<std::uint8_t>(i % 3 == 1); }, m, false);
      flagged_case<std::uint64_t, std::uint8_t>(
          in64, [](std::size_t i) { return static_cast<std::uint8_t>(i % 5); }, m, false);
    }
  }
}

TEST_CASE("select_unique: runs, all equal, all distinct, a custom equality; against CUB", "[select]") {
  for (std::int64_t n : select_sizes(tile_u32)) {
    INFO("n = " << n);
    std::vector<std::vector<std::uint32_t>> inputs{
        runs_of<std::uint32_t>(static_cast<std::size_t>(n), 4, 41),
        std::vector<std::uint32_t>(static_cast<std::size_t>(n), 9u),
        uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 42)};
    for (const auto& in : inputs) {
      std::size_t num = 0;
      const auto expected = reference_partition(
          in, [&](std::size_t i) { return i == 0 || in[i] != in[i - 1]; }, num, false);
      for (int m = 0; m < 3; ++m) {
        INFO(compact_mode_name(m));
        const carry::compact_options opt = compact_modes[m];
        const auto r = run_compact<std::uint32_t>(
            [&](void* t, std::size_t& b, std::uint32_t* i, std::uint32_t* o, std::int64_t* c,
                std::int64_t k) {
              return carry::select_unique(t, b, static_cast<const std::uint32_t*>(i), o, c, k,
                                          carry::equal_to{}, opt);
            },
            in, false);
        check_compact(r, expected, num, num);
        if (m == 0)
          check_against_cub<std::uint32_t>(
              [&](void* t, std::size_t& b, const std::uint32_t* i, std::uint32_t* o, std::int64_t* c,
                  std::int64_t k) { return cub_select_unique(t, b, i, o, c, k, false, cudaStream_t{}); },
              in, r);
      }
    }
    // equality of the high 28 bits: runs of values that differ in the low 4 bits collapse
    const auto in = runs_of<std::uint32_t>(static_cast<std::size_t>(n), 3, 43);
    const high_bits_equal eq{};
    std::size_t num = 0;
    const auto expected = reference_partition(
        in, [&](std::size_t i) { return i == 0 || !eq(in[i - 1], in[i]); }, num, false);
    check_compact(run_compact<std::uint32_t>(
                      [&](void* t, std::size_t& b, std::uint32_t* i, std::uint32_t* o, std::int64_t* c,
                          std::int64_t k) {
                        return carry::select_unique(t, b, static_cast<const std::uint32_t*>(i), o, c, k, eq);
                      },
                      in, false),
                  expected, num, num);
  }
}

TEST_CASE("in place: select_flagged, select_if, select_unique at every size", "[select][in_place]") {
  for (std::int64_t n : select_sizes(tile_u32)) {
    INFO("n = " << n);
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 51);
    for (int percent : {1, 50, 99}) {
      const std::uint32_t bound = u32_bound(percent);
      std::size_t num = 0;
      const auto expected = expected_select_if(in, bound, num);
      check_compact(run_compact(carry_select_if<std::uint32_t>(bound, {}), in, true), expected, num, num);
    }
    flagged_case<std::uint32_t, std::uint8_t>(
        in, [](std::size_t i) { return static_cast<std::uint8_t>(i % 3 != 0); }, 0, true);
    const auto runs = runs_of<std::uint32_t>(static_cast<std::size_t>(n), 4, 52);
    std::size_t num = 0;
    const auto expected = reference_partition(
        runs, [&](std::size_t i) { return i == 0 || runs[i] != runs[i - 1]; }, num, false);
    check_compact(run_compact<std::uint32_t>(
                      [](void* t, std::size_t& b, std::uint32_t* i, std::uint32_t*, std::int64_t* c,
                         std::int64_t k) { return carry::select_unique(t, b, i, c, k); },
                      runs, true),
                  expected, num, num);
  }
}

TEST_CASE("select_if over a counting iterator: the indices of the selected items", "[select][iterator]") {
  for (std::int64_t n : capped_sizes({1, 4095, 4096, 4097, 100003, (1 << 20) + 7})) {
    for (int m = 0; m < 3; ++m) {
      INFO("n = " << n << ", " << compact_mode_name(m));
      device_buffer<int> d_out(static_cast<std::size_t>(n), 16);
      device_buffer<std::int64_t> d_num(1);
      d_out.poison();
      thrust::counting_iterator<int> first(0);
      const multiple_of_3_or_7 pred{};
      std::size_t bytes = 0;
      REQUIRE(carry::select_if(nullptr, bytes, first, d_out.ptr, d_num.ptr, n, pred, compact_modes[m]) ==
              cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      temp.poison();
      REQUIRE(carry::select_if(temp.ptr, bytes, first, d_out.ptr, d_num.ptr, n, pred, compact_modes[m]) ==
              cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      std::vector<int> expected;
      for (int i = 0; i < n; ++i)
        if (pred(i)) expected.push_back(i);
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(expected.size()));
      REQUIRE(d_out.download(expected.size()) == expected);
      REQUIRE(d_out.guard_intact());
    }
  }
}

TEST_CASE(
    "output iterators: select_if, select_flagged and partition into a transform output; select_if into a "
    "discard iterator (the count alone)",
    "[select][iterator]") {
  for (std::int64_t n : capped_sizes({1, tile_u32 - 1, tile_u32 + 1, 3 * tile_u32 + 17, 1000003})) {
    const auto in = uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 17);
    const std::uint32_t bound = 0x80000000u;
    std::vector<std::uint8_t> flags(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) flags[i] = static_cast<std::uint8_t>(in[i] % 3 == 0);
    std::vector<std::uint64_t> picked, flagged, rejected;
    for (std::size_t i = 0; i < in.size(); ++i) {
      (in[i] < bound ? picked : rejected).push_back(std::uint64_t{in[i]} * 2);
      if (flags[i]) flagged.push_back(std::uint64_t{in[i]} * 2);
    }
    device_buffer<std::uint32_t> d_in(in.size());
    device_buffer<std::uint8_t> d_flags(flags.size());
    device_buffer<std::uint64_t> d_out(in.size(), 16);
    device_buffer<std::int64_t> d_num(1);
    d_in.upload(in);
    d_flags.upload(flags);
    const std::uint32_t* p = d_in.ptr;
    const auto out = thrust::make_transform_output_iterator(d_out.ptr, doubled{});
    for (int m = 0; m < 3; ++m) {
      INFO("n = " << n << ", " << compact_mode_name(m));
      d_out.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::select_if(t, b, p, out, d_num.ptr, n, less_than<std::uint32_t>{bound},
                                compact_modes[m]);
      });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(picked.size()));
      REQUIRE(d_out.download(picked.size()) == picked);
      REQUIRE(d_out.guard_intact());
      d_out.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::select_flagged(t, b, p, d_flags.ptr, out, d_num.ptr, n, compact_modes[m]);
      });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(flagged.size()));
      REQUIRE(d_out.download(flagged.size()) == flagged);
      d_out.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::partition(t, b, p, out, d_num.ptr, n, less_than<std::uint32_t>{bound},
                                compact_modes[m]);
      });
      std::vector<std::uint64_t> parted = picked;
      parted.insert(parted.end(), rejected.begin(), rejected.end());
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(picked.size()));
      REQUIRE(d_out.download(parted.size()) == parted);
      REQUIRE(d_out.guard_intact());
      d_num.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::select_if(t, b, p, thrust::make_discard_iterator(), d_num.ptr, n,
                                less_than<std::uint32_t>{bound}, compact_modes[m]);
      });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(picked.size()));
    }
  }
}

TEST_CASE("empty input writes a count of 0 and nothing else; null item pointers are fine",
          "[select][empty]") {
  device_buffer<int> d_num(1);
  device_buffer<std::uint32_t> d_out(4);
  for (int prim = 0; prim < 4; ++prim) {
    d_num.poison();
    d_out.poison();
    std::size_t bytes = 0;
    const std::uint32_t* in = nullptr;
    const std::uint8_t* flags = nullptr;
    auto run = [&](void* t) {
      switch (prim) {
      case 0:
        return carry::select_flagged(t, bytes, in, flags, d_out.ptr, d_num.ptr, 0);
      case 1:
        return carry::select_if(t, bytes, in, d_out.ptr, d_num.ptr, 0, less_than<std::uint32_t>{5});
      case 2:
        return carry::select_unique(t, bytes, in, d_out.ptr, d_num.ptr, 0);
      default:
        return carry::partition(t, bytes, in, d_out.ptr, d_num.ptr, 0, less_than<std::uint32_t>{5});
      }
    };
    REQUIRE(run(nullptr) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(run(temp.ptr) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(d_num.download(1)[0] == 0);
    const auto out = d_out.download(4);
    for (auto v : out) REQUIRE(v == 0xA5A5A5A5u);
  }
}

TEST_CASE("bad arguments: cudaErrorInvalidValue and nothing written", "[select][errors]") {
  const std::int64_t n = 3 * tile_u32 + 5;
  device_buffer<std::uint32_t> d_in(static_cast<std::size_t>(n)), d_out(static_cast<std::size_t>(n));
  device_buffer<std::uint8_t> d_flags(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_num(1);
  d_in.upload(uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 1));
  CARRY_CUDA_OR_DIE(cudaMemset(d_flags.ptr, 1, static_cast<std::size_t>(n)));
  d_out.poison();
  d_num.poison();
  std::size_t bytes = 0;
  REQUIRE(carry::select_flagged(nullptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr), d_flags.ptr,
                                d_out.ptr, d_num.ptr, n) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  const std::uint32_t* in = d_in.ptr;
  const std::uint8_t* nf = nullptr;
  std::size_t small = bytes - 1;
  std::int64_t* no_num = nullptr;
  std::uint32_t* no_out = nullptr;
  const std::uint32_t* no_in = nullptr;
  const less_than<std::uint32_t> pred{1u << 31};
  CHECK(carry::select_flagged(temp.ptr, bytes, in, d_flags.ptr, d_out.ptr, d_num.ptr, -1) ==
        cudaErrorInvalidValue);
  CHECK(carry::select_flagged(temp.ptr, bytes, in, nf, d_out.ptr, d_num.ptr, n) == cudaErrorInvalidValue);
  CHECK(carry::select_flagged(temp.ptr, bytes, no_in, d_flags.ptr, d_out.ptr, d_num.ptr, n) ==
        cudaErrorInvalidValue);
  CHECK(carry::select_flagged(temp.ptr, bytes, in, d_flags.ptr, no_out, d_num.ptr, n) ==
        cudaErrorInvalidValue);
  CHECK(carry::select_flagged(temp.ptr, bytes, in, d_flags.ptr, d_out.ptr, no_num, n) ==
        cudaErrorInvalidValue);
  CHECK(carry::select_flagged(temp.ptr, bytes, in, d_flags.ptr, no_out, no_num, 0) == cudaErrorInvalidValue);
  CHECK(carry::select_flagged(temp.ptr, small, in, d_flags.ptr, d_out.ptr, d_num.ptr, n) ==
        cudaErrorInvalidValue);
  CHECK(carry::select_if(temp.ptr, small, in, d_out.ptr, d_num.ptr, n, pred) == cudaErrorInvalidValue);
  CHECK(carry::select_if(temp.ptr, bytes, in, d_out.ptr, d_num.ptr, -5, pred) == cudaErrorInvalidValue);
  CHECK(carry::select_unique(temp.ptr, small, in, d_out.ptr, d_num.ptr, n) == cudaErrorInvalidValue);
  CHECK(carry::partition(temp.ptr, small, in, d_out.ptr, d_num.ptr, n, pred) == cudaErrorInvalidValue);
  // an output overlapping the input without being on it; a partition in place
  CHECK(carry::select_if(temp.ptr, bytes, in, d_in.ptr + 1, d_num.ptr, n - 1, pred) == cudaErrorInvalidValue);
  CHECK(carry::partition(temp.ptr, bytes, in, d_in.ptr, d_num.ptr, n, pred) == cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(0xA5A5A5A5A5A5A5A5ull));
  for (auto v : d_out.download(static_cast<std::size_t>(n))) REQUIRE(v == 0xA5A5A5A5u);
}
