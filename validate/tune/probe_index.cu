// Probe: where a compaction over a counting iterator (the index tile) loses time against a plain write:
// write patterns alone (memset, grid-stride, per-tile warp runs unaligned, the same with 16-byte stores),
// then carry's select_if 99 %, partition 50 %, select_flagged u32 99 % and the reversed partition 50 %
// (automatic, single pass) over a counting iterator under several tile shapes, against CUB in the same run (cold L2,
// blocked, median); `select`: the pass choice's sweep of select_if (1, 50, 99 %) and the flagged reversed
// partition (u32 flags, 99 %). Run it under ncu too.   usage: carry_probe_index [log2 n] [partition | reversed | select]
#include <cstdio>
#include <cstdlib>
#include <string>

#include <carry/compact/device_partition.cuh>
#include <carry/compact/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bench/baselines/baselines.hpp"
#include "bench/baselines/baselines_compact.hpp"
#include "bench/compact_bench.cuh"
#include "tests/common/compact_ops.hpp"

using namespace carry_validate;

namespace {

/// out[i] = i, grid-stride, 4-byte stores (aligned runs of 128 bytes a warp).
__global__ void write_grid(std::uint32_t* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<std::uint32_t>(i);
}
/// A block a tile of 8192 items, each warp its run of 1024 as 32 rounds of 32 stores, shifted by `shift`
/// items (unaligned like a compaction's output), 4-byte stores.
__global__ void write_tiles(std::uint32_t* out, std::int64_t n, int shift) {
  const std::int64_t base = blockIdx.x * std::int64_t{8192} + (threadIdx.x / 32) * 1024 + shift;
  const int lane = threadIdx.x % 32;
#pragma unroll 4
  for (int r = 0; r < 32; ++r) {
    const std::int64_t i = base + r * 32 + lane;
    if (i < n) out[i] = static_cast<std::uint32_t>(i);
  }
}
/// The same runs with 16-byte stores (aligned: shift 0).
__global__ void write_tiles_v4(std::uint32_t* out, std::int64_t n) {
  const std::int64_t base = blockIdx.x * std::int64_t{8192} + (threadIdx.x / 32) * 1024;
  const int lane = threadIdx.x % 32;
#pragma unroll 4
  for (int r = 0; r < 8; ++r) {
    const std::int64_t i = base + (r * 32 + lane) * 4;
    if (i + 3 < n) {
      const uint4 v{static_cast<unsigned>(i), static_cast<unsigned>(i + 1), static_cast<unsigned>(i + 2),
                    static_cast<unsigned>(i + 3)};
      *reinterpret_cast<uint4*>(out + i) = v;
    }
  }
}

enum class op { if99, part50, flag99, rev50, rev50_single };

template <class P>
double time_policy(gpu_state& g, std::int64_t n, op o, int reps) {
  using namespace carry::compact_detail;
  const thrust::counting_iterator<std::uint32_t> iota(0);
  const carry::compact_options opt{};
  const auto b99 = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * 99 / 100);
  const auto b50 = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * 50 / 100);
  auto run = [&](void* t, std::size_t& b) {
    switch (o) {
    case op::if99:
      return dispatch_compact<P, false, std::uint32_t>(t, b, iota,
                                                       by_predicate<hashed_less>{hashed_less{b99}}, false,
                                                       g.out, g.num, n, opt, cudaStream_t{});
    case op::part50:
      return dispatch_compact<P, true, std::uint32_t>(t, b, iota, by_predicate<hashed_less>{hashed_less{b50}},
                                                      false, g.out, g.num, n, opt, cudaStream_t{});
    case op::rev50: // CUB's layout: the automatic choice, and the single pass
    case op::rev50_single:
      return dispatch_compact<P, true, std::uint32_t, true>(
          t, b, iota, by_predicate<hashed_less>{hashed_less{b50}}, false, g.out, g.num, n,
          carry::compact_options{o == op::rev50 ? carry::compact_algorithm::automatic
                                                : carry::compact_algorithm::single_pass},
          cudaStream_t{});
    default:
      return dispatch_compact<P, false, std::uint32_t>(
          t, b, iota,
          flag_selector<P, std::uint32_t, decltype(iota)>(static_cast<const std::uint32_t*>(g.flags32)),
          false, g.out, g.num, n, opt, cudaStream_t{});
    }
  };
  return time_two_phase(g, run, reps);
}

template <class P>
void row(const char* name, gpu_state& g, std::int64_t n, const double (&cub)[5], int reps) {
  std::printf("%-28s", name);
  for (op o : {op::if99, op::part50, op::flag99, op::rev50, op::rev50_single}) {
    const double t = time_policy<P>(g, n, o, reps);
    std::printf("  %8.1f us (%.3fx)", t, cub[static_cast<int>(o)] / t);
  }
  std::printf("\n");
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  gpu_state g;
  const std::int64_t n = tuner_start(argc, argv, g);
  const int reps = tuner_reps(n);
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.flags, g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.flags32, 4 * g.capacity));
  const bool partition_only = argc > 2 && std::string(argv[2]) == "partition"; // one call, for ncu
  const bool reversed_only = argc > 2 && std::string(argv[2]) == "reversed";   // the pass choice's sweep
  const bool select_only = argc > 2 && std::string(argv[2]) == "select";
  fill_u32<<<2048, 256>>>(g.in, n, 7, 1);
  fill_flags<<<2048, 256>>>(g.flags, g.in, n,
                            static_cast<std::uint32_t>((std::uint64_t{1} << 32) * 99 / 100));
  widen_flags<<<2048, 256>>>(g.flags32, g.flags, n);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  if (partition_only) {
    using P = carry::compact_tuning::policy<std::uint32_t>;
    std::printf("partition 50 %%: %.1f us\n", time_policy<P>(g, n, op::part50, 3));
    return 0;
  }
  if (select_only) { // the automatic choice against each pass, CUB in the same run
    using P = carry::compact_tuning::policy<std::uint32_t>;
    const thrust::counting_iterator<std::uint32_t> iota(0);
    using carry::compact_algorithm;
    auto carry_call = [&](std::uint32_t bound, bool flagged, compact_algorithm a) {
      const carry::compact_options opt{a};
      return time_two_phase(
          g,
          [&](void* t, std::size_t& b) {
            using namespace carry::compact_detail;
            if (flagged)
              return dispatch_compact<P, true, std::uint32_t, true>(
                  t, b, iota,
                  flag_selector<P, std::uint32_t, decltype(iota)>(
                      static_cast<const std::uint32_t*>(g.flags32)),
                  false, g.out, g.num, n, opt, cudaStream_t{});
            return dispatch_compact<P, false, std::uint32_t>(t, b, iota,
                                                             by_predicate<hashed_less>{hashed_less{bound}},
                                                             false, g.out, g.num, n, opt, cudaStream_t{});
          },
          reps);
    };
    for (int pct : {1, 50, 99, -99}) { // -99: the flagged reversed partition
      const auto bound = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * (pct < 0 ? -pct : pct) / 100);
      const double cub = time_two_phase(
          g,
          [&](void* t, std::size_t& b) {
            return pct < 0 ? cub_flagged<std::uint32_t>(t, b, nullptr,
                                                        static_cast<const std::uint32_t*>(g.flags32), g.out,
                                                        g.num, n, true, false, cudaStream_t{})
                           : cub_select_if_iota(t, b, g.out, g.num, n, bound, false, cudaStream_t{});
          },
          reps);
      std::printf("n %lld %s %d %%: CUB %.2f us, automatic %.2f, single pass %.2f, count first %.2f\n",
                  static_cast<long long>(n), pct < 0 ? "flagged reversed partition" : "select_if",
                  pct < 0 ? -pct : pct, cub, carry_call(bound, pct < 0, compact_algorithm::automatic),
                  carry_call(bound, pct < 0, compact_algorithm::single_pass),
                  carry_call(bound, pct < 0, compact_algorithm::three_kernel));
    }
    return 0;
  }
  if (reversed_only) { // CUB's partition against carry's reversed one, automatic and single pass
    using P = carry::compact_tuning::policy<std::uint32_t>;
    const auto b50 = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * 50 / 100);
    const double cub = time_two_phase(
        g,
        [&](void* t, std::size_t& b) {
          return cub_partition_iota(t, b, g.out, g.num, n, b50, false, cudaStream_t{});
        },
        reps);
    std::printf("n %lld: CUB %.2f us, reversed automatic %.2f, single pass %.2f\n", static_cast<long long>(n),
                cub, time_policy<P>(g, n, op::rev50, reps), time_policy<P>(g, n, op::rev50_single, reps));
    return 0;
  }
  // ---- writes alone ----
  auto plain = [&](const char* name, const std::function<void(int)>& f) {
    std::printf("%-28s %8.1f us\n", name, time_cold(g, f, 1, reps, true));
  };
  const unsigned tiles = static_cast<unsigned>((n + 8191) / 8192);
  plain("memset", [&](int) { CARRY_CUDA_OR_DIE(cudaMemsetAsync(g.out, 0, 4 * n)); });
  plain("write grid-stride", [&](int) { write_grid<<<132 * 16, 256>>>(g.out, n); });
  plain("write tiles aligned", [&](int) { write_tiles<<<tiles, 256>>>(g.out, n, 0); });
  plain("write tiles shifted 1", [&](int) { write_tiles<<<tiles, 256>>>(g.out, n, 1); });
  plain("write tiles shifted 5", [&](int) { write_tiles<<<tiles, 256>>>(g.out, n, 5); });
  plain("write tiles v4", [&](int) { write_tiles_v4<<<tiles, 256>>>(g.out, n); });
  // ---- CUB ----
  const auto b99 = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * 99 / 100);
  const auto b50 = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * 50 / 100);
  double cub[5];
  cub[0] = time_two_phase(
      g,
      [&](void* t, std::size_t& b) {
        return cub_select_if_iota(t, b, g.out, g.num, n, b99, false, cudaStream_t{});
      },
      reps);
  cub[1] = time_two_phase(
      g,
      [&](void* t, std::size_t& b) {
        return cub_partition_iota(t, b, g.out, g.num, n, b50, false, cudaStream_t{});
      },
      reps);
  cub[2] = time_two_phase(
      g,
      [&](void* t, std::size_t& b) {
        return cub_flagged<std::uint32_t>(t, b, nullptr, static_cast<const std::uint32_t*>(g.flags32), g.out,
                                          g.num, n, false, false, cudaStream_t{});
      },
      reps);
  cub[3] = cub[4] = cub[1]; // CUB's partition is the reversed layout
  std::printf("%-28s  %8.1f us           %8.1f us           %8.1f us\n", "CUB (if99, part50, flag99)", cub[0],
              cub[1], cub[2]);
  using carry::compact_tuning::compact_policy;
  row<carry::compact_tuning::policy<std::uint32_t>>("256x32 (shipped)", g, n, cub, reps);
  row<compact_policy<256, 16, 5>>("256x16", g, n, cub, reps);
  row<compact_policy<128, 32, 5>>("128x32", g, n, cub, reps);
  row<compact_policy<512, 16, 5>>("512x16", g, n, cub, reps);
  row<compact_policy<512, 32, 5>>("512x32", g, n, cub, reps);
  return 0;
}
