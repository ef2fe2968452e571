// A radix pass's digit as a functor (the sort's own kernels, and apps' counting-sort kernels that run
// the three-kernel form), and the warp-striped tile a pass ranks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../scan/block/multisplit.cuh"
#include "../tuning.hpp"
#include "key_traits.hpp"

namespace carry {
namespace radix_detail {

/// The keys-only sorts' value type (never loaded or stored).
struct null_value {
  unsigned char unused;
};

/// Pass digit of a key: the pass's digit_extract of its ordered bits. Also apps' binner interface
/// (sample_type, level_bytes, bind, bin_of), so bin_upsweep_kernel / bin_downsweep_kernel run a radix
/// pass. `recompute`: a shift and a LOP3, so the tile kernels recompute it from the keys they hold
/// rather than keep ITEMS digits in registers (digit_recompute).
template <class K>
struct radix_digit {
  digit_extract ex;
  using sample_type = K;
  static constexpr std::size_t level_bytes = 0;
  static constexpr bool recompute = true;
  __device__ radix_digit bind(void*) const { return *this; }
  __device__ int bin_of(const K& k) const { return static_cast<int>(ex(radix_key<K>::ordered(k))); }
};

/// Whether a tile kernel recomputes Digit's bin_of from the keys instead of holding the digits: its
/// `recompute` member, false without one (apps' binners: bin_of may divide or search the levels).
template <class D, class = void>
struct digit_recompute : std::false_type {};
template <class D>
struct digit_recompute<D, std::void_t<decltype(D::recompute)>> : std::bool_constant<D::recompute> {};

/// The engine's multisplit as every radix kernel ranks a tile of THREADS x ITEMS with it (256 threads
/// but for the onesweep blocks: tile_shape's threads, radix_tuning::onesweep_threads).
template <int ITEMS, int COUNTS = radix_tuning::default_policy::counts, int THREADS = radix_tuning::threads,
          class P = radix_tuning::default_policy>
using tile_ranker =
    block::multisplit<THREADS, ITEMS, radix_tuning::digit_bits, static_cast<block::peer_method>(P::peers),
                      static_cast<block::count_method>(COUNTS), static_cast<warp_scan_shape>(P::scan_warps)>;

/// The onesweep tile shape for key K and value V (V = null_value: keys only): the block's threads
/// (radix_tuning::onesweep_threads: 256 or 384) x the items of the wider of the two.
template <class K, class V, class P = radix_tuning::default_policy>
struct tile_shape {
  static constexpr bool has_values = !std::is_same_v<V, null_value>;
  static constexpr int widest = has_values && sizeof(V) > sizeof(K) ? static_cast<int>(sizeof(V))
                                                                    : static_cast<int>(sizeof(K));
  static constexpr int threads = radix_tuning::onesweep_threads<P, has_values, widest>;
  static constexpr int items = radix_tuning::items<P, widest, has_values>();
  static constexpr int tile_items = threads * items;
  static_assert(threads >= radix_tuning::radix, "carry: a thread for every digit");
};

/// The cluster path's largest tile shape for key K and value V (radix_tuning::cluster_items_max).
template <class K, class V, class P = radix_tuning::default_policy>
struct cluster_shape {
  static constexpr int items = radix_tuning::cluster_items_max<P, tile_shape<K, V, P>::widest>();
  static constexpr int tile_items = radix_tuning::threads * items;
};

/// Whether scatter_tile stages each item's digit beside it: with values (they overwrite the staged
/// keys) or when Digit cannot be recomputed from a key (digit_recompute).
template <bool HAS_VALUES, class Digit>
constexpr bool stages_digits = HAS_VALUES || !digit_recompute<Digit>::value;

/// Whether a onesweep tile stages its keys in the ranking rounds (staged_tile_storage's PLACED): keys
/// only, digits recomputed from the keys, the large tile shape (LARGE), keys of KEY_BYTES, as
/// radix_tuning::placed_stage.
template <bool HAS_VALUES, class Digit, bool LARGE, int KEY_BYTES, class P = radix_tuning::default_policy>
constexpr bool places_keys =
    radix_tuning::placed_stage<P, HAS_VALUES, LARGE, KEY_BYTES>&& digit_recompute<Digit>::value;

/// Whether a onesweep kernel ranks its whole tiles in a form of their own (whole_form) and its last tile
/// padded (padded_form), by radix_tuning::whole_tiles / padded_partial_tiles, for pairs only when their
/// digit is recomputed from the key (the sort's): bin_by_key's pass with values, whose digits are held
/// and staged, lost with both (a33189a's bench: 256 bins 2^28 2907 us against
/// 2544, ptxas 144 bytes spilled), so it keeps the checked form.
template <bool HAS_VALUES, class K, class V, class Digit, class P = radix_tuning::default_policy>
constexpr bool whole_form = radix_tuning::whole_tiles<P, HAS_VALUES, sizeof(K), sizeof(V)> &&
                            (!HAS_VALUES || digit_recompute<Digit>::value);
template <bool HAS_VALUES, class K, class V, class Digit, class P = radix_tuning::default_policy>
constexpr bool padded_form = radix_tuning::padded_partial_tiles<P, HAS_VALUES, sizeof(K), sizeof(V)> &&
                             (!HAS_VALUES || digit_recompute<Digit>::value);

/// Shared memory of a ranked, staged tile of THREADS x ITEMS items, for a kernel whose digit is Digit: the
/// multisplit's counters and the tile staged in sorted order (keys, then values in the same bytes) share
/// their bytes (a tile is ranked before it is staged; scatter_tile's first barrier separates them), then
/// each staged item's digit (only when stages_digits), and per digit the amount that turns a staged
/// position into a global one. Sharing lets larger tiles fit 48 KB of static shared memory
/// (radix_tuning::items). PLACED: the stage has bytes of its own, so that keys are staged in their
/// ranking rounds (multisplit::rank_early_place_by; keys only) and no thread holds ITEMS positions.
template <int ITEMS, bool HAS_VALUES, class K, class V, class Digit,
          int COUNTS = radix_tuning::default_policy::counts, bool PLACED = false,
          int THREADS = radix_tuning::threads, class P = radix_tuning::default_policy>
struct staged_tile_storage {
  static constexpr int tile_items = THREADS * ITEMS;
  static constexpr bool stage_digits = stages_digits<HAS_VALUES, Digit>;
  static_assert(!PLACED || !stage_digits, "carry: a placed stage holds keys whose digits are recomputed");
  using ranker =
      tile_ranker<ITEMS, COUNTS, THREADS, P>; // COUNTS: its block::count_method; P: peers, warp scans
  union stage_type {                          // values overwrite the written-out keys
    K keys[tile_items];
    V values[HAS_VALUES ? tile_items : 1];
  };
  union {
    typename ranker::temp_storage rank;                        // while the tile is ranked
    std::conditional_t<PLACED, char, stage_type> shared_stage; // once it is ranked (not PLACED)
  };
  std::conditional_t<PLACED, stage_type, char> own_stage; // PLACED: staged while it is ranked
  unsigned char digit[stage_digits ? tile_items : 1];
  std::uint64_t adjust[radix_tuning::radix]; // global offset of digit d's first item - its staged start

  __device__ stage_type& stage() {
    if constexpr (PLACED)
      return own_stage;
    else
      return shared_stage;
  }
};

/// Whether a onesweep kernel keeps its tile storage S in dynamic shared memory: when S and the kernel's
/// ticket word would pass the 48 KB a block's static shared memory may take (radix_tuning::
/// static_shared_max), as the placed stage of 8-byte keys at 384 x 15 does (71 KB). Such a launch
/// asks for sizeof(S) bytes and sets the kernel's dynamic-memory limit once per device (detail::set_once).
template <class S>
constexpr bool dynamic_tile_storage = sizeof(S) + sizeof(std::uint32_t) > radix_tuning::static_shared_max;

/// Loads a tile's keys (warp-striped, the multisplit's arrangement); dead items are not loaded (FULL: the
/// tile is whole, nothing is checked). Kernels whose digits are recomputed from the keys
/// (digit_recompute) need nothing more.
template <int ITEMS, bool FULL = false, class K>
__device__ void load_keys(const K* src, int valid, K (&k)[ITEMS]) {
  using ranker = tile_ranker<ITEMS>;
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j)
    if (FULL || ranker::item_index(j) < valid) k[j] = src[ranker::item_index(j)];
}

/// Loads a tile's keys and their digits (Digit::bin_of), held for kernels that do not recompute them;
/// dead items get digit 0 and are never ranked.
template <int ITEMS, class K, class Digit>
__device__ void load_keys(const K* src, int valid, const Digit& digit, K (&k)[ITEMS], unsigned (&d)[ITEMS]) {
  load_keys<ITEMS>(src, valid, k);
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j)
    d[j] = tile_ranker<ITEMS>::item_index(j) < valid ? static_cast<unsigned>(digit.bin_of(k[j])) : 0u;
}

/// Scatters a ranked tile (one thread per digit): keys staged at their ranks, then written in staged
/// order to ts.adjust[digit] + staged position, so each digit's items leave as one run; then the values
/// (loaded from `vsrc`, the tile's values) to the same places. digit_at(j): the digit of the thread's
/// j-th item. A staged key's digit is recomputed (digit.bin_of) when Digit allows it and no values
/// overwrite the stage (stages_digits); else it is staged beside the key. ts.adjust must be set and
/// visible after a barrier; the stage shares its bytes with the ranker's counters, so the call starts
/// with a barrier (every thread's ranking done) unless RANKED (the caller had one since its last read of
/// ts.rank). PLACED storage: the keys were staged in the ranking rounds (pos is not read), and the
/// call's one barrier before the stage is read covers them. Ends with a barrier. FULL: the tile is whole
/// (valid == tile items), nothing is checked.
template <int ITEMS, bool HAS_VALUES, bool FULL = false, bool RANKED = false, class K, class V, class Digit,
          class DigitAt, int COUNTS, bool PLACED, int THREADS, class P>
__device__ void
scatter_tile(staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, COUNTS, PLACED, THREADS, P>& ts,
             const Digit& digit, const K (&k)[ITEMS], DigitAt digit_at, const int (&pos)[ITEMS], int valid,
             K* kdst, const V* vsrc, V* vdst) {
  using storage = staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, COUNTS, PLACED, THREADS, P>;
  using ranker = typename storage::ranker;
  constexpr int threads = THREADS;
  constexpr bool stage_digits = storage::stage_digits;
  if constexpr (!RANKED && !PLACED)
    __syncthreads(); // every thread's ranking done: the stage overwrites the counters
  // ---- keys through shared memory (PLACED: staged in the ranking rounds, pos unused) ----
  if constexpr (!PLACED) {
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (FULL || ranker::item_index(j) < valid) {
        ts.stage().keys[pos[j]] = k[j];
        if constexpr (stage_digits) ts.digit[pos[j]] = static_cast<unsigned char>(digit_at(j));
      }
  }
  __syncthreads();
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j) {
    const int i = j * threads + static_cast<int>(threadIdx.x);
    if (FULL || i < valid) {
      const K key = ts.stage().keys[i];
      const unsigned dg = stage_digits ? ts.digit[i] : static_cast<unsigned>(digit.bin_of(key));
      kdst[ts.adjust[dg] + static_cast<std::uint64_t>(i)] = key;
    }
  }
  // ---- values to the same places (the staged digits still say where) ----
  if constexpr (HAS_VALUES) {
    V v[ITEMS];
    load_keys<ITEMS, FULL>(vsrc, valid, v); // the tile's values, as its keys were loaded
    __syncthreads();                        // every staged key written out before values overwrite them
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (FULL || ranker::item_index(j) < valid) ts.stage().values[pos[j]] = v[j];
    __syncthreads();
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) {
      const int i = j * threads + static_cast<int>(threadIdx.x);
      if (FULL || i < valid)
        vdst[ts.adjust[ts.digit[i]] + static_cast<std::uint64_t>(i)] = ts.stage().values[i];
    }
  }
  __syncthreads(); // the stage, digits and adjustments are free again
}

} // namespace radix_detail
} // namespace carry
