// Block-level test harness: one block scans (or reduces) one tile; results are checked on the CPU.
#pragma once

#include <catch2/catch.hpp>

#include <carry/scan/block_reduce.cuh>
#include <carry/scan/block_scan.cuh>
#include <carry/scan/operators.hpp>

#include "gpu.cuh"
#include "reference.hpp"

namespace carry_validate {

template <class T, int BT, carry::block_scan_algorithm A, int ITEMS, bool EXCLUSIVE,
          carry::warp_scan_shape W = carry::warp_scan_shape::brent_kung, class Op>
__global__ void __launch_bounds__(BT)
    block_scan_kernel(const T* in, T* out, T* aggregate_out, Op op, T init) {
  using scan_t = carry::block_scan<T, BT, A, ITEMS, W>;
  __shared__ typename scan_t::temp_storage ts;
  T items[ITEMS];
  for (int j = 0; j < ITEMS; ++j) items[j] = in[threadIdx.x * ITEMS + j];
  T aggregate;
  if constexpr (EXCLUSIVE)
    scan_t(ts).exclusive_scan(items, init, op, aggregate);
  else
    scan_t(ts).inclusive_scan(items, op, aggregate);
  for (int j = 0; j < ITEMS; ++j) out[threadIdx.x * ITEMS + j] = items[j];
  if (threadIdx.x == BT - 1) *aggregate_out = aggregate; // every thread holds it; the last one reports
}

/// Scans one tile of BT x ITEMS random values with block_scan<A> (coarsened: warp scan W) and checks
/// every output and the aggregate against the CPU reference; outputs are poisoned first.
template <class T, int BT, carry::block_scan_algorithm A, int ITEMS, bool EXCLUSIVE,
          carry::warp_scan_shape W = carry::warp_scan_shape::brent_kung, class Op>
void check_block_scan(Op op, T init, std::uint64_t seed) {
  constexpr int n = BT * ITEMS;
  auto in = random_values<T>(n, seed);
  auto ref = EXCLUSIVE ? reference_exclusive(in, init, op) : reference_inclusive(in, op);
  const T total = reference_inclusive(in, op).back();
  device_buffer<T> d_in(n), d_out(n, 1), d_agg(1);
  d_in.upload(in);
  d_out.poison();
  d_agg.poison();
  block_scan_kernel<T, BT, A, ITEMS, EXCLUSIVE, W><<<1, BT>>>(d_in.ptr, d_out.ptr, d_agg.ptr, op, init);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto out = d_out.download(n);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += !same_bits(out[i], ref[i]);
  INFO("algorithm " << carry::block_scan_name(A) << ", " << BT << " threads x " << ITEMS << " items, "
                    << (EXCLUSIVE ? "exclusive" : "inclusive")
                    << (W == carry::warp_scan_shape::kogge_stone ? ", Kogge-Stone warps" : ""));
  CHECK(wrong == 0);
  CHECK(same_bits(d_agg.download(1)[0], total));
  CHECK(d_out.guard_intact());
}

/// check_block_scan inclusive (seed) and exclusive (seed + 1) for one block size.
template <class T, int BT, carry::block_scan_algorithm A, int ITEMS, carry::warp_scan_shape W, class Op>
void check_both(Op op, T init, std::uint64_t seed) {
  check_block_scan<T, BT, A, ITEMS, false, W>(op, init, seed);
  check_block_scan<T, BT, A, ITEMS, true, W>(op, init, seed + 1);
}

/// All block sizes of the issue for one algorithm, type and operator, inclusive and exclusive.
template <carry::block_scan_algorithm A, int ITEMS, class T,
          carry::warp_scan_shape W = carry::warp_scan_shape::brent_kung, class Op>
void check_block_sizes(Op op, T init) {
  check_both<T, 32, A, ITEMS, W>(op, init, 1);
  check_both<T, 65, A, ITEMS, W>(op, init, 3);
  check_both<T, 128, A, ITEMS, W>(op, init, 5);
  check_both<T, 256, A, ITEMS, W>(op, init, 7);
  check_both<T, 512, A, ITEMS, W>(op, init, 9);
  check_both<T, 1024, A, ITEMS, W>(op, init, 11);
}

/// The seeds' example [3 1 7 0 4 1 6 3] on 4 threads x 2 items and 8 threads x 1 item.
template <carry::block_scan_algorithm A>
void check_seed_example() {
  const std::vector<int> x{3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<int> incl{3, 4, 11, 11, 15, 16, 22, 25}, excl{0, 3, 4, 11, 11, 15, 16, 22};
  device_buffer<int> d_in(8), d_out(8), d_agg(1);
  d_in.upload(x);
  block_scan_kernel<int, 4, A, 2, false><<<1, 4>>>(d_in.ptr, d_out.ptr, d_agg.ptr, carry::sum{}, 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d_out.download(8) == incl);
  block_scan_kernel<int, 8, A, 1, true><<<1, 8>>>(d_in.ptr, d_out.ptr, d_agg.ptr, carry::sum{}, 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d_out.download(8) == excl);
  CHECK(d_agg.download(1)[0] == 25);
}

} // namespace carry_validate
