// Tuning constants of the scan engine, one place, each with the measurement that chose it.
#pragma once

#include <cstdint>

#include "block_scan_algorithm.hpp"

namespace carry {

/// Launch shape of a tile pass: algorithm, threads per block, items per thread, and whether tile
/// loads and stores carry the streaming (evict-first) cache hint.
template <block_scan_algorithm ALGORITHM, int BLOCK_THREADS, int ITEMS_PER_THREAD, bool STREAMING = false>
struct tile_policy {
  static constexpr block_scan_algorithm algorithm = ALGORITHM;
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int items_per_thread = ITEMS_PER_THREAD;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool streaming = STREAMING;
};

namespace tuning {

/// Items per thread of the coarsened tile when nothing better was measured: 64 bytes per thread
/// (four 16-byte loads in flight), at least one item.
template <class T>
constexpr int coarsened_items() {
  return sizeof(T) >= 64 ? 1 : static_cast<int>(64 / sizeof(T));
}

/// The tuned tile of the large-input passes, by size of T (H100 sweeps in NOTES.md):
///   1 byte: 128 threads x 128 items;  4 bytes: 128 x 64;  8 bytes: 256 x 16; others 256 x 64 bytes.
template <class T, int SIZE = static_cast<int>(sizeof(T))>
struct large_tile {
  using type = tile_policy<block_scan_algorithm::coarsened, 256, coarsened_items<T>()>;
};
template <class T>
struct large_tile<T, 1> {
  using type = tile_policy<block_scan_algorithm::coarsened, 128, 128>;
};
template <class T>
struct large_tile<T, 4> {
  using type = tile_policy<block_scan_algorithm::coarsened, 128, 64>;
};
template <class T>
struct large_tile<T, 8> {
  using type = tile_policy<block_scan_algorithm::coarsened, 256, 16>;
};

/// The tuned single-pass tile for T.
template <class T>
using single_pass_policy = typename large_tile<T>::type;

/// The tuned hierarchical tile for T (upsweep, spine and downsweep).
template <class T>
using hierarchical_policy = typename large_tile<T>::type;

/// The seeds' shapes for the four non-coarsened algorithms (benchmark and tests): one item per thread
/// for Kogge-Stone, two for Brent-Kung and Blelloch (their trees take two per thread natively), 512
/// threads (the seed's choice).
template <block_scan_algorithm A>
using seed_policy = tile_policy<A, 512,
                                (A == block_scan_algorithm::brent_kung || A == block_scan_algorithm::blelloch) ? 2
                                                                                                               : 1>;

/// Small inputs (up to small_n_max items) in the single-pass family use 512-thread tiles of up to 16
/// items per thread (u32: 8192 items, so 2^13 is one block and 2^16 eight tiles). Static shared memory
/// caps a tile at 48 KB with its transpose buffer. Measured: see NOTES.md.
template <class T>
using small_policy =
    tile_policy<block_scan_algorithm::coarsened, 512, (coarsened_items<T>() < 16 ? coarsened_items<T>() : 16)>;
constexpr std::int64_t small_n_max = std::int64_t{1} << 16;  // measured: see NOTES.md

/// Fast mode uses the canonical (deterministic) look-back from this many tiles on: on the H100 it was
/// faster there (u32, 128 x 64 tiles: 2^28 826 vs 868 us, 2^30 3271 vs 3445 us) and slower below
/// (2^22, 512 tiles: 22.4 vs 20.0 us). See NOTES.md.
constexpr std::int64_t canonical_look_back_from_tiles = 2048;

/// `scan_algorithm::automatic` takes the single-pass scan from this many items on, the hierarchical
/// pass below (both launch once for a single tile). Measured: see NOTES.md.
constexpr std::int64_t auto_single_pass_from = 0;

}  // namespace tuning
}  // namespace carry
