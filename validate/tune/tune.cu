// Tuning sweep (built with -DCARRY_BUILD_TUNE=ON): tile shapes against CUB and memcpy, small and large n.
// usage: carry_tune [small] [cluster] [large] [large3] [diag] [staged] [lookback] [hints] [ticket] [waves] [ramp]
// [prefetch] (default: small and large)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <carry/scan/device_scan.cuh>

#include "bench/baselines/baselines.hpp"
#include "tests/common/gpu.cuh"
#include "bench/timing.cuh"

using namespace carry_validate;

namespace {

char* g_in;
char* g_out;
char* g_check;
void* g_tmp;
const std::size_t g_bytes = std::size_t{1} << 32; // 4 GiB each: 2^30 u32
const std::size_t g_tmp_bytes = std::size_t{1} << 28;

template <class T>
const char* tname() {
  return sizeof(T) == 1 ? "u8" : sizeof(T) == 8 ? "u64" : "u32";
}

/// Times `call(in, out)` at n: queued and end to end (rotating 8 buffers) for n <= 2^20, events above
/// (on an idle GPU, and blocked: queued behind a spin kernel).
template <class T, class F>
void row(const char* what, std::int64_t n, F&& call) {
  const std::size_t bytes = n * sizeof(T);
  const int rot = static_cast<int>(std::min<std::size_t>(8, g_bytes / bytes));
  auto at = [&](int r) {
    call(reinterpret_cast<const T*>(g_in + r * bytes), reinterpret_cast<T*>(g_out + r * bytes));
  };
  if (n <= (std::int64_t{1} << 20)) {
    const double q = median_queued_us(at, rot, 30);
    const double e = median_end_to_end_us(at, rot, 200);
    std::printf("%-4s n=%-10lld %-34s queued %8.2f us   e2e %8.2f us\n", tname<T>(), (long long)n, what, q,
                e);
  } else {
    const int reps = n >= (std::int64_t{1} << 28) ? 15 : 30;
    const double t = median_rotating_event_us(at, rot, reps);
    const double b = median_rotating_event_us(at, rot, reps, true);
    std::printf("%-4s n=%-10lld %-34s events %9.1f us   blocked %9.1f us\n", tname<T>(), (long long)n, what,
                t, b);
  }
  std::fflush(stdout);
}

template <class T>
void baselines(std::int64_t n) {
  row<T>("memcpy", n, [&](const T* in, T* out) {
    CARRY_CUDA_OR_DIE(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice));
  });
  row<T>("cub", n, [&](const T* in, T* out) {
    std::size_t t = g_tmp_bytes;
    CARRY_CUDA_OR_DIE(cub_inclusive_sum(g_tmp, t, in, out, n, cudaStream_t{}));
  });
}

/// carry's inclusive sum with explicit policies (single-pass family), checked once against CUB.
template <class SP, class SmallP, class T>
void carry_row(const char* what, std::int64_t n, bool det = false, bool rotate_tmp = false) {
  using HP = carry::tuning::hierarchical_policy<T>;
  using W = carry::device_scan_with<HP, SP, SmallP>;
  const carry::scan_options opt{carry::scan_algorithm::single_pass, det};
  T* in = reinterpret_cast<T*>(g_in);
  T* out = reinterpret_cast<T*>(g_out);
  T* check = reinterpret_cast<T*>(g_check);
  std::size_t t = g_tmp_bytes;
  CARRY_CUDA_OR_DIE(cub_inclusive_sum(g_tmp, t, in, check, n, cudaStream_t{}));
  CARRY_CUDA_OR_DIE(cudaMemset(out, 0xA5, n * sizeof(T)));
  t = g_tmp_bytes;
  CARRY_CUDA_OR_DIE(W::inclusive_scan(g_tmp, t, in, out, carry::sum{}, n, opt));
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  std::vector<T> a(std::min<std::int64_t>(n, 1 << 20)), b(a.size());
  const std::int64_t from = n - static_cast<std::int64_t>(a.size()); // the tail: every carry reaches it
  CARRY_CUDA_OR_DIE(cudaMemcpy(a.data(), out + from, a.size() * sizeof(T), cudaMemcpyDeviceToHost));
  CARRY_CUDA_OR_DIE(cudaMemcpy(b.data(), check + from, b.size() * sizeof(T), cudaMemcpyDeviceToHost));
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) != 0) {
    std::printf("MISMATCH %s n=%lld\n", what, (long long)n);
    std::exit(3);
  }
  // rotate_tmp: 8 temp buffers in turn, so no call finds its counter re-armed by the call before
  int call = 0;
  row<T>(what, n, [&](const T* i, T* o) {
    const int slot = rotate_tmp ? call++ % 8 : 0;
    std::size_t tb = rotate_tmp ? g_tmp_bytes / 8 : g_tmp_bytes;
    void* tmp = static_cast<char*>(g_tmp) + slot * (g_tmp_bytes / 8);
    CARRY_CUDA_OR_DIE(W::inclusive_scan(tmp, tb, i, o, carry::sum{}, n, opt));
  });
}

} // namespace

namespace {

using CO = carry::block_scan_algorithm;

/// carry_row with one warp-striped policy for both the single-pass and the small-input tile, labelled
/// "striped BxC cluster<=G" (G < 2: never a cluster, always the look-back), plus " stream" and " det".
template <class T, int B, int C, int G, bool S = false, int K = 0>
void striped_row(std::int64_t n, bool det = false) {
  char what[64];
  std::snprintf(what, sizeof what, "striped %dx%d cluster<=%d smem%d%s%s", B, C, G, K, S ? " stream" : "",
                det ? " det" : "");
  using P = carry::small_tile_policy<T, B, C, G, S, K>;
  carry_row<P, P, T>(what, n, det);
}

/// Small inputs (NOTES.md steps 12, 15 and 33): tile shapes, with the ticketed look-back and as one
/// cluster (up to 16 tiles; the gather of published aggregates it replaced is in the history), against
/// the 512 x 16 transposed tile the small path replaced.
/// Cluster shapes (NOTES.md step 33): look-back only (prepare step + ticket), clusters of up to 16 or
/// 8 tiles, blocks packed or spread one per SM (120 KB of unused dynamic shared memory each).
template <class T>
void cluster_sweep(std::int64_t n) {
  baselines<T>(n);
  carry_row<carry::tuning::small_policy<T>, carry::tuning::small_policy<T>, T>("tuned small", n);
  striped_row<T, 256, 4, 0>(n);
  striped_row<T, 256, 4, 16>(n);
  striped_row<T, 256, 4, 16, false, 120>(n);
  striped_row<T, 256, 8, 16>(n);
  striped_row<T, 256, 8, 16, false, 120>(n);
  striped_row<T, 256, 8, 8>(n);
  striped_row<T, 256, 8, 8, false, 120>(n);
  striped_row<T, 512, 4, 16, false, 120>(n);
  striped_row<T, 512, 8, 8, false, 120>(n);
}

template <class T>
void small_sweep(std::int64_t n) {
  baselines<T>(n);
  using old_small =
      carry::tile_policy<CO::coarsened, 512,
                         (carry::tuning::coarsened_items<T>() < 16 ? carry::tuning::coarsened_items<T>()
                                                                   : 16)>;
  carry_row<old_small, old_small, T>("old 512x16 transposed", n);
  striped_row<T, 256, 4, 0>(n);
  striped_row<T, 256, 4, 16>(n);
  striped_row<T, 256, 4, 16>(n, true);
  striped_row<T, 256, 8, 16>(n);
  striped_row<T, 512, 4, 16>(n);
  striped_row<T, 128, 4, 16>(n);
  striped_row<T, 128, 8, 16>(n);
}

/// Fourth round (large inputs): transposed single-pass tiles of other shapes, streaming hints on.
template <class T, int B, int I>
void transposed_row(std::int64_t n) {
  char what[64];
  std::snprintf(what, sizeof what, "transposed %dx%d stream", B, I);
  using P = carry::tile_policy<CO::coarsened, B, I, true>;
  carry_row<P, P, T>(what, n);
}

/// transposed_row for each (B, I) pair in BI.
template <class T, int B, int I, int... BI>
void transposed_rows(std::int64_t n) {
  transposed_row<T, B, I>(n);
  if constexpr (sizeof...(BI) > 0) transposed_rows<T, BI...>(n);
}

template <class T>
void large_sweep3(std::int64_t n) {
  baselines<T>(n);
  if constexpr (sizeof(T) == 4)
    transposed_rows<T, 128, 64, 128, 32, 256, 32, 128, 48, 192, 32, 64, 128>(n);
  else if constexpr (sizeof(T) == 8)
    transposed_rows<T, 256, 16, 128, 16, 128, 32, 256, 8, 512, 8, 256, 12>(n);
  else
    transposed_rows<T, 256, 128, 512, 64, 128, 256, 256, 96>(n);
}

template <class T>
void large_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  carry_row<SP, SP, T>("tuned single pass (transposed)", n);
  striped_row<T, 128, 8, 0, true>(n);
  striped_row<T, 128, 16, 0, true>(n);
  striped_row<T, 256, 4, 0, true>(n);
  striped_row<T, 256, 8, 0, true>(n);
  striped_row<T, 256, 16, 0, true>(n);
  striped_row<T, 512, 4, 0, true>(n);
  striped_row<T, 256, 8, 0, true>(n, true);
}

// ---- diagnostics (NOTES.md step 18): where the large single pass loses against the copy ----
// The single-pass tile with parts removed: MODE 0 ticket + load + store (the data path alone); MODE 1
// ticket + load + block scan + store, no publish and no look-back (wrong results across tiles: timing
// only); MODE 2 as 1 with blockIdx in place of the ticket.
template <class P, int MODE, class T>
__global__ void __launch_bounds__(P::block_threads)
    diag_kernel(const T* in, T* out, carry::detail::tile_plan plan, std::uint32_t* counter) {
  using tt = carry::detail::tile_types<P, T>;
  __shared__ struct {
    typename tt::io::temp_storage io;
    typename tt::scan_t::temp_storage scan;
    std::uint32_t tile;
  } ts;
  std::int64_t tile = blockIdx.x;
  if constexpr (MODE != 2) {
    if (threadIdx.x == 0) ts.tile = carry::lookback::take_ticket(counter);
    __syncthreads();
    tile = ts.tile;
  }
  const int valid = plan.valid_items(tile);
  T items[tt::items];
  tt::io::load(ts.io, in + plan.tile_base(tile), valid, true, items, tt::tile_items);
  if constexpr (MODE != 0) {
    auto no_prefix = [](const T&) { return carry::tile_prefix<T>{T{}, false}; };
    T aggregate;
    typename tt::scan_t(ts.scan).template scan_with_callback<false>(items, carry::sum{}, no_prefix,
                                                                    aggregate);
  }
  tt::io::store(ts.io, out + plan.tile_base(tile), valid, true, items, tt::tile_items);
}

template <class T, int MODE>
void diag_row(const char* what, std::int64_t n) {
  using P = carry::tuning::single_pass_policy<T>;
  const carry::detail::tile_plan plan = carry::detail::plan_tiles(n, P::tile_items);
  row<T>(what, n, [&](const T* i, T* o) {
    CARRY_CUDA_OR_DIE(cudaMemsetAsync(g_tmp, 0, sizeof(std::uint32_t))); // the ticket counter
    diag_kernel<P, MODE, T><<<static_cast<unsigned>(plan.num_tiles), P::block_threads>>>(
        i, o, plan, static_cast<std::uint32_t*>(g_tmp));
  });
}

/// Staged tiles (NOTES.md step 18): the tile waits out the look-back in shared memory, M blocks per SM.
template <class T, int B, int I, int M>
void staged_row(std::int64_t n, bool det = false) {
  char what[64];
  std::snprintf(what, sizeof what, "staged %dx%d min%d%s", B, I, M, det ? " det" : "");
  using P = carry::staged_tile_policy<B, I, M>;
  carry_row<P, P, T>(what, n, det);
}

template <class T>
void staged_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  carry_row<SP, SP, T>("tuned single pass", n);
  if constexpr (sizeof(T) == 4) {
    staged_row<T, 128, 64, 6>(n);
    staged_row<T, 128, 64, 6>(n, true);
    staged_row<T, 256, 32, 6>(n);
    staged_row<T, 224, 32, 7>(n);
    staged_row<T, 96, 64, 8>(n);
    staged_row<T, 128, 32, 12>(n);
  } else {
    staged_row<T, 256, 16, 6>(n);
    staged_row<T, 128, 32, 6>(n);
    staged_row<T, 224, 16, 7>(n);
    staged_row<T, 128, 16, 12>(n);
  }
}

/// The tuned tile with the classic or the canonical look-back forced (NOTES.md step 20): where does
/// canonical_look_back_from_tiles belong for the staged tile?
template <class T, bool CANONICAL>
void look_back_row(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  using plan_t = carry::detail::scan_plan<carry::tuning::hierarchical_policy<T>, SP, SP, T>;
  const plan_t plan = plan_t::make(n, carry::scan_options{carry::scan_algorithm::single_pass, false});
  row<T>(CANONICAL ? "tuned, canonical look-back" : "tuned, classic look-back", n, [&](const T* i, T* o) {
    CARRY_CUDA_OR_DIE((carry::detail::launch_single_pass<SP, false>(g_tmp, plan, i, o, carry::sum{}, T{},
                                                                    CANONICAL, cudaStream_t{})));
  });
}

template <class T>
void look_back_sweep(std::int64_t n) {
  baselines<T>(n);
  look_back_row<T, false>(n);
  look_back_row<T, true>(n);
}

/// The tuned staged shape with and without the evict-first hints (NOTES.md step 22): at 2^24 the output
/// (64 MiB for u32) is near the L2's 50 MB, where keeping lines might pay.
template <class T>
void hints_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  using keep =
      carry::staged_tile_policy<SP::block_threads, SP::items_per_thread, SP::min_blocks, false, SP::prefetch>;
  carry_row<SP, SP, T>("tuned staged, evict-first", n);
  carry_row<keep, keep, T>("tuned staged, no hint", n);
  carry_row<SP, SP, T>("tuned staged, evict-first", n);
  carry_row<keep, keep, T>("tuned staged, no hint", n);
}

/// The ticket counter re-armed by the previous call (one temp buffer) against a stale word each call
/// (8 temp buffers in turn), same kernels (NOTES.md step 23).
template <class T>
void ticket_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  for (int k = 0; k < 2; ++k) {
    carry_row<SP, SP, T>("tuned, one temp (re-armed)", n);
    carry_row<SP, SP, T>("tuned, 8 temps (stale counter)", n, false, true);
  }
}

/// 4-byte staged shapes that split 2^24 into nearer whole waves of 792 resident tiles (NOTES.md step 25):
/// 256 x 32 makes 2.59 waves, 256 x 28 2.96, 256 x 24 3.45.
template <class T>
void waves_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  carry_row<SP, SP, T>("tuned staged 256x32", n);
  staged_row<T, 256, 28, 6>(n);
  staged_row<T, 256, 24, 6>(n);
  carry_row<SP, SP, T>("tuned staged 256x32", n);
  staged_row<T, 256, 28, 6>(n);
}

/// Bytes on staged tiles of other shapes against the tuned staged tile and a register tile.
template <class T>
void bytes_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  carry_row<SP, SP, T>("tuned staged 256x128", n);
  using P512 = carry::tile_policy<CO::coarsened, 512, 64, true>;
  carry_row<P512, P512, T>("register 512x64", n);
  staged_row<T, 256, 128, 6>(n);
  staged_row<T, 128, 256, 6>(n);
  staged_row<T, 512, 64, 3>(n);
  staged_row<T, 128, 128, 8>(n);
}

template <class T>
void diag_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  carry_row<SP, SP, T>("tuned single pass", n);
  carry_row<SP, SP, T>("tuned single pass det", n, true);
  diag_row<T, 0>("diag: ticket+load+store", n);
  diag_row<T, 1>("diag: ticket+load+scan+store", n);
  diag_row<T, 2>("diag: blockIdx+load+scan+store", n);
}

/// Time against the number of waves of resident tiles (NOTES.md step 26): n = k tiles of the tuned
/// 4-byte tile, k a multiple of half the 792 tiles resident at once (132 SMs x 6), plus 2^24 (2.59
/// waves). A fixed start-up cost shows as an intercept of (carry - copy) against k; a partial last wave
/// as a sawtooth.
template <class T>
void ramp_sweep(std::int64_t tiles) {
  using SP = carry::tuning::single_pass_policy<T>;
  const std::int64_t n = tiles * SP::tile_items;
  std::printf("-- %lld tiles\n", (long long)tiles);
  baselines<T>(n);
  carry_row<SP, SP, T>("tuned single pass", n);
  diag_row<T, 0>("diag: ticket+load+store", n);
}

/// The tuned staged tile with each prefetch mode of staged_tile_policy (NOTES.md step 32): the L2
/// prefetch of the tile launch order would give the block; two of each, interleaved. (Two more modes
/// of 40ddb63, thread 0 prefetching the whole tile once its ticket atomic was out, gained nothing at
/// 2^28 and at most 1.5 us at 2^24.)
template <class SP, int F>
using with_prefetch =
    carry::staged_tile_policy<SP::block_threads, SP::items_per_thread, SP::min_blocks, SP::streaming, F>;

template <class T>
void prefetch_sweep(std::int64_t n) {
  using SP = carry::tuning::single_pass_policy<T>;
  baselines<T>(n);
  for (int k = 0; k < 2; ++k) {
    carry_row<with_prefetch<SP, 0>, SP, T>("prefetch 0 (none)", n);
    carry_row<with_prefetch<SP, 1>, SP, T>("prefetch 1 (warps, before ticket)", n);
    carry_row<with_prefetch<SP, 2>, SP, T>("prefetch 2 (1, not one wave)", n);
  }
}

__global__ void nsmid_kernel(unsigned* out) {
  *out = carry::detail::sm_ids();
}

} // namespace

/// Runs `sweep` at n = 2^lg for each lg.
void over(void (*sweep)(std::int64_t), std::initializer_list<int> lgs) {
  for (int lg : lgs) sweep(std::int64_t{1} << lg);
}

int main(int argc, char** argv) {
  if (!gpu_present()) return 2;
  const std::set<std::string> args(argv + 1, argv + argc);
  auto has = [&](const char* what) { return args.count(what) > 0; };
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_in, g_bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_out, g_bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_check, g_bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_tmp, g_tmp_bytes));
  CARRY_CUDA_OR_DIE(cudaMemset(g_in, 0x37, g_bytes));
  if (args.empty() || has("small")) {
    over(small_sweep<std::uint32_t>, {10, 11, 12, 13, 14, 15, 16, 17, 18});
    over(small_sweep<std::uint64_t>, {10, 12, 14, 16, 18});
    over(small_sweep<std::uint8_t>, {12, 14, 16, 18});
  }
  if (has("cluster")) {
    over(cluster_sweep<std::uint32_t>, {13, 14, 16});
    over(cluster_sweep<std::uint64_t>, {14, 16});
    over(cluster_sweep<std::uint8_t>, {16, 18});
  }
  if (has("lookback")) {
    over(look_back_sweep<std::uint32_t>, {22, 24, 28, 29, 30});
    over(look_back_sweep<std::uint64_t>, {22, 24, 28, 29});
    over(bytes_sweep<std::uint8_t>, {20, 22, 24, 26, 28, 30});
  }
  if (has("prefetch")) {
    unsigned* d_n = nullptr;
    unsigned n_ids = 0;
    CARRY_CUDA_OR_DIE(cudaMalloc(&d_n, sizeof(unsigned)));
    nsmid_kernel<<<1, 1>>>(d_n);
    CARRY_CUDA_OR_DIE(cudaMemcpy(&n_ids, d_n, sizeof(unsigned), cudaMemcpyDeviceToHost));
    CARRY_CUDA_OR_DIE(cudaFree(d_n));
    std::printf("%%nsmid = %u\n", n_ids);
    over(prefetch_sweep<std::uint32_t>, {20, 22, 23, 24, 25, 26, 28});
    over(prefetch_sweep<std::uint64_t>, {20, 22, 24, 28});
    over(prefetch_sweep<std::uint8_t>, {20, 22, 24, 26, 28});
  }
  if (has("ramp"))
    for (std::int64_t k : {396, 792, 1188, 1584, 1980, 2048, 2376, 2772, 3168, 3960, 4752, 7920})
      ramp_sweep<std::uint32_t>(k);
  if (has("waves")) over(waves_sweep<std::uint32_t>, {22, 23, 24, 25, 26, 28, 30});
  if (has("ticket")) {
    over(ticket_sweep<std::uint32_t>, {20, 22, 24, 26, 28});
    over(ticket_sweep<std::uint64_t>, {22, 24, 26});
    over(ticket_sweep<std::uint8_t>, {22, 24, 26});
  }
  if (has("hints")) {
    over(hints_sweep<std::uint32_t>, {22, 23, 24, 25, 26, 28});
    over(hints_sweep<std::uint64_t>, {23, 24, 26});
    over(hints_sweep<std::uint8_t>, {24, 25, 26});
  }
  if (has("staged")) {
    over(staged_sweep<std::uint32_t>, {20, 22, 24, 26, 28, 30});
    over(staged_sweep<std::uint64_t>, {20, 24, 26, 28, 29});
  }
  if (has("diag")) {
    over(diag_sweep<std::uint32_t>, {24, 26, 28, 30});
    over(diag_sweep<std::uint64_t>, {24, 26, 28, 29});
  }
  if (has("large3")) {
    over(large_sweep3<std::uint32_t>, {24, 28, 30});
    over(large_sweep3<std::uint64_t>, {24, 26, 28, 29});
    over(large_sweep3<std::uint8_t>, {24, 28});
  }
  if (args.empty() || has("large")) {
    over(large_sweep<std::uint32_t>, {24, 26, 28, 30});
    over(large_sweep<std::uint64_t>, {24, 26, 27, 28});
  }
  return 0;
}
