// Tuning constants of the scan engine, one place, each with the measurement that chose it.
#pragma once

#include <cstdint>

#include <type_traits>

#include "block_scan_algorithm.hpp"
#include "util/plan.hpp"

namespace carry {

/// Launch shape of a tile pass: algorithm, threads per block, items per thread, whether tile loads and
/// stores carry the streaming (evict-first) cache hint, whether full tiles move warp-striped through a
/// shared-memory transpose (else each thread reads its own 16-byte vectors), and how long a look-back
/// warp sleeps between polls of predecessors that have not published yet.
template <block_scan_algorithm ALGORITHM, int BLOCK_THREADS, int ITEMS_PER_THREAD, bool STREAMING = false,
          bool WARP_TRANSPOSE = true, int LOOKBACK_DELAY_NS = 0>
struct tile_policy {
  static constexpr int lookback_delay_ns = LOOKBACK_DELAY_NS;
  static constexpr block_scan_algorithm algorithm = ALGORITHM;
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int items_per_thread = ITEMS_PER_THREAD;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool streaming = STREAMING;
  static constexpr bool warp_transpose = WARP_TRANSPOSE;
};

/// A single-pass tile staged in shared memory (staged_agent): loaded with cp.async, scanned from and
/// back into shared memory, so only the thread totals live in registers and MIN_BLOCKS blocks fit per
/// SM (the register cap of __launch_bounds__). Types that do not pack into 16-byte chunks fall back to
/// the register tile of the same shape. PREFETCH: whether each block, before it takes its ticket, asks
/// the L2 for the tile it would get if tickets followed launch order (blockIdx; each warp its run). The
/// ticket still decides, and a guess that misses is the tile of a block starting at about the same
/// time. 0: never; 1: always; 2: only when the input needs more than one wave of resident blocks
/// (tuned choice, tuning::single_pass_tile). 4 and up (the keyed agent only): as 1 for the first blocks,
/// and each tile, once its own loads are out, also asks for the tile PREFETCH - 3 tiles an SM ahead.
template <int BLOCK_THREADS, int ITEMS_PER_THREAD, int MIN_BLOCKS, bool STREAMING = true, int PREFETCH = 0>
struct staged_tile_policy
    : tile_policy<block_scan_algorithm::coarsened, BLOCK_THREADS, ITEMS_PER_THREAD, STREAMING> {
  static constexpr int min_blocks = MIN_BLOCKS;
  static constexpr int prefetch = PREFETCH;
};

template <class P>
struct is_staged_policy : std::false_type {};
template <int B, int I, int M, bool S, int F>
struct is_staged_policy<staged_tile_policy<B, I, M, S, F>> : std::true_type {};

/// Launch shape of the small-input path: BLOCK_THREADS threads, each holding CHUNKS warp-striped
/// chunks of 16 bytes (one item when T does not pack into 16 bytes), scanned across lanes with shuffles
/// and one barrier per tile, no shared-memory transpose. Inputs of 2 .. CLUSTER_TILES tiles run as one
/// thread-block cluster whose blocks exchange their aggregates in distributed shared memory: one launch,
/// no temp storage read (at most 16, and at most what the device co-schedules). More tiles take the
/// prepared, ticketed look-back (CLUSTER_TILES < 2: always). STREAMING: evict-first loads and stores.
/// CLUSTER_SMEM_KB: dynamic shared memory a cluster launch asks for and leaves unused, so that fewer of
/// its blocks share an SM (above half an SM's: one block per SM, the cluster spread over its GPC).
template <class T, int BLOCK_THREADS, int CHUNKS, int CLUSTER_TILES, bool STREAMING = false,
          int CLUSTER_SMEM_KB = 0>
struct small_tile_policy {
  static_assert(BLOCK_THREADS % 32 == 0, "carry: small tiles are whole warps");
  static_assert(CLUSTER_TILES <= 16, "carry: a cluster holds at most 16 blocks");
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int chunks = CHUNKS;
  static constexpr int cluster_tiles = CLUSTER_TILES;
  static constexpr int cluster_smem_bytes = CLUSTER_SMEM_KB * 1024;
  static constexpr bool streaming = STREAMING;
  static constexpr int lookback_delay_ns = 0;
  static constexpr int items_per_thread = CHUNKS * detail::chunk_items<T>();
  static constexpr int tile_items = BLOCK_THREADS * items_per_thread;
};

template <class P>
struct is_small_tile_policy : std::false_type {};
template <class T, int B, int C, int G, bool S, int K>
struct is_small_tile_policy<small_tile_policy<T, B, C, G, S, K>> : std::true_type {};

namespace tuning {

/// Items per thread of the coarsened tile when nothing better was measured: 64 bytes per thread
/// (four 16-byte loads in flight), at least one item.
template <class T>
constexpr int coarsened_items() {
  return sizeof(T) >= 64 ? 1 : static_cast<int>(64 / sizeof(T));
}

/// The tuned single-pass tile, by size of T: staged in shared memory (staged_agent, NOTES.md steps 19-20,
/// same-run A/Bs), 6 blocks per SM, streaming hints on. Figures below
/// are from before the fused drain (step 27), which took u32 2^24 from 60.5-61.2 to
/// 59.2-59.6 us, u64 2^24 from 108.2-109.2 to 107.0-107.6, u8 2^28 from 209.5-209.8 to 203.5-203.7, and
/// left 2^28-2^30 of u32 and u64 within 0.2 %. All three prefetch their guessed tile into the L2 before
/// the ticket when the input needs more than one wave (PREFETCH 2; step 32,
/// same-run medians, none / every size / beyond one wave, µs): u32 2^23
/// 38.6, 37.5 / 34.3, 33.7 / 34.4, 34.4; 2^24 61.4, 61.2 / 58.3, 57.9 / 58.0, 58.0; 2^28 775.8, 776.4 /
/// 773.1, 755.6 / 762.4, 755.3 (blocked 769.4 / 749.1 / 750.9); u64 2^28 1549.3 / 1502.2 / 1503.5; u8
/// 2^28 205.1 / 199.3 / 199.6. On one wave it is not a gain: u8 2^24 (512 tiles) 23.3 / 24.8 / 23.6.
///   1 byte: 256 x 128 staged, packed-byte sums: 2^24 25.4 us, 2^28 212.0, 2^30 802.6 (register tile
///            256 x 128: 28.2 / 223.7 / 858.4; CUB 51.1 / 559.7 / 2187.0); slower at 2^22 (15.2 vs
///            14.2 us). 128 x 256 staged within 3 %, 512 x 64 and 128 x 128 staged 2-19 % slower.
///   4 bytes: 256 x 32 staged, with fast mode's classic look-back: 2^28 776.5 us, 2^30 3078.9 (the
///            canonical one: 788.6 / 3131.7; register tile 128 x 64: 809.0 / 3203.0; CUB 893.1 /
///            3493.8; copy 727.0 / 2848.0). 128 x 64, 224 x 32 staged within 1 %; 96 x 64 (8/SM), 128 x
///            32 (12/SM) 3-14 % slower (more tiles, more look-backs); 256 x 28 6-21 % and 256 x 24 4-6 %
///            slower (step 25).
///   8 bytes: 256 x 16 staged, classic look-back: 2^28 1545.4 us, 2^29 3081.9 (canonical 1581.9 /
///            3135.8; register 256 x 16: 1615.5 / 3228.9; CUB 1591.1 / 3171.6). 128 x 32 and 224 x 16
///            staged within 1 %.
/// Others: 256 threads x 64 bytes (not swept).
template <class T, int SIZE = static_cast<int>(sizeof(T))>
struct single_pass_tile {
  using type = tile_policy<block_scan_algorithm::coarsened, 256, coarsened_items<T>()>;
};
template <class T>
struct single_pass_tile<T, 1> {
  using type = staged_tile_policy<256, 128, 6, true, 2>;
};
template <class T>
struct single_pass_tile<T, 4> {
  using type = staged_tile_policy<256, 32, 6, true, 2>;
};
template <class T>
struct single_pass_tile<T, 8> {
  using type = staged_tile_policy<256, 16, 6, true, 2>;
};

/// The tuned single-pass tile for T.
template <class T>
using single_pass_policy = typename single_pass_tile<T>::type;

/// The single pass of scans over iterators or of mixed types (any input converted to the accumulator T
/// as it is staged): the tuned staged tile where T has one, else 256 threads x 64 bytes staged (2- and
/// 16-byte accumulators; not swept).
template <class T>
using any_input_policy = std::conditional_t<
    is_staged_policy<single_pass_policy<T>>::value, single_pass_policy<T>,
    staged_tile_policy<256, (sizeof(T) >= 64 ? 1 : static_cast<int>(64 / sizeof(T))), 6, true, 2>>;

/// The keyed calls' single pass (keyed_agent: keys and values in registers, 64 bytes of the wider of the
/// two a thread; V: the values, or the run calls' index type), 256 threads, plain loads and stores, the
/// guessed tile prefetched while the ticket is out. MIN_BLOCKS: the register cap. The rows (H100, u32 keys
/// and values, 2^28; the steps that led here are in NOTES.md, "Keyed calls"):
///   scans by key: 5 blocks, one tile an SM ahead (PREFETCH 4): inclusive_sum_by_key 1068 us, with the
///     look-back stopping at a run start (the guess alone 1088, 4 blocks 1102-1130, 6 blocks 1125)
///   run calls with values: 5 blocks for 4-byte keys and values (their unique keys staged by position, 48
///     registers), one an SM ahead: reduce_by_key 1046-1047 us against 1103-1105 at 4 blocks (CUB 1039-1042);
///     two ahead 1049.5, the guess alone 1077.6; 8-byte keys or values keep 4 (they spill at 5); at 2^22 the
///     5 blocks cost 2 us (31.0 -> 33.0-33.6)
///   run-length calls (keys alone, where they do not stage: iterators, keys under 4 bytes, 64-bit counts;
///     compact_tuning::run_length_policy has the rest): 6 blocks, the guess alone: run_length_encode
///     778-781 us (one ahead 855-857; 5 blocks 788-791)
template <class K, class V, int MIN_BLOCKS, int PREFETCH>
using keyed_policy = staged_tile_policy<256,
                                        (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V)) <= 4   ? 16
                                        : (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V)) <= 8 ? 8
                                                                                               : 4,
                                        MIN_BLOCKS, false, PREFETCH>;
/// P with its agent's block scan over Kogge-Stone warp scans (5 shuffle steps against Brent-Kung's 9).
template <class P>
struct kogge_stone_warps : P {
  static constexpr warp_scan_shape warp_scan = warp_scan_shape::kogge_stone;
};
/// P with the keyed agent's run outputs written by each warp itself, straight after its own outputs are
/// staged (no block barrier, no shared ranges; keyed_agent's warp_flush).
template <class P>
struct warp_flushed : P {
  static constexpr bool warp_flush = true;
};

template <class K, class V>
using keyed_scan_policy = keyed_policy<K, V, 5, 4>;
/// The run calls with values (reduce_by_key, select_unique_by_key): 4-byte keys and values at 5 blocks,
/// each warp writing its own outputs, Kogge-Stone warp scans; wider ones at 4 blocks, Brent-Kung, the
/// block's flush (select_unique_by_key: each warp's). probe_keyed warps, H100, u32/u32, 2^28, two rounds
/// in one binary, (Brent-Kung, block flush) / (Brent-Kung, warp flush) / (Kogge-Stone, block flush) /
/// (Kogge-Stone, warp flush):
///   reduce_by_key, runs of 4: 1016-1017 / 1014 / 1068-1069 / 999-1000 us; runs of 64: 880-881 / 891-892 /
///     937 / 875-876 (Kogge-Stone with the block's flush spills 36 bytes at 48 registers)
///   select_unique_by_key, runs of 4: 1005-1006 / 997.5 / 1028 / 984; runs of 64: 863 / 868 / 886-887 / 852
///   2^24, runs of 4: reduce_by_key 80.8 / 80.7-80.9 / 83.8-84.3 / 79.2-79.7, select_unique_by_key 79.9-80.5 /
///     78.4-79.2 / 79.5 / 76.8-77.0
template <class K, class V>
using keyed_runs_policy =
    std::conditional_t<(sizeof(K) <= 4 && sizeof(V) <= 4),
                       kogge_stone_warps<warp_flushed<keyed_policy<K, V, 5, 4>>>, keyed_policy<K, V, 4, 4>>;
template <class K, class V>
using keyed_unique_policy = std::conditional_t<(sizeof(K) <= 4 && sizeof(V) <= 4), keyed_runs_policy<K, V>,
                                               warp_flushed<keyed_policy<K, V, 4, 4>>>;
/// The run-length calls on the keyed agent: Kogge-Stone warp scans for keys and counts of 4 bytes or
/// fewer (the same runs: run_length_encode 2^28 runs of 4 759.5-760 us against 768.5, runs of 64 655.5
/// against 665-666, 2^24 58.4-58.75 against 58.8-59.0); the block's flush (each warp's: 761, 656).
template <class K, class I>
using keyed_encode_policy =
    std::conditional_t<(sizeof(K) <= 4 && sizeof(I) <= 4), kogge_stone_warps<keyed_policy<K, I, 6, 2>>,
                       keyed_policy<K, I, 6, 2>>;

/// The hierarchical tile (upsweep, spine, downsweep): 256 threads x 64 bytes. The input is read twice,
/// so no evict-first hint. Measured (u32, NOTES.md): 256 x 16 gave 23.9 us at 2^22 against 27.1 us for
/// 128 x 64, and the same 283 us at 2^26.
template <class T>
using hierarchical_policy = tile_policy<block_scan_algorithm::coarsened, 256, coarsened_items<T>()>;

/// The seeds' shapes for the four non-coarsened algorithms (benchmark and tests): one item per thread
/// for Kogge-Stone, two for Brent-Kung and Blelloch (their trees take two per thread natively), 512
/// threads (the seed's choice).
template <block_scan_algorithm A>
using seed_policy =
    tile_policy<A, 512,
                (A == block_scan_algorithm::brent_kung || A == block_scan_algorithm::blelloch) ? 2 : 1>;

/// Small inputs (up to small_n_max items, single-pass family): warp-striped tiles (small_tile_policy).
/// H100 sweeps (tune.cu, NOTES.md steps 12 and 15), GPU time behind queued work, CUB in the same run.
/// One tile: 2.7-2.9 us up to 4096 u32 items (CUB 5.0-5.5 us). From two tiles on, gathering the
/// predecessors' aggregates (no ticket, no chain of inclusive prefixes) beats the ticketed look-back
/// at every size measured: u32 2 tiles 3.48 vs 4.1 us, 2^14 3.53 vs 4.16, 2^16 3.65 vs 4.77, 2^18 (64
/// tiles) 4.51 vs 5.20 (CUB 5.34 / 5.54 / 5.71 / 6.93); u64 2^18 (128 tiles) 6.15 vs 6.84; u8 2^16 3.90
/// us against 4.42 for the former 512 x 2 shape, 2^18 4.00 vs 5.20. At two tiles it also matched the
/// former few-tiles mode, which folded the first tile's input in every block (u32 3.43 us, u64 3.64
/// against 3.51 gathering), so that mode was dropped. Every type takes 256 threads x 4 chunks, gather up
/// to 128 tiles (all of small_n_max for 1- to 8-byte types), wait 20000 cycles (~10 us) for a late
/// predecessor before folding its input (a zero wait measured 53 us at 64 tiles: the fallback is for
/// blocks that have not started, not for the normal case).
/// Clusters (issue 14, NOTES.md step 33) replaced the gather of published
/// aggregates, which read temp storage and so could not be exact on dirty temp storage in one launch.
/// Up to 16 tiles run as one cluster (one barrier: each block pushes its aggregate into its successors'
/// shared memory). Queued, µs (CUB): u32 2^13 3.47 (5.07), 2^14 3.53 (5.14), 2^16 3.70 (5.37), as the
/// gather's 3.5-3.7; u8 2^16 3.99 (5.35). More tiles take the prepared look-back: u32 256x4 look-back
/// only 4.05-4.32 at 2^13-2^16. 8-byte types take 8 chunks (32 KB tiles), so 2^16 items stay one
/// launch: u64 2^16 4.70 queued / 11.6 e2e against 4.62 / 13.1 for 256x4 (32 tiles, look-back; CUB 5.86
/// / 14.4); at 2^14 256x4 is faster queued (3.69 vs 4.18). Wider blocks (512x4), 8-tile clusters and
/// one block per SM (120 KB of unused dynamic shared memory) were no faster.
template <class T>
using small_policy = small_tile_policy<T, 256, sizeof(T) == 8 ? 8 : 4, 16, false>;

/// The small-input path up to 2^18 items: at 2^18 (64 tiles of 256 x 4) it took 5.09 us against 5.73 us
/// for the 512 x 16 transposed tile in the same sweep, and 6.3 us for the 128 x 64 single pass in the
/// c8083b3 benchmark; at 2^24 it is slower (69.8 vs 63.3 us), see NOTES.md.
constexpr std::int64_t small_n_max = std::int64_t{1} << 18;

/// `scan_algorithm::automatic` takes the single-pass scan from this many items on, the hierarchical
/// pass below. The single pass measured as fast or faster at every size (H100, u32 inclusive sum,
/// same run): 2^10 4.0 vs 4.0 us (both one launch of one tile), 2^14 5.4 vs 10.3 us, 2^22
/// 18.7 vs 25.9 us, 2^28 824 vs 1106 us. So automatic is always the single pass.
constexpr std::int64_t auto_single_pass_from = 0;

/// block::multisplit's uniform warps (rank_early_by, whole tiles): a warp whose items all hold one digit
/// (multisplit::uniform_warp; inputs grouped by the pass's digit, as bin_by_key's output is for a sort's
/// first pass) writes its count and its positions directly, without the shared atomics in which its 32
/// lanes would meet on one counter. Measured (carry_probe_grouped and
/// carry_probe_outputs, two rounds, CUB in the same runs): u32/u32 pairs grouped by the low byte 2^24 /
/// 2^26 620.4-621.5 / 2225.1-2226.9 us -> 583.5-587.6 / 2117.2-2129.1 (0.94 -> 1.00 and 0.94 -> 0.98 of
/// CUB, whose pass gains on such input: Nsight Compute put carry's first pass at 83 % of the L1/shared
/// pipe, CUB's at 20 %); random pairs 609.7-610.5 / 2221.7-2222.1 against
/// 610.8-613.1 / 2223.2-2224.6, random u32 keys 393.3-396.3 / 1399.8-1404.0 against 389.5-391.2 /
/// 1405.3-1409.6: level within the runs' spread.
constexpr bool multisplit_uniform_warps = true;

} // namespace tuning
} // namespace carry
