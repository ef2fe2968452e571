// Tuning sweep of the compaction policy (compact/tuning.hpp): the staged single pass of select_if u32 at
// 1 % and 50 % and the staged three kernels of partition, over tile shapes, blocks per SM, streaming loads
// and look-back back-off, each against CUB in the same run (cold L2, blocked, median).
#include <cstdio>
#include <string>

#include <carry/compact/device_partition.cuh>
#include <carry/compact/device_select.cuh>

#include "bench/baselines/baselines.hpp"
#include "bench/baselines/baselines_compact.hpp"
#include "bench/compact_bench.cuh"
#include "tests/common/compact_ops.hpp"

using namespace carry_validate;

namespace {

template <class P>
double time_policy(gpu_state& g, std::int64_t n, int percent, bool partition, int reps) {
  const less_than<std::uint32_t> pred{static_cast<std::uint32_t>((std::uint64_t{1} << 32) * percent / 100)};
  const carry::compact_options opt{carry::compact_algorithm::single_pass};
  auto run = [&](void* t, std::size_t& b) {
    const std::uint32_t* in = g.in;
    if (partition)
      return carry::compact_detail::dispatch_compact<P, true, std::uint32_t>(
          t, b, in, carry::compact_detail::by_predicate<less_than<std::uint32_t>>{pred}, false, g.out, g.num,
          n, opt, cudaStream_t{});
    return carry::compact_detail::dispatch_compact<P, false, std::uint32_t>(
        t, b, in, carry::compact_detail::by_predicate<less_than<std::uint32_t>>{pred}, false, g.out, g.num, n,
        opt, cudaStream_t{});
  };
  return time_two_phase(g, run, reps);
}

template <class P>
void row(const char* name, gpu_state& g, std::int64_t n, double cub1, double cub50, double cubp, int reps) {
  const double a = time_policy<P>(g, n, 1, false, reps), b = time_policy<P>(g, n, 50, false, reps),
               c = time_policy<P>(g, n, 50, true, reps);
  std::printf("%-34s n=2^%d  if1 %8.1f us (%.3fx)  if50 %8.1f us (%.3fx)  part50 %8.1f us (%.3fx)\n", name,
              __builtin_ctzll(static_cast<unsigned long long>(n)), a, cub1 / a, b, cub50 / b, c, cubp / c);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  gpu_state g;
  const std::int64_t n = tuner_start(argc, argv, g);
  const int reps = tuner_reps(n);
  fill_u32<<<2048, 256>>>(g.in, n, 7, 1);
  auto cub = [&](int percent, bool partition) {
    const auto bound = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * percent / 100);
    auto run = [&](void* t, std::size_t& b) {
      return partition ? cub_partition_less(t, b, g.in, g.out, g.num, n, bound, false, cudaStream_t{})
                       : cub_select_if_less(t, b, g.in, g.out, g.num, n, bound, false, cudaStream_t{});
    };
    return time_two_phase(g, run, reps);
  };
  const double c1 = cub(1, false), c50 = cub(50, false), cp = cub(50, true);
  std::printf("CUB: if1 %.1f us, if50 %.1f us, partition50 %.1f us\n", c1, c50, cp);
  using carry::compact_tuning::compact_policy;
  using BA = carry::block_scan_algorithm;
  if (argc > 2 && std::string(argv[2]) == "ahead") { // asking the L2 for a tile ahead
    for (int round = 0; round < 2; ++round) {
      row<compact_policy<256, 32, 5, true, 0, BA::coarsened, true, 0>>("the guess alone", g, n, c1, c50, cp,
                                                                       reps);
      row<carry::compact_tuning::policy<std::uint32_t>>("1 SM ahead (shipped)", g, n, c1, c50, cp, reps);
      row<compact_policy<256, 32, 5, true, 0, BA::coarsened, true, 2>>("2 SMs ahead", g, n, c1, c50, cp,
                                                                       reps);
      if (argc > 3)
        row<compact_policy<256, 32, 6, true, 0, BA::coarsened, true, 1>>("6 blocks, 1 SM ahead", g, n, c1,
                                                                         c50, cp, reps);
    }
    return 0;
  }
  row<compact_policy<256, 32, 5, true, 0>>("256x32 min5 stream delay0, guess alone", g, n, c1, c50, cp, reps);
  row<compact_policy<256, 32, 5, true, 0, BA::coarsened, false>>("256x32 min5 stream no-prefetch", g, n, c1,
                                                                 c50, cp, reps);
  row<compact_policy<256, 32, 5, false, 0>>("256x32 min5 no-stream", g, n, c1, c50, cp, reps);
  row<compact_policy<256, 32, 5, false, 0, BA::coarsened, false>>("256x32 min5 no-stream no-prefetch", g, n,
                                                                  c1, c50, cp, reps);
  row<compact_policy<256, 32, 6, true, 0>>("256x32 min6 stream", g, n, c1, c50, cp, reps);
  row<compact_policy<256, 32, 5, true, 100>>("256x32 min5 stream delay100", g, n, c1, c50, cp, reps);
  row<compact_policy<256, 16, 8, true, 0>>("256x16 min8 stream", g, n, c1, c50, cp, reps);
  row<compact_policy<128, 32, 10, true, 0>>("128x32 min10 stream", g, n, c1, c50, cp, reps);
  return 0;
}
