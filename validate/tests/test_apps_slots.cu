// GPU tests of allocate_slots and allocate_slots_bounded: against the CPU reference and CUB's widening
// exclusive sum; u32 requests into u32 and u64 offsets, totals past 2^32; the bounded allocator at, just
// under and far under the capacity; the issue's examples (CSR row pointers, variable-length output per
// thread, the sandwich); requests from a transform of a counting iterator; n = 0; bad arguments (nothing
// written).
#include <cstring>

#include <catch2/catch.hpp>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <carry/apps/slots.cuh>

#include "bench/baselines/baselines_apps.hpp"
#include "tests/common/apps_reference.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {

template <class O>
O poison_value() {
  O v;
  std::memset(&v, poison_byte, sizeof(v));
  return v;
}

/// One call against the CPU reference; shift > 0 moves the requests and the offsets that many items off
/// their 16-byte alignment (the element-wise loads and stores of every path).
template <class R, class O>
void check_slots(const std::vector<R>& req, bool bounded, O capacity = 0, std::size_t shift = 0) {
  const auto n = static_cast<std::int64_t>(req.size());
  O want_total = 0;
  std::int64_t want_fit = 0;
  const auto want = reference_slots<R, O>(req, want_total, bounded, capacity, &want_fit);
  device_buffer<R> d_r(req.size() + 1 + shift);
  device_buffer<O> d_o(req.size() + shift, 8), d_t(1);
  device_buffer<std::int64_t> d_f(1);
  std::vector<R> shifted(shift, R{7});
  shifted.insert(shifted.end(), req.begin(), req.end());
  d_r.upload(shifted);
  d_o.poison();
  d_t.poison();
  d_f.poison();
  std::size_t bytes = 0;
  auto call = [&](void* t) {
    return bounded ? carry::allocate_slots_bounded(t, bytes, d_r.ptr + shift, d_o.ptr + shift, d_t.ptr,
                                                   capacity, d_f.ptr, n)
                   : carry::allocate_slots(t, bytes, d_r.ptr + shift, d_o.ptr + shift, d_t.ptr, n);
  };
  REQUIRE(call(nullptr) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE(call(temp.ptr) == cudaSuccess);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  const auto got = d_o.download(req.size() + shift);
  REQUIRE(std::vector<O>(got.begin() + static_cast<std::ptrdiff_t>(shift), got.end()) == want);
  for (std::size_t i = 0; i < shift; ++i) REQUIRE(got[i] == poison_value<O>()); // nothing before the output
  REQUIRE(d_o.guard_intact());
  REQUIRE(d_t.download(1)[0] == want_total);
  if (bounded) REQUIRE(d_f.download(1)[0] == want_fit);
}

std::vector<std::uint32_t> requests(std::int64_t n, std::uint32_t max, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint32_t> r(static_cast<std::size_t>(n));
  for (auto& x : r) x = static_cast<std::uint32_t>(g() % (std::uint64_t{max} + 1));
  return r;
}

/// Request i of the iterator test: a size with some zeros, from the index alone.
struct request_of {
  __host__ __device__ std::uint16_t operator()(std::uint32_t i) const {
    return static_cast<std::uint16_t>((i * 2654435761u >> 7) % 37u);
  }
};

__global__ void write_runs(const std::uint32_t* req, const std::uint64_t* off, std::uint32_t* buffer, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (std::uint32_t k = 0; k < req[i]; ++k)
      buffer[off[i] + k] = static_cast<std::uint32_t>(i); // my own slots
}

} // namespace

TEST_CASE("allocate_slots: sizes around each path's tile, unaligned pointers", "[slots]") {
  // the register tile (one-tile calls, the bounded form) and the staged tiles of u64 and u32 offsets
  const std::int64_t reg = carry::apps_detail::slots_shape<true, std::uint32_t, std::uint64_t>::register_tile;
  const std::int64_t st64 = carry::tuning::single_pass_policy<std::uint64_t>::tile_items;
  const std::int64_t st32 = carry::tuning::single_pass_policy<std::uint32_t>::tile_items;
  STATIC_REQUIRE(carry::apps_detail::slots_shape<false, std::uint32_t, std::uint64_t>::staged_types);
  STATIC_REQUIRE(carry::apps_detail::slots_shape<false, std::uint8_t, std::uint64_t>::staged_types);
  for (std::int64_t n : capped_sizes({reg - 1, reg, reg + 1, st64 - 1, st64 + 1, 2 * st64, 2 * st64 + 1,
                                      st32 - 1, st32, st32 + 1, 3 * st32 + 5, 131071, 1000003})) {
    INFO("n " << n);
    const auto r = requests(n, 1000, static_cast<std::uint64_t>(n) + 11);
    for (std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      INFO("shift " << shift);
      check_slots<std::uint32_t, std::uint64_t>(r, false, 0, shift);
      check_slots<std::uint32_t, std::uint32_t>(r, false, 0, shift);
      check_slots<std::uint8_t, std::uint64_t>(std::vector<std::uint8_t>(r.begin(), r.end()), false, 0,
                                               shift);
      check_slots<std::uint16_t, std::uint32_t>(std::vector<std::uint16_t>(r.begin(), r.end()), false, 0,
                                                shift);
      check_slots<std::uint16_t, std::uint64_t>(std::vector<std::uint16_t>(r.begin(), r.end()), false, 0,
                                                shift);
      check_slots<std::uint32_t, std::uint64_t>(
          r, true, std::uint64_t{1000} * static_cast<std::uint64_t>(n) / 3, shift);
    }
  }
}

TEST_CASE("allocate_slots: requests from a transform iterator, both forms, against the CPU",
          "[slots][iterators]") {
  const auto req_it =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), request_of{});
  const std::int64_t reg = carry::apps_detail::slots_shape<true, std::uint16_t, std::uint64_t>::register_tile;
  for (std::int64_t n : capped_sizes({1, reg - 1, reg, reg + 1, 3 * reg + 7, 1000003, (1 << 22) + 5})) {
    INFO("n " << n);
    std::vector<std::uint16_t> host(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = request_of{}(static_cast<std::uint32_t>(i));
    for (bool bounded : {false, true}) {
      INFO("bounded " << bounded);
      std::uint64_t want_total = 0;
      std::int64_t want_fit = 0;
      const std::uint64_t capacity = 18 * static_cast<std::uint64_t>(n) / 2; // about half of them fit
      const auto want =
          reference_slots<std::uint16_t, std::uint64_t>(host, want_total, bounded, capacity, &want_fit);
      device_buffer<std::uint64_t> d_o(host.size(), 8), d_t(1);
      device_buffer<std::int64_t> d_f(1);
      d_o.poison();
      d_t.poison();
      d_f.poison();
      std::size_t bytes = 0;
      auto call = [&](void* t) {
        return bounded
                   ? carry::allocate_slots_bounded(t, bytes, req_it, d_o.ptr, d_t.ptr, capacity, d_f.ptr, n)
                   : carry::allocate_slots(t, bytes, req_it, d_o.ptr, d_t.ptr, n);
      };
      REQUIRE(call(nullptr) == cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      temp.poison();
      REQUIRE(call(temp.ptr) == cudaSuccess);
      CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
      REQUIRE(d_o.download(host.size()) == want);
      REQUIRE(d_o.guard_intact());
      REQUIRE(d_t.download(1)[0] == want_total);
      if (bounded) REQUIRE(d_f.download(1)[0] == want_fit);
    }
  }
}

TEST_CASE("allocate_slots: u32 requests into u64 and u32 offsets, sizes around a tile, CUB agrees",
          "[slots]") {
  const std::int64_t tile = 256 * 16;
  for (std::int64_t n :
       capped_sizes({1, 2, 31, tile - 1, tile, tile + 1, 65537, 1000003, (1 << 20) + 7, (1 << 23) + 5})) {
    INFO("n " << n);
    const auto r = requests(n, 1000, static_cast<std::uint64_t>(n));
    check_slots<std::uint32_t, std::uint64_t>(r, false);
    check_slots<std::uint32_t, std::uint32_t>(r, false);
    check_slots<std::uint8_t, std::uint64_t>(std::vector<std::uint8_t>(r.begin(), r.end()), false);
    check_slots<std::uint64_t, std::uint64_t>(std::vector<std::uint64_t>(r.begin(), r.end()), false);
    // CUB: ExclusiveSum into u64 plus the total
    device_buffer<std::uint32_t> d_r(r.size());
    device_buffer<std::uint64_t> d_c(r.size()), d_ct(1), d_o(r.size()), d_t(1);
    d_r.upload(r);
    std::size_t cb = 0, bytes = 0;
    REQUIRE(cub_slots_u32_u64(nullptr, cb, d_r.ptr, d_c.ptr, d_ct.ptr, n, false, 0) == cudaSuccess);
    device_buffer<unsigned char> ct(cb);
    REQUIRE(cub_slots_u32_u64(ct.ptr, cb, d_r.ptr, d_c.ptr, d_ct.ptr, n, false, 0) == cudaSuccess);
    REQUIRE(carry::allocate_slots(nullptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, n) == cudaSuccess);
    device_buffer<unsigned char> t(bytes);
    REQUIRE(carry::allocate_slots(t.ptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, n) == cudaSuccess);
    REQUIRE(d_o.download(r.size()) == d_c.download(r.size()));
    REQUIRE(d_t.download(1) == d_ct.download(1));
  }
}

TEST_CASE("allocate_slots: totals past 2^32 do not wrap in u64 offsets", "[slots]") {
  for (std::int64_t n : capped_sizes({3, 5000, 1000003})) {
    auto r = requests(n, 0xFFFFFFFFu, static_cast<std::uint64_t>(n) + 1);
    r[0] = 0xFFFFFFFFu;
    check_slots<std::uint32_t, std::uint64_t>(r, false);
  }
}

TEST_CASE("allocate_slots_bounded: at, just under and far under the capacity; zero requests", "[slots]") {
  for (std::int64_t n : capped_sizes({1, 31, 4097, 65537, 1000003})) {
    INFO("n " << n);
    auto r = requests(n, 9, static_cast<std::uint64_t>(n) * 3);
    std::uint64_t need = 0;
    for (auto x : r) need += x;
    for (std::uint64_t cap :
         {need, need > 0 ? need - 1 : 0, need / 2, need / 1000, std::uint64_t{0}, need + 100}) {
      INFO("capacity " << cap << " of " << need);
      check_slots<std::uint32_t, std::uint64_t>(r, true, cap);
      check_slots<std::uint32_t, std::uint32_t>(r, true, static_cast<std::uint32_t>(cap));
    }
    std::vector<std::uint32_t> zeros(static_cast<std::size_t>(n), 0);
    check_slots<std::uint32_t, std::uint64_t>(zeros, true, 0);
  }
}

TEST_CASE("slots examples: the sandwich, CSR row pointers, variable-length output per thread", "[slots]") {
  // the seed's sandwich: [3 5 2 7 28 4 3 0 8 1] inches cut from a 100-inch loaf leave 39
  {
    const std::vector<std::uint32_t> cuts = {3, 5, 2, 7, 28, 4, 3, 0, 8, 1};
    device_buffer<std::uint32_t> d_r(10), d_o(10), d_t(1);
    device_buffer<int> d_f(1);
    d_r.upload(cuts);
    std::size_t bytes = 0;
    REQUIRE(carry::allocate_slots_bounded(nullptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, 100u, d_f.ptr, 10) ==
            cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(carry::allocate_slots_bounded(temp.ptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, 100u, d_f.ptr, 10) ==
            cudaSuccess);
    CHECK(d_o.download(10) == std::vector<std::uint32_t>{0, 3, 8, 10, 17, 45, 49, 52, 52, 60});
    CHECK(d_t.download(1)[0] == 61);
    CHECK(100 - d_t.download(1)[0] == 39);
    CHECK(d_f.download(1)[0] == 10);
  }
  // CSR row pointers from per-row nonzero counts: row_ptr = offsets, row_ptr[rows] = total
  {
    const std::vector<std::uint32_t> nnz = {2, 0, 3, 1, 0, 4};
    device_buffer<std::uint32_t> d_r(6);
    device_buffer<std::uint64_t> row_ptr(7);
    d_r.upload(nnz);
    std::size_t bytes = 0;
    REQUIRE(carry::allocate_slots(nullptr, bytes, d_r.ptr, row_ptr.ptr, row_ptr.ptr + 6, 6) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(carry::allocate_slots(temp.ptr, bytes, d_r.ptr, row_ptr.ptr, row_ptr.ptr + 6, 6) == cudaSuccess);
    CHECK(row_ptr.download(7) == std::vector<std::uint64_t>{0, 2, 2, 5, 6, 6, 10});
  }
  // variable-length output (marching-cubes style): each thread writes its own run into its slots
  {
    const int n = 100003;
    const auto r = requests(n, 6, 42);
    device_buffer<std::uint32_t> d_r(r.size());
    device_buffer<std::uint64_t> d_o(r.size()), d_t(1);
    d_r.upload(r);
    std::size_t bytes = 0;
    REQUIRE(carry::allocate_slots(nullptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, n) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(carry::allocate_slots(temp.ptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, n) == cudaSuccess);
    const std::uint64_t total = d_t.download(1)[0];
    device_buffer<std::uint32_t> buffer(static_cast<std::size_t>(total), 4);
    buffer.poison();
    write_runs<<<(n + 255) / 256, 256>>>(d_r.ptr, d_o.ptr, buffer.ptr, n);
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    const auto got = buffer.download(static_cast<std::size_t>(total));
    std::vector<std::uint32_t> want;
    for (int i = 0; i < n; ++i)
      want.insert(want.end(), r[static_cast<std::size_t>(i)], static_cast<std::uint32_t>(i));
    REQUIRE(got == want); // every slot written once, by its owner, in order
    REQUIRE(buffer.guard_intact());
  }
}

TEST_CASE("allocate_slots: the worked example, n = 0, bad arguments", "[slots][empty]") {
  const std::vector<std::uint32_t> r = {3, 1, 7, 0, 4, 1, 6, 3};
  check_slots<std::uint32_t, std::uint64_t>(r, false);
  check_slots<std::uint32_t, std::uint64_t>(r, true, 15);
  device_buffer<std::uint32_t> d_r(8);
  device_buffer<std::uint64_t> d_o(8), d_t(1);
  device_buffer<std::int64_t> d_f(1);
  d_r.upload(r);
  std::size_t bytes = 0;
  REQUIRE(carry::allocate_slots_bounded(nullptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, std::uint64_t{15}, d_f.ptr,
                                        8) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(carry::allocate_slots_bounded(temp.ptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, std::uint64_t{15},
                                        d_f.ptr, 8) == cudaSuccess);
  const std::uint64_t S = carry::slot_sentinel<std::uint64_t>();
  CHECK(d_o.download(8) == std::vector<std::uint64_t>{0, 3, 4, 11, 11, S, S, S});
  CHECK(d_f.download(1)[0] == 5);
  CHECK(d_t.download(1)[0] == 25);
  // n = 0: total 0 and fitted 0, offsets untouched
  d_o.poison();
  d_t.poison();
  d_f.poison();
  REQUIRE(carry::allocate_slots_bounded(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                        static_cast<std::uint64_t*>(nullptr), d_t.ptr, std::uint64_t{15},
                                        d_f.ptr, 0) == cudaSuccess);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  CHECK(d_t.download(1)[0] == 0);
  CHECK(d_f.download(1)[0] == 0);
  // bad arguments: nothing written
  d_t.poison();
  d_f.poison();
  const auto poisoned = d_o.download(8);
  CHECK(carry::allocate_slots(temp.ptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, -1) == cudaErrorInvalidValue);
  CHECK(carry::allocate_slots(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr), d_o.ptr, d_t.ptr,
                              8) == cudaErrorInvalidValue);
  CHECK(carry::allocate_slots(temp.ptr, bytes, d_r.ptr, static_cast<std::uint64_t*>(nullptr), d_t.ptr, 8) ==
        cudaErrorInvalidValue);
  CHECK(carry::allocate_slots(temp.ptr, bytes, d_r.ptr, d_o.ptr, static_cast<std::uint64_t*>(nullptr), 8) ==
        cudaErrorInvalidValue);
  CHECK(carry::allocate_slots_bounded(temp.ptr, bytes, d_r.ptr, d_o.ptr, d_t.ptr, std::uint64_t{15},
                                      static_cast<int*>(nullptr), 8) == cudaErrorInvalidValue);
  std::size_t big = 0;
  device_buffer<std::uint32_t> many(1 << 20);
  device_buffer<std::uint64_t> many_o(1 << 20);
  REQUIRE(carry::allocate_slots(nullptr, big, many.ptr, many_o.ptr, d_t.ptr, 1 << 20) == cudaSuccess);
  big -= 1;
  CHECK(carry::allocate_slots(temp.ptr, big, many.ptr, many_o.ptr, d_t.ptr, 1 << 20) ==
        cudaErrorInvalidValue);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  CHECK(d_o.download(8) == poisoned);
  CHECK(d_t.download(1)[0] == 0xA5A5A5A5A5A5A5A5ull);
  CHECK(d_f.download(1)[0] == static_cast<std::int64_t>(0xA5A5A5A5A5A5A5A5ull));
}
