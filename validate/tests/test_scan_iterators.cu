// GPU tests: scans over iterators and of mixed types (u8 -> u32, bool -> i64, counting and transform
// inputs, a non-commutative operator on a transform), the accumulator rule, errors, graph replay with
// dirty temp storage; against the CPU reference and CUB.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <random>

#include "tests/common/scan_harness.cuh"

#include <cub/device/device_reduce.cuh>

#include <carry/scan/device_reduce.cuh>
#include <carry/scan/device_scan.cuh>

using namespace carry_validate;

namespace {

constexpr std::int64_t tile_u32 = carry::tuning::any_input_policy<std::uint32_t>::tile_items;

std::vector<std::int64_t> sizes() {
  return capped_sizes(
      {1, 2, 31, tile_u32 - 1, tile_u32, tile_u32 + 1, 3 * tile_u32 + 17, 100003, 1000003, (1 << 22) + 5});
}

const carry::scan_options modes[2] = {carry::scan_options{},
                                      carry::scan_options{carry::scan_algorithm::single_pass, true}};

/// A 2x2 matrix of u32 (mod 2^32) products: associative, not commutative; 16 bytes.
struct matrix2 {
  std::uint32_t a, b, c, d;
  __host__ __device__ bool operator==(const matrix2& o) const {
    return a == o.a && b == o.b && c == o.c && d == o.d;
  }
};
struct mat_product {
  __host__ __device__ matrix2 operator()(const matrix2& x, const matrix2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
};
struct matrix_of {
  __host__ __device__ matrix2 operator()(std::uint32_t i) const {
    return {1 + i % 3, i % 5, i % 7, 1 + (i >> 3) % 2};
  }
};

} // namespace

TEST_CASE("the accumulator rule", "[scan][iterator]") {
  using carry::default_accumulator;
  using carry::detail::scan_accumulator_t;
  // sums: the output's type; any other operator: op(init, input) where it compiles, else the output's
  static_assert(std::is_same<scan_accumulator_t<default_accumulator, true, carry::sum, std::uint8_t,
                                                const std::uint8_t*, std::uint32_t*>,
                             std::uint32_t>::value);
  static_assert(
      std::is_same<
          scan_accumulator_t<default_accumulator, false, carry::sum, std::int64_t, const int*, std::int64_t*>,
          std::int64_t>::value); // sum(i64, int) does not deduce: the output's type
  static_assert(
      std::is_same<
          scan_accumulator_t<default_accumulator, false, mat_product, matrix2,
                             thrust::transform_iterator<matrix_of, thrust::counting_iterator<std::uint32_t>>,
                             matrix2*>,
          matrix2>::value);
  static_assert(
      std::is_same<scan_accumulator_t<double, true, carry::sum, float, const float*, float*>, double>::value);
  static_assert(!carry::detail::iterator_scan_args<const int*, int*>());
  static_assert(carry::detail::iterator_scan_args<const int*, int*, long>());
  static_assert(carry::detail::iterator_scan_args<const std::uint8_t*, std::uint32_t*>());
  static_assert(!carry::detail::iterator_scan_args<std::nullptr_t, std::nullptr_t>());
  SUCCEED();
}

TEST_CASE("u8 flags into u32 offsets, bool into i64, an explicit accumulator; against the CPU and CUB",
          "[scan][iterator]") {
  for (std::int64_t n : sizes()) {
    std::mt19937 g(static_cast<unsigned>(n));
    std::vector<std::uint8_t> u8(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    for (auto& x : u8) x = static_cast<std::uint8_t>(g() % 256);
    for (auto& x : b) x = static_cast<std::uint8_t>(g() % 3 == 0);
    std::vector<std::uint32_t> inc(u8.size());
    std::vector<std::int64_t> exc(u8.size());
    std::uint32_t s = 0;
    std::int64_t t = 0;
    for (std::size_t i = 0; i < u8.size(); ++i) {
      inc[i] = s += u8[i];
      exc[i] = t;
      t += b[i];
    }
    device_buffer<std::uint8_t> d_u8(u8.size()), d_b(b.size());
    d_u8.upload(u8);
    d_b.upload(b);
    const bool* flags = reinterpret_cast<const bool*>(d_b.ptr);
    for (const auto& opt : modes) {
      INFO("n = " << n << (opt.deterministic ? ", canonical" : ""));
      device_buffer<std::uint32_t> d32(u8.size(), 16);
      device_buffer<std::int64_t> d64(u8.size(), 16);
      d32.poison();
      d64.poison();
      run_two_phase([&](void* tmp, std::size_t& bytes) {
        return carry::inclusive_sum(tmp, bytes, static_cast<const std::uint8_t*>(d_u8.ptr), d32.ptr, n, opt);
      });
      REQUIRE(d32.download(u8.size()) == inc);
      REQUIRE(d32.guard_intact());
      run_two_phase([&](void* tmp, std::size_t& bytes) {
        return carry::exclusive_sum(tmp, bytes, flags, d64.ptr, n, opt);
      });
      REQUIRE(d64.download(u8.size()) == exc);
      REQUIRE(d64.guard_intact());
      // the accumulator named: u8 into i64 through an i64 sum, written as i64
      run_two_phase([&](void* tmp, std::size_t& bytes) {
        return carry::exclusive_sum<std::int64_t>(tmp, bytes, d_b.ptr, d64.ptr, n, opt);
      });
      REQUIRE(d64.download(u8.size()) == exc);
    }
    // CUB on the same u8 -> u32 call
    device_buffer<std::uint32_t> d_cub(u8.size());
    std::size_t bytes = 0;
    REQUIRE(cub::DeviceScan::InclusiveSum(nullptr, bytes, d_u8.ptr, d_cub.ptr, n) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(cub::DeviceScan::InclusiveSum(temp.ptr, bytes, d_u8.ptr, d_cub.ptr, n) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(d_cub.download(u8.size()) == inc);
  }
}

TEST_CASE("counting and transform inputs; a non-commutative operator; an init of another type",
          "[scan][iterator]") {
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    const thrust::counting_iterator<std::int64_t> count(1);
    const auto squares =
        thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), square_mod_1000{});
    const auto mats =
        thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), matrix_of{});
    std::vector<std::int64_t> tri(static_cast<std::size_t>(n));
    std::vector<std::uint32_t> maxes(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
    std::vector<matrix2> prods(static_cast<std::size_t>(n));
    std::int64_t s = 0;
    std::uint32_t m = 0, o = 7;
    matrix2 p{};
    for (std::int64_t i = 0; i < n; ++i) {
      tri[static_cast<std::size_t>(i)] = s += i + 1;
      m = std::max(m, square_mod_1000{}(static_cast<std::uint32_t>(i)));
      maxes[static_cast<std::size_t>(i)] = m;
      offsets[static_cast<std::size_t>(i)] = o;
      o += square_mod_1000{}(static_cast<std::uint32_t>(i));
      p = i == 0 ? matrix_of{}(0) : mat_product{}(p, matrix_of{}(static_cast<std::uint32_t>(i)));
      prods[static_cast<std::size_t>(i)] = p;
    }
    for (const auto& opt : modes) {
      device_buffer<std::int64_t> d64(tri.size(), 16);
      device_buffer<std::uint32_t> d32(tri.size(), 16);
      device_buffer<matrix2> dm(tri.size(), 16);
      d64.poison();
      d32.poison();
      dm.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::inclusive_scan(t, b, count, d64.ptr, carry::sum{}, n, opt);
      });
      REQUIRE(d64.download(tri.size()) == tri);
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::inclusive_scan(t, b, squares, d32.ptr, carry::maximum{}, n, opt);
      });
      REQUIRE(d32.download(tri.size()) == maxes);
      run_two_phase([&](void* t, std::size_t& b) { // init an int, the data u32: the output's type
        return carry::exclusive_scan(t, b, squares, d32.ptr, carry::sum{}, 7, n, opt);
      });
      REQUIRE(d32.download(tri.size()) == offsets);
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::inclusive_scan(t, b, mats, dm.ptr, mat_product{}, n, opt);
      });
      const auto got = dm.download(tri.size());
      REQUIRE(std::equal(got.begin(), got.end(), prods.begin()));
      REQUIRE(dm.guard_intact());
    }
  }
}

TEST_CASE("iterator scans: n = 0, bad arguments (nothing written), graph replay on dirty temp storage",
          "[scan][iterator][graph]") {
  const std::int64_t n = sanitize_mode() ? 20000 : 3 * tile_u32 + 5;
  device_buffer<std::uint8_t> d_in(static_cast<std::size_t>(n));
  device_buffer<std::uint32_t> d_out(static_cast<std::size_t>(n), 16);
  d_out.poison();
  std::size_t bytes = 0;
  const std::uint8_t* in = d_in.ptr;
  // n = 0: success, nothing written
  REQUIRE(carry::inclusive_sum(nullptr, bytes, in, d_out.ptr, 0) == cudaSuccess);
  device_buffer<unsigned char> temp(1 << 20);
  std::size_t big = 1 << 20;
  REQUIRE(carry::inclusive_sum(temp.ptr, big, in, d_out.ptr, 0) == cudaSuccess);
  // errors: negative n, a null input, too little temp storage, overlapping pointers
  REQUIRE(carry::inclusive_sum(temp.ptr, big, in, d_out.ptr, -1) == cudaErrorInvalidValue);
  REQUIRE(carry::inclusive_sum(temp.ptr, big, static_cast<const std::uint8_t*>(nullptr), d_out.ptr, n) ==
          cudaErrorInvalidValue);
  std::size_t one = 1;
  REQUIRE(carry::inclusive_sum(temp.ptr, one, in, d_out.ptr, n) == cudaErrorInvalidValue);
  REQUIRE(carry::inclusive_sum(temp.ptr, big, reinterpret_cast<const std::uint8_t*>(d_out.ptr), d_out.ptr,
                               n) == cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_out.guard_intact());
  const auto untouched = d_out.download(static_cast<std::size_t>(n));
  REQUIRE(std::all_of(untouched.begin(), untouched.end(), [](std::uint32_t x) { return x == 0xA5A5A5A5u; }));
  // graph: captured once, replayed with new inputs and the temp storage scribbled between replays
  REQUIRE(carry::inclusive_sum(nullptr, bytes, in, d_out.ptr, n) == cudaSuccess);
  device_buffer<unsigned char> gtemp(bytes);
  captured_call graph([&](cudaStream_t s) {
    std::size_t b = bytes;
    return carry::inclusive_sum(gtemp.ptr, b, in, d_out.ptr, n, s);
  });
  REQUIRE(graph.status == cudaSuccess);
  for (int rep = 0; rep < test_reps(8, 4); ++rep) {
    std::vector<std::uint8_t> h(static_cast<std::size_t>(n));
    std::mt19937 g(static_cast<unsigned>(rep));
    for (auto& x : h) x = static_cast<std::uint8_t>(g());
    d_in.upload(h);
    dirty_temp(gtemp.ptr, bytes, rep);
    REQUIRE(graph.replay(rep) == cudaSuccess);
    std::vector<std::uint32_t> expected(h.size());
    std::uint32_t s = 0;
    for (std::size_t i = 0; i < h.size(); ++i) expected[i] = s += h[i];
    REQUIRE(d_out.download(h.size()) == expected);
  }
}

namespace {
struct square_u64 {
  __host__ __device__ std::uint64_t operator()(std::uint32_t i) const { return std::uint64_t{i} * i; }
};
} // namespace

TEST_CASE("reduce and transform_reduce over iterators and of mixed types; n = 0 writes init",
          "[reduce][iterator]") {
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    std::mt19937 g(static_cast<unsigned>(n) + 3);
    std::vector<std::uint8_t> u8(static_cast<std::size_t>(n));
    for (auto& x : u8) x = static_cast<std::uint8_t>(g());
    std::uint64_t sum8 = 5, squares = 0;
    matrix2 prod{1, 0, 0, 1};
    for (std::int64_t i = 0; i < n; ++i) {
      sum8 += u8[static_cast<std::size_t>(i)];
      squares += std::uint64_t(i) * std::uint64_t(i);
      prod = mat_product{}(prod, matrix_of{}(static_cast<std::uint32_t>(i)));
    }
    device_buffer<std::uint8_t> d_u8(u8.size());
    d_u8.upload(u8);
    device_buffer<std::uint64_t> d64(1, 4);
    device_buffer<matrix2> dm(1, 4);
    d64.poison();
    dm.poison();
    const std::uint8_t* in = d_u8.ptr;
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::reduce(t, b, in, d64.ptr, carry::sum{}, std::uint64_t{5}, n);
    });
    REQUIRE(d64.download(1)[0] == sum8);
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::transform_reduce(t, b, thrust::counting_iterator<std::uint32_t>(0), d64.ptr, carry::sum{},
                                     square_u64{}, std::uint64_t{0}, n);
    });
    REQUIRE(d64.download(1)[0] == squares);
    const auto mats = carry::make_transform_input(thrust::counting_iterator<std::uint32_t>(0), matrix_of{});
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::reduce(t, b, mats, dm.ptr, mat_product{}, matrix2{1, 0, 0, 1}, n);
    });
    REQUIRE(dm.download(1)[0] == prod);
    REQUIRE(d64.guard_intact());
    REQUIRE(dm.guard_intact());
    // CUB on the u8 -> u64 call
    device_buffer<std::uint64_t> d_cub(1);
    std::size_t bytes = 0;
    REQUIRE(cub::DeviceReduce::Reduce(nullptr, bytes, in, d_cub.ptr, n, cuda::std::plus<>{},
                                      std::uint64_t{5}) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(cub::DeviceReduce::Reduce(temp.ptr, bytes, in, d_cub.ptr, n, cuda::std::plus<>{},
                                      std::uint64_t{5}) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(d_cub.download(1)[0] == sum8);
  }
  // n = 0: init written; a null output refused
  device_buffer<std::uint64_t> d64(1);
  d64.poison();
  std::size_t bytes = 0;
  const thrust::counting_iterator<std::uint32_t> none(0);
  REQUIRE(carry::reduce(nullptr, bytes, none, d64.ptr, carry::sum{}, std::uint64_t{42}, 0) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes + 16);
  REQUIRE(carry::reduce(temp.ptr, bytes, none, d64.ptr, carry::sum{}, std::uint64_t{42}, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d64.download(1)[0] == 42);
  REQUIRE(carry::reduce(temp.ptr, bytes, none, static_cast<std::uint64_t*>(nullptr), carry::sum{},
                        std::uint64_t{42}, 0) == cudaErrorInvalidValue);
}

TEST_CASE(
    "reduce of u8 into u64 and transform_reduce under graph replay: changing inputs, dirty temp storage",
    "[reduce][iterator][graph]") {
  const std::int64_t n = sanitize_mode() ? 20000 : 5 * tile_u32 + 3;
  device_buffer<std::uint8_t> d_in(static_cast<std::size_t>(n));
  device_buffer<std::uint64_t> d_sum(2);
  const std::uint8_t* in = d_in.ptr;
  std::size_t bytes = 0, b2 = 0;
  REQUIRE(carry::reduce(nullptr, bytes, in, d_sum.ptr, carry::sum{}, std::uint64_t{1}, n) == cudaSuccess);
  REQUIRE(carry::transform_reduce(nullptr, b2, in, d_sum.ptr + 1, carry::sum{}, square_u64{},
                                  std::uint64_t{0}, n) == cudaSuccess);
  bytes = std::max(bytes, b2);
  device_buffer<unsigned char> temp(bytes);
  captured_call graph([&](cudaStream_t s) {
    std::size_t b = bytes;
    const cudaError_t e = carry::reduce(temp.ptr, b, in, d_sum.ptr, carry::sum{}, std::uint64_t{1}, n, s);
    if (e != cudaSuccess) return e;
    return carry::transform_reduce(temp.ptr, b, in, d_sum.ptr + 1, carry::sum{}, square_u64{},
                                   std::uint64_t{0}, n, s);
  });
  REQUIRE(graph.status == cudaSuccess);
  for (int rep = 0; rep < test_reps(8, 4); ++rep) {
    std::vector<std::uint8_t> h(static_cast<std::size_t>(n));
    std::mt19937 g(static_cast<unsigned>(rep) + 40);
    std::uint64_t sum = 1, squares = 0;
    for (auto& x : h) {
      x = static_cast<std::uint8_t>(g());
      sum += x;
      squares += std::uint64_t{x} * x;
    }
    d_in.upload(h);
    dirty_temp(temp.ptr, bytes, rep);
    REQUIRE(graph.replay(rep) == cudaSuccess);
    const auto got = d_sum.download(2);
    REQUIRE(got[0] == sum);
    REQUIRE(got[1] == squares);
  }
}
