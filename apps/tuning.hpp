// The apps module's tuning (histograms, bin_by_key, slot allocation, the distributed sort's key coding):
// a policy type whose members are the tuned values, one row each with the measurement that chose it; the
// names below read the table's row.
#pragma once

#include <cstdint>

#include "../scan/block_scan_algorithm.hpp"

namespace carry {
namespace apps_tuning {

/// The tuned values on sm_90 (H100 80GB HBM3, CUDA 13.0, CCCL 3.0.1; same-run medians, CUB alongside).
// A table, one row a value and its figure:
// clang-format off
struct policy_sm90 {
  static constexpr int histogram_threads = 256;       // one thread a bin of 256
  static constexpr int histogram_blocks_per_sm = 8;   // the most a grid asks for (the occupancy query trims it)
  static constexpr int histogram_unroll = 4;          // histogram_even 2^24: 4 chunks in flight 37.7 us, 8 41.5
  static constexpr int bin_histogram_unroll = 8;      // bin_by_key 2^28: 8 chunks 2434-2447 us, 4 2513-2531
  static constexpr bool histogram_occupancy = true;   // resident grids: histogram_even 2^20 12.3 us, 8 an SM 13.4
  static constexpr bool bin_recompute = true;         // the pass recomputes the bin: 2^28 2484 us, staged 2555
  static constexpr int slot_items4 = 16;              // requests of up to 4 bytes: 256 x 16 a tile
  static constexpr int slot_items8 = 8;
  static constexpr int slot_threads = 256;
  static constexpr int dist_delta_keys_from_ranks = 4;  // sort_keys 2^30: 4 GPUs coded 9669 us, raw 10747; 2: 15933, 15475
  static constexpr int dist_delta_pairs_from_ranks = 4; // sort_pairs 2^29: 4 GPUs coded 9540 us, raw 10150; 2: 13861, 13486
  static constexpr int dist_delta_batch = 2;            // probe_delta 2^28 u32, H200: width+pack+decode 1812 us at 1, 1676 at 2, 1834 at 4, 2308 at 8
  static constexpr int dist_exchange_slices_keys = 3;   // sort_keys 2^30, 2 x H200: 1 slice 14781 us, 2 14366, 3 14252, 4 14957, 8 14934
  static constexpr int dist_exchange_slices_pairs = 1;  // sort_pairs 2^29, 2 x H200: 1 slice 12251 us, 2 12520, 4 12611, 8 12755
  static constexpr int dist_exchange_slices_pairs_many = 3; // 3-4 ranks: sort_pairs 2^29, 4 x H200: raw in 3 slices 7346-7380 us, 2 7432-7441, 1 8616-8664; coded 8168-8199
  static constexpr bool dist_delta_beside_slices = false; // sort_keys 2^30, 4 GPUs, side stream: raw in 3 slices 8521 us, coded 8709 (4 x H200); 9242, 9250 (4 x H100)
};
// clang-format on
/// The table: the row every shipped kernel is built with.
using default_policy = policy_sm90;

// ---- histograms ----
/// Threads of a histogram block, and blocks per SM the launch aims for (the grid is one wave of them,
/// each block walking the input in 16-byte chunks, `histogram_unroll` chunks in flight per thread).
/// 256 x 8 keeps 2048 threads an SM; 4 chunks of 16 bytes in flight a thread is 128 KB an SM, beyond
/// what the copy speed needs (~23 KB an SM at ~1 us latency). Chosen by that count, not swept: the kernel
/// is instruction-bound (Nsight Compute at 2^26: SM 73 %, memory 45 %; NOTES.md, issue 16). Where its
/// time goes (tune_histogram.cu, u32 256 bins at 2^28, us): read alone 351,
/// the bins alone 444, plain shared atomics 433 (one bin 431: no serialisation on one address), the
/// warp aggregation a sample 528, one vote a chunk (the form kept: warp_add_chunk) 427.
constexpr int histogram_threads = default_policy::histogram_threads;
constexpr int histogram_blocks_per_sm = default_policy::histogram_blocks_per_sm;
constexpr int histogram_unroll = default_policy::histogram_unroll;
/// bin_by_key's histogram (its functor's bins, apps_detail::key_binner) keeps 8 chunks in flight a thread:
/// its bins cost little, so more bytes in flight pay, where histogram_even's exact bins keep its kernel
/// busy with instructions. Measured (carry_probe_bin at a47c054, two rounds, u32 keys, 256
/// bins, the low byte; CUB's 8-bit SortPairs in the same run), bin_by_key 2^24 / 2^26 / 2^28, us: unroll 4
/// 191.6-191.8 / 655.8-658.6 / 2513.1-2531.5; unroll 8 188.9-189.9 / 643.2-643.6 / 2438.9-2447.2;
/// histogram_even 256 bins with unroll 8 lost 3.1-3.8 us at 2^24 (41.5 / 40.8 against 37.7 / 37.9), so
/// it keeps 4. Blocks walking tiles of 256 x UNROLL chunks, the grid striding over tiles (CUB's walk),
/// measured no better than the grid's stride over chunks (2^28: 2458.2-2466.0 at 4, 2434.5-2444.2 at 8).
constexpr int bin_histogram_unroll = default_policy::bin_histogram_unroll;
/// The histogram grids hold only the blocks an SM can run at once (the occupancy calculator's count for
/// the kernel, its registers and shared memory, at most histogram_blocks_per_sm): 256 bins of u32 take
/// 37 registers (6 blocks an SM) and bin_by_key's unroll 8 53 (4 blocks), so a grid of 8 blocks an SM
/// ran a second, partial wave behind the first. Measured (a47c054, two rounds, us, 8 an
/// SM against resident): histogram_even 256 bins u32 2^20 13.4-14.3 / 12.3-12.5, 2^24 38.7-39.5 /
/// 37.1-37.3, 2^28 430-438 / 431-432 (its bins' instructions are the limit there); bin_by_key (unroll 8)
/// 2^20 39.5-41.9 / 35.3-35.6, 2^24 189.0-192.2 / 187.6-189.3, 2^26 641.5-641.6 / 640.6, 2^28 2431-2434 /
/// 2434-2436 (with unroll 4 and resident grids: 37.0-37.3, 190.4-190.8, 638.7-639.8, 2432-2437).
constexpr bool histogram_occupancy = default_policy::histogram_occupancy;
/// Per-block counters live in shared memory up to this many bins (4 bytes each: 48 K bins is 192 KB,
/// one block an SM); beyond it every sample is a global atomic on the caller's counters.
constexpr std::int64_t shared_bins_max = 48 * 1024;
/// A block counts at most this many samples, so its 32-bit shared counters cannot wrap (the grid grows
/// for larger inputs).
constexpr std::int64_t samples_per_block_max = std::int64_t{1} << 31;

// ---- bin_by_key (one onesweep pass up to 256 bins; past that the sort's three-kernel pass, radix_tuning)
// ----
/// bin_by_key's one onesweep pass (up to 256 bins) recomputes each key's bin from the key, as the sort's
/// passes recompute their digit (apps_detail::bin_whole_digit), so the sort's whole and padded tile
/// forms apply; the caller's functor is called more than once a key (the README says so). Measured
/// (carry_probe_bin, two rounds, CUB's SortPairs over bits [0, 8) in the same
/// run; u32/u32, 256 bins): 2^24 / 2^26 / 2^28 191.6-192.3 / 652.5-654.1 / 2479.5-2488.4 us against
/// 196.4-197.3 / 666.8-667.1 / 2510.8-2514.3 with the bin staged (0 turns it off) and
/// 200.8-203.0 / 679.4-679.6 / 2554.8-2556.1 with 60510c4's shifted digit.
constexpr bool bin_recompute = default_policy::bin_recompute;

// ---- slot allocation (a widening exclusive sum on the engine's look-back) ----
/// The unbounded form past one tile runs the engine's staged single pass with the engine's tuned policy
/// for the offset type (scan/tuning.hpp: u64 256 x 16 at 6 blocks an SM): u32 -> u64 at 2^28 1161 us,
/// 0.92 of copy, against 1331 us (0.80) for the register tile below.
/// Register tile (bounded form, one-tile calls, offset types without a staged policy): 256 threads x
/// 16 requests (u32 requests: 64 bytes in, 128 out a thread), the engine's coarsened block scan.
template <int REQUEST_BYTES>
constexpr int slot_items() {
  return REQUEST_BYTES <= 4 ? default_policy::slot_items4 : default_policy::slot_items8;
}
constexpr int slot_threads = default_policy::slot_threads;

// ---- the distributed sort's key exchange (dist::detail::codes_keys reads the two rows) ----
/// From how many ranks the sorted parts' keys travel delta-coded (blocks of 128: first key, steps in the
/// fewest bits) rather than raw. Coding costs two reads of the parts that leave (widths, then packing at
/// the scanned offsets) and the receiver one write; it saves what the narrower parts take on NVLink.
/// Measured on 4 x H100 (carry dist sort --coding delta|raw, one run, medians of 5 calls after warm-up;
/// u32 keys, uniform): 4 ranks save 2.0 ms of a 3.4 ms exchange for 0.9 ms of coding; 2 ranks keep half
/// the shard at home, so the exchange saves 0.95 ms for 1.4 ms of coding. A single pass taking the payload
/// offsets from the engine's look-back lost (4 x H200: 9.33 ms against 9.04 on 4 ranks; NOTES.md).
/// dist_delta_batch: blocks of 128 keys one warp codes or decodes, their loads issued before any is used;
/// two measured best (the row above); at four and eight the pack pass slowed (762 and 1037 us against 641).
/// A warp working several batches in turn, the next batch's loads in flight while one is worked, lost too
/// (probe_delta, H100, 2^28 u32, batches x rounds: pack 641 us at 2 x 1, 742 at 1 x 4, 776 at 2 x 2, 860 at
/// 2 x 4; decode 652, 642, 678, 764): the passes are not waiting on their loads alone.
/// dist_exchange_slices_*: with a side stream, the slices a raw exchange goes in, each merged on the
/// caller's stream while the next travels (carry dist sort --slices N, one run, medians of 10 calls; the
/// merge and NCCL's copies share HBM, so the exchange slows while a merge runs: 3 slices of keys cost the
/// exchange 0.27 ms and hide 0.8 of its 1.26 ms merge; from 4 slices the exchange lost 1.1-1.2 ms; pairs'
/// heavier merge slowed it 0.8 ms already at 2 slices, more than the merge it hid). Pairs on three or four
/// ranks (_many) merge their runs four in one pass, a merge bound by its shared memory rather than HBM:
/// on 4 x H200 (f966841's tool, two rounds, --coding raw --slices N) 3 slices hide all but 0.47 ms of its
/// 1.24 ms while the exchange grows from 2.94-3.29 ms to 2.71-2.76, so raw in 3 slices beat the coded
/// exchange in one piece by 10 % (keys on 4 ranks in the same run: 2 slices 9599-9601 us, 3 8535-8556,
/// 4 8487-8488, 6 8436-8456: kept at 3, the row that also holds on 2 ranks; not measured on H100).
/// dist_delta_beside_slices: whether a sort lent a side stream still codes its keys (in one piece) where
/// the rank counts above say so, or sends them raw in the slices a side stream takes. Raw: on 4 ranks the
/// slices' merges overlap the exchange, which coding (0.84 ms of width and pack passes before it) cannot
/// (4 x H200, one run: 8521 us raw in 3 slices against 8709 coded; coded in 3 slices, the coded exchange
/// sliced on another build, 8668; 4 x H100, one run at 3d58f82: 9242 against 9250).

} // namespace apps_tuning
} // namespace carry
