// GPU tests of bin_by_key: stable counting sort against the CPU reference and CUB's radix sort over the
// same 8 bits; keys alone and pairs; bins 1 .. 2^20 (one to three digit passes); sizes around a tile;
// all in one bin; clamped bins; n = 0; bad arguments (nothing written).
#include <catch2/catch.hpp>
#include <thrust/iterator/counting_iterator.h>

#include <cstring>

#include <carry/apps/histogram.cuh>

#include "bench/baselines/baselines_apps.hpp"
#include "tests/common/apps_reference.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {

struct low_bits { // bin = key mod 2^bits (bins = 2^bits: CUB's sort over bits [0, bits) must agree)
  unsigned mask;
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k & mask; }
};
struct mod_bins { // bin = key mod bins
  unsigned bins;
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k % bins; }
};
struct stray_bins { // bins outside [0, bins): clamped
  int bins;
  __host__ __device__ long long operator()(std::uint32_t k) const {
    return static_cast<long long>(k % (3u * bins)) - bins;
  }
};

struct half_bin {
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k / 2; }
};

template <class BinOp>
void check_bin(std::int64_t n, int bins, BinOp op, bool pairs, std::uint64_t seed, bool with_offsets = true,
               bool counting_values = false) { // values i: from v_in, or from a counting iterator
  INFO("n " << n << ", bins " << bins << (pairs ? ", pairs" : ", keys")
            << (counting_values ? ", counting" : ""));
  const auto keys = random_bits<std::uint32_t>(static_cast<std::size_t>(n), seed);
  std::vector<std::uint32_t> values(pairs ? keys.size() : 0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint32_t> want_k, want_v;
  std::vector<std::uint64_t> want_o;
  reference_bin(keys, values, bins, op, want_k, want_v, want_o);
  device_buffer<std::uint32_t> k_in(keys.size() + 1), k_out(keys.size() + 1, 8), v_in(keys.size() + 1),
      v_out(keys.size() + 1, 8);
  device_buffer<std::uint64_t> off(static_cast<std::size_t>(bins) + 1, 4);
  k_in.upload(keys);
  v_in.upload(values);
  k_out.poison();
  v_out.poison();
  off.poison();
  std::uint64_t* o = with_offsets ? off.ptr : nullptr;
  std::size_t bytes = 0;
  auto call = [&](void* t) {
    if (pairs && counting_values)
      return carry::bin_by_key(t, bytes, k_in.ptr, k_out.ptr, thrust::counting_iterator<std::uint32_t>(0),
                               v_out.ptr, o, bins, op, n);
    return pairs ? carry::bin_by_key(t, bytes, k_in.ptr, k_out.ptr, v_in.ptr, v_out.ptr, o, bins, op, n)
                 : carry::bin_by_key(t, bytes, k_in.ptr, k_out.ptr, o, bins, op, n);
  };
  REQUIRE(call(nullptr) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE(call(temp.ptr) == cudaSuccess);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  REQUIRE(k_out.download(keys.size()) == want_k);
  REQUIRE(k_out.guard_intact());
  if (pairs) {
    REQUIRE(v_out.download(keys.size()) == want_v);
    REQUIRE(v_out.guard_intact());
  }
  if (with_offsets) {
    REQUIRE(off.download(static_cast<std::size_t>(bins) + 1) == want_o);
    REQUIRE(off.guard_intact());
  }
}

} // namespace

TEST_CASE("bin_by_key: stable, keys and pairs, bins 1 .. 2^20, sizes around a tile", "[bin]") {
  const std::int64_t tile = 256 * 16;
  for (int bins : {1, 7, 256, 257, 4096, 1 << 20})
    for (std::int64_t n :
         capped_sizes({1, 2, 31, tile - 1, tile, tile + 1, 65537, 1000003, (1 << 20) + 3, (1 << 22) + 1})) {
      if (bins >= 4096 && n > (1 << 20) + 3) continue; // three passes at 2^22: covered by 2^20 + 3
      check_bin(n, bins, mod_bins{static_cast<unsigned>(bins)}, true,
                static_cast<std::uint64_t>(n * 7 + bins));
      if (n < 70000)
        check_bin(n, bins, mod_bins{static_cast<unsigned>(bins)}, false,
                  static_cast<std::uint64_t>(n + bins));
    }
}

TEST_CASE("bin_by_key: values from a counting iterator (each key's index), one and several passes",
          "[bin][iterators]") {
  for (int bins : {7, 256, 4096})
    for (std::int64_t n : capped_sizes({1, 4097, 1000003, (1 << 22) + 1}))
      check_bin(n, bins, mod_bins{static_cast<unsigned>(bins)}, true,
                static_cast<std::uint64_t>(n + 3 * bins), true, true);
}

TEST_CASE("bin_by_key: all keys in one bin, clamped bins, no offsets wanted", "[bin]") {
  for (std::int64_t n : capped_sizes({1, 4097, 1000003})) {
    check_bin(n, 256, mod_bins{1}, true, 5); // every key in bin 0 of 256
    check_bin(n, 300, stray_bins{300}, true, 6);
    check_bin(n, 100, mod_bins{100}, true, 7, false);
  }
}

TEST_CASE("bin_by_key over 8 bits equals CUB's radix sort over bits [0, 8)", "[bin]") {
  for (std::int64_t n : capped_sizes({4097, 1000003, (1 << 22) + 1})) {
    INFO("n " << n);
    const auto keys = random_bits<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n));
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i * 2654435761u);
    device_buffer<std::uint32_t> k_in(keys.size()), k_out(keys.size()), v_in(keys.size()), v_out(keys.size()),
        ck(keys.size()), cv(keys.size());
    k_in.upload(keys);
    v_in.upload(values);
    std::size_t bytes = 0;
    REQUIRE(carry::bin_by_key(nullptr, bytes, k_in.ptr, k_out.ptr, v_in.ptr, v_out.ptr,
                              static_cast<std::uint32_t*>(nullptr), 256, low_bits{255}, n) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    REQUIRE(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, v_in.ptr, v_out.ptr,
                              static_cast<std::uint32_t*>(nullptr), 256, low_bits{255}, n) == cudaSuccess);
    std::size_t cb = 0;
    REQUIRE(cub_sort_pairs(nullptr, cb, k_in.ptr, ck.ptr, v_in.ptr, cv.ptr, n, 0, 8, false, 0) ==
            cudaSuccess);
    device_buffer<unsigned char> ct(cb);
    REQUIRE(cub_sort_pairs(ct.ptr, cb, k_in.ptr, ck.ptr, v_in.ptr, cv.ptr, n, 0, 8, false, 0) == cudaSuccess);
    REQUIRE(k_out.download(keys.size()) == ck.download(keys.size()));
    REQUIRE(v_out.download(keys.size()) == cv.download(keys.size()));
  }
}

TEST_CASE("bin_by_key: the worked example, n = 0, bad arguments", "[bin][empty]") {
  const std::vector<std::uint32_t> keys = {3, 1, 7, 0, 4, 1, 6, 3};
  device_buffer<std::uint32_t> k_in(8), k_out(8), off(5);
  k_in.upload(keys);
  std::size_t bytes = 0;
  REQUIRE(carry::bin_by_key(nullptr, bytes, k_in.ptr, k_out.ptr, off.ptr, 4, half_bin{}, 8) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, off.ptr, 4, half_bin{}, 8) == cudaSuccess);
  CHECK(k_out.download(8) == std::vector<std::uint32_t>{1, 0, 1, 3, 3, 4, 7, 6});
  CHECK(off.download(5) == std::vector<std::uint32_t>{0, 3, 5, 6, 8});
  // n = 0: the offsets (all zero) are written, nothing else
  k_out.poison();
  off.poison();
  REQUIRE(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, off.ptr, 4, half_bin{}, 0) == cudaSuccess);
  CHECK(off.download(5) == std::vector<std::uint32_t>(5, 0));
  CHECK(k_out.download(8) == std::vector<std::uint32_t>(8, 0xA5A5A5A5u));
  // bad arguments: nothing written
  off.poison();
  CHECK(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, off.ptr, 0, half_bin{}, 8) ==
        cudaErrorInvalidValue);
  CHECK(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, off.ptr, (1 << 24) + 1, half_bin{}, 8) ==
        cudaErrorInvalidValue);
  CHECK(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, off.ptr, 4, half_bin{}, -1) ==
        cudaErrorInvalidValue);
  CHECK(carry::bin_by_key(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr), k_out.ptr, off.ptr, 4,
                          half_bin{}, 8) == cudaErrorInvalidValue);
  CHECK(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_in.ptr, off.ptr, 4, half_bin{}, 8) ==
        cudaErrorInvalidValue);
  std::size_t small = bytes - 1;
  CHECK(carry::bin_by_key(temp.ptr, small, k_in.ptr, k_out.ptr, off.ptr, 4, half_bin{}, 8) ==
        cudaErrorInvalidValue);
  CHECK(carry::bin_by_key(temp.ptr, bytes, k_in.ptr, k_out.ptr, k_in.ptr,
                          static_cast<std::uint32_t*>(nullptr), off.ptr, 4, half_bin{},
                          8) == cudaErrorInvalidValue);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  CHECK(k_out.download(8) == std::vector<std::uint32_t>(8, 0xA5A5A5A5u));
  CHECK(off.download(5) == std::vector<std::uint32_t>(5, 0xA5A5A5A5u));
}
