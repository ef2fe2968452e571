// The onesweep digit pass (Adinets & Merrill 2022) on the engine's pieces: the block multisplit ranks a
// tile, the engine's vector look-back (one chain per digit, packed 32-bit count words) gives each digit's
// global offset, and a staged scatter writes runs. Also the copy that finishes a call when the passes
// that ran left the keys elsewhere.
#pragma once

#include <cstdint>

#include "../../scan/util/launch.cuh"
#include "../../scan/lookback/look_back.cuh"
#include "../../scan/lookback/prepare.cuh"
#include "../../scan/lookback/status.cuh"
#include "../../scan/lookback/ticket.cuh"
#include "../../scan/operators.hpp"
#include "digit.cuh"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// One onesweep launch: pass `pass` over one portion of the input.
struct onesweep_args {
  detail::tile_plan tiles;     // the whole input
  std::int64_t first_tile = 0; // the portion's tiles: first_tile .. first_tile + portion_tiles - 1
  std::int64_t portion_tiles = 0;
  std::int64_t portion = 0;
  int pass = 0;
  int host_passes = 0;
  void* state = nullptr; // this launch's state set: ticket counter, then tiles x 256 packed words
  std::size_t words_offset = 0;
  // alternating sets (sort_layout::alternate): `state` is the first of the sets of set_bytes; the kernel
  // takes set j % 2 for executed pass j and, when a pass j + 1 runs (so there are two sets), sets
  // next_state to the set it will take
  bool alternate = false;
  std::size_t set_bytes = 0;
  void* next_state = nullptr; // the set whose words (and ticket counter) this pass's tiles zero
  // the bucket form's MSD pass (onesweep_kernel's MSD): the call's bits, to find its digit on the device
  int begin_bit = 0, end_bit = 0;
  bool descending = false;
};

/// One onesweep tile: tile t of the portion (t from a ticket, so its predecessors run or ran).
///   load and rank the tile (multisplit); thread d publishes the tile's count of digit d in chain d
///   (early counts: before the ranking rounds, as soon as the tile's histogram is scanned), looks back
///   along chain d (lookback::look_back_chain, spinning: a back-off measured slower) and publishes its
///   inclusive count;
///   the digit's global offset = the portion's base for d (histogram offsets plus earlier portions)
///   + the look-back's count; the portion's last tile leaves the next portion's bases;
///   scatter keys, then values, through shared memory (ends with a barrier: `ts` is free again); with
///   PLACED storage (places_keys) each key went to the stage in its ranking round, and `pos` is unused.
/// FULL: the tile is whole (every tile but the input's last), so no item is checked against `valid`
/// (block::tile_fill::whole). Otherwise only the loads and the scatter check, and the ranking is
/// block::tile_fill::padded (padded_form: radix_tuning::padded_partial_tiles): every dead item ranks as the last digit,
/// after every live item, at a staged position >= valid, never written; the published count leaves the
/// dead items out. Both rank without a check or a ballot a round.
template <bool FULL, int ITEMS, bool HAS_VALUES, class K, class V, class Digit, bool PLACED, int THREADS>
__device__ __forceinline__ void onesweep_tile(
    staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, radix_tuning::counts, PLACED, THREADS>& ts,
    std::int64_t t, const K* ksrc, K* kdst, const V* vsrc_all, V* vdst, const onesweep_args& a, const Digit& digit,
    std::uint64_t* bases) {
  using ms = typename std::remove_reference_t<decltype(ts)>::ranker;
  constexpr int radix = radix_tuning::radix;
  const std::int64_t tile = a.first_tile + t;
  const std::int64_t base = a.tiles.tile_base(tile);
  const int valid = a.tiles.valid_items(tile);
  // ---- load ----
  K key[ITEMS];
  int pos[ITEMS];
  const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); }; // recomputed: no registers held
  constexpr block::tile_fill fill = FULL ? block::tile_fill::whole
                                    : padded_form<HAS_VALUES, K, V, Digit> ? block::tile_fill::padded
                                                                           : block::tile_fill::checked;
  load_keys<ITEMS, FULL>(ksrc + base, valid, key);
  const lookback::chain_view<lookback::packed_counts> view{
      lookback::packed_counts::bind(static_cast<char*>(a.state) + a.words_offset), radix};
  const int dd = threadIdx.x;
  // thread dd owns digit dd (always, with one thread a digit; the first radix threads otherwise)
  const bool owns_digit = THREADS == radix || dd < radix;
  // ---- the next executed pass's words of this tile, zeroed (alternating sets; that set's last user
  // was the pass before this one, a finished launch; its next user is a later launch) ----
  if (a.next_state != nullptr && owns_digit) {
    char* next = static_cast<char*>(a.next_state);
    reinterpret_cast<std::uint32_t*>(next + a.words_offset)[lookback::chain_index(t, dd, radix)] = 0;
    if (t == 0 && dd == 0) *reinterpret_cast<std::uint32_t*>(next) = 0; // its ticket counter
  }
  std::uint32_t count = 0; // the tile's keys of digit dd
  int start = 0;           // where digit dd starts in the ranked tile
  // ---- rank (the multisplit); thread dd publishes the tile's count of digit dd in chain dd: with early
  // counts as soon as they are known, before the ranking rounds (radix_tuning::early_counts) ----
  if constexpr (radix_tuning::early_counts) {
    const auto on_counts = [&](int s, int c) {
      view.publish(t, dd, t == 0 ? lookback::state_prefix : lookback::state_aggregate, static_cast<std::uint32_t>(c));
      // start and count wait in thread dd's own adjust slot across the rounds (ptxas showed the same
      // spills with them in registers; the slot costs a shared store and load a tile)
      ts.adjust[dd] = std::uint64_t{static_cast<std::uint32_t>(c)} << 32 | static_cast<std::uint32_t>(s);
    };
    if constexpr (PLACED) // each key to the stage in its round: no positions held (radix_tuning::placed_stage)
      ms::template rank_early_place_by<fill>(ts.rank, digit_at, valid, on_counts,
                                             [&](int j, int p) { ts.stage().keys[p] = key[j]; });
    else
      ms::template rank_early_by<fill>(ts.rank, digit_at, valid, pos, on_counts);
    if (owns_digit) {
      const std::uint64_t kept = ts.adjust[dd];
      start = static_cast<int>(kept & 0xffffffffu), count = static_cast<std::uint32_t>(kept >> 32);
    }
  } else {
    ms::template rank_by<fill>(ts.rank, digit_at, valid, pos);
    if (owns_digit) {
      start = ms::start(ts.rank, dd), count = static_cast<std::uint32_t>(ms::count(ts.rank, dd, valid));
      view.publish(t, dd, t == 0 ? lookback::state_prefix : lookback::state_aggregate, count);
    }
  }
  // ---- look-back, one chain per digit: fold the counts of the tiles before this one, publish the
  // inclusive count; then the tile's global digit offsets ----
  if (owns_digit) {
    std::uint32_t before = 0; // digit dd's keys in the portion's tiles before this one
    if (t != 0) {
      before = lookback::look_back_chain<0, radix_tuning::lookback_window<HAS_VALUES>>(view, t, dd, std::uint32_t{0}, sum{});
      view.publish(t, dd, lookback::state_prefix, before + count);
    }
    std::uint64_t* portion_base = bases + a.pass * 2 * radix;
    const std::uint64_t b = portion_base[(a.portion & 1) * radix + dd];
    if (t == a.portion_tiles - 1) portion_base[((a.portion + 1) & 1) * radix + dd] = b + before + count;
    ts.adjust[dd] = b + before - static_cast<std::uint64_t>(start);
  }
  // ---- scatter through shared memory (its first barrier publishes the adjustments) ----
  scatter_tile<ITEMS, HAS_VALUES, FULL>(ts, digit, key, digit_at, pos, valid, kdst, HAS_VALUES ? vsrc_all + base : nullptr,
                                  vdst);
}

/// The shared memory of a onesweep tile of THREADS x ITEMS (the large tile shape places keys: places_keys).
/// THREADS: tile_shape's, or the wide tile's (radix_tuning::wide_threads).
template <int ITEMS, bool HAS_VALUES, class K, class V, class Digit, int THREADS = tile_shape<K, V>::threads>
using onesweep_storage = staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, radix_tuning::counts,
                                             places_keys<HAS_VALUES, Digit, ITEMS == tile_shape<K, V>::items, sizeof(K)>,
                                             THREADS>;

/// Blocks an SM a onesweep kernel of THREADS threads must allow: tile_shape's blocks radix_tuning::
/// onesweep_min_blocks, the wide tile's radix_tuning::wide_min_blocks.
template <bool HAS_VALUES, class K, class V, int THREADS>
constexpr int pass_min_blocks = THREADS == tile_shape<K, V>::threads
                                    ? radix_tuning::onesweep_min_blocks<HAS_VALUES, sizeof(K), sizeof(V)>
                                    : radix_tuning::wide_min_blocks;

/// Pass kernel. `Digit`: bin_of(key) in [0, 256), the pass's digit (radix_digit: a radix sort pass;
/// apps' bin_digit: bin_by_key's one pass). A block whose pass the histogram marked skipped returns at
/// once. Otherwise it takes a ticket (tiles in the order blocks start) and runs onesweep_tile; with
/// radix_tuning::persistent_onesweep (keys only) it takes tickets until the portion's tiles are gone (a
/// grid of one wave: a skipped pass costs one wave of blocks that exit, not one block a tile). With
/// whole_form (radix_tuning::whole_tiles) a whole tile runs onesweep_tile's FULL form; the input's last (partial) tile,
/// and every tile without whole_form, the other (padded or checked: padded_form).
/// MSD (radix sorts only, the launch of the call's last pass where the bucket form may run): when the
/// histogram chose the bucket form (control->bucket_top), this launch is the form's first step instead
/// of the last pass (which the histogram then marked skipped), as the one pass of the call: its digit is
/// pass bucket_top - 1's (found here from a's bits; `digit` is not used), it reads the input and writes
/// kb.out (the route of a call whose one pass runs), and it takes the last pass's state set, unused
/// otherwise. When the histogram did not choose it, the launch is the last pass as usual.
template <int ITEMS, bool HAS_VALUES, class K, class V, class Digit, int THREADS = tile_shape<K, V>::threads,
          bool MSD = false>
__global__ void __launch_bounds__(THREADS, (pass_min_blocks<HAS_VALUES, K, V, THREADS>))
    onesweep_kernel(pass_buffers<K> kb, pass_buffers<V> vb, onesweep_args a, Digit digit, const sort_control* control,
                    std::uint64_t* bases) {
  using storage = onesweep_storage<ITEMS, HAS_VALUES, K, V, Digit, THREADS>;
  // the tile's storage: static, or dynamic when it passes 48 KB (dynamic_tile_storage; the launch asks for it)
  constexpr bool dynamic = dynamic_tile_storage<storage>;
  __shared__ std::conditional_t<dynamic, char, storage> static_ts;
  extern __shared__ uint4 onesweep_dynamic_smem[];
  storage& ts = *[&] {
    if constexpr (dynamic) return reinterpret_cast<storage*>(onesweep_dynamic_smem);
    else return &static_ts;
  }();
  __shared__ std::uint32_t ticket;
  // ---- launched as the previous kernel's programmatic dependent (radix_tuning::pdl): wait for the
  // previous one to finish (at once otherwise); pdl_early: let the next kernel launch now ----
  if constexpr (radix_tuning::pdl_early) lookback::allow_dependents();
  lookback::wait_for_previous_grid();
  const unsigned skip = control->skip_mask; // written by the histogram, launches ago
  int k, j; // the passes that run, and those before this one
  const unsigned top = MSD ? control->bucket_top : 0u;
  if (top != 0) { // ---- the bucket form's MSD pass ----
    if constexpr (MSD) { // (radix digits only)
      a.pass = static_cast<int>(top) - 1;
      digit = Digit{digit_extract(pass_digit(a.begin_bit, a.end_bit, a.pass, radix_tuning::digit_bits, a.descending))};
    }
    k = 1, j = 0;
  } else {
    if (skip >> a.pass & 1u) return;
    k = executed_passes(skip, a.host_passes), j = executed_before(skip, a.pass);
  }
  const K* ksrc = kb.src(j, k);
  K* kdst = kb.dst(j, k);
  const V* vsrc = HAS_VALUES ? vb.src(j, k) : nullptr;
  V* vdst = HAS_VALUES ? vb.dst(j, k) : nullptr;
  if (a.alternate) { // ---- this executed pass's set, and the next one's to clear ----
    char* first = static_cast<char*>(a.state);
    a.state = first + static_cast<std::size_t>(j & 1) * a.set_bytes;
    a.next_state = j + 1 < k ? first + static_cast<std::size_t>((j + 1) & 1) * a.set_bytes : nullptr;
  }
  auto* counter = static_cast<std::uint32_t*>(a.state);
  const auto run = [&](std::int64_t t) {
    if (whole_form<HAS_VALUES, K, V, Digit> && a.tiles.valid_items(a.first_tile + t) == storage::tile_items)
      onesweep_tile<true, ITEMS, HAS_VALUES>(ts, t, ksrc, kdst, vsrc, vdst, a, digit, bases);
    else
      onesweep_tile<false, ITEMS, HAS_VALUES>(ts, t, ksrc, kdst, vsrc, vdst, a, digit, bases);
  };
  if constexpr (radix_tuning::persistent_onesweep<HAS_VALUES>) {
    // ---- tickets until the portion is done (the tile's last barrier frees `ticket` for the next) ----
    for (;;) {
      const std::int64_t t = lookback::block_ticket(ticket, counter);
      if (t >= a.portion_tiles) break;
      run(t);
    }
  } else {
    // ---- one ticket, one tile ----
    run(lookback::block_ticket(ticket, counter)); // tile within the portion
  }
  if constexpr (radix_tuning::pdl && !radix_tuning::pdl_early) lookback::allow_dependents(); // the block's tiles are done
}

/// Launches pass p of `passes` over the layout's tiles (of tile_shape's threads x ITEMS), one launch a portion (each with
/// its look-back words cleared: once for the whole call by its first memset, by the memset and the pass
/// before (alternate), or prepared for the launch), taking control's skip mask and the bases the
/// histogram left. `pdl`: the stream's last work is a kernel of this call that allows dependents (the
/// histogram, the pass before), so a launch without a prepare step may be its programmatic dependent.
/// The radix sort's passes and bin_by_key's one pass alike. THREADS: the blocks' threads (0: tile_shape's;
/// the wide tile's radix_tuning::wide_threads).
/// MSD: the last pass's launch (p = passes - 1) as the bucket form's MSD pass where the histogram chose
/// it (onesweep_kernel's MSD), `bits` giving the call's bit range and direction.
template <bool HAS_VALUES, int ITEMS = 0, int THREADS = 0, bool MSD = false, class K, class V, class Digit>
cudaError_t launch_onesweep_pass(void* d_temp_storage, const sort_layout& layout, int p, int passes, const Digit& digit,
                                 const pass_buffers<K>& kb, const pass_buffers<V>& vb, const sort_control* control,
                                 std::uint64_t* bases, int sms, cudaStream_t stream, bool pdl = false,
                                 const onesweep_args& bits = {}) {
  constexpr int items = ITEMS > 0 ? ITEMS : tile_shape<K, V>::items;
  constexpr int threads = THREADS > 0 ? THREADS : tile_shape<K, V>::threads;
  auto* kernel = onesweep_kernel<items, HAS_VALUES, K, V, Digit, threads, MSD>;
  // ---- a tile storage past 48 KB is dynamic shared memory: the kernel's limit, once per device ----
  using storage = onesweep_storage<items, HAS_VALUES, K, V, Digit, threads>;
  constexpr std::size_t smem = dynamic_tile_storage<storage> ? sizeof(storage) : 0;
  if constexpr (smem > 0) {
    if (const cudaError_t e = detail::set_once<detail::smem_tag<storage>>(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        e != cudaSuccess)
      return e;
  }
  for (std::int64_t q = 0; q < layout.portions; ++q) {
    onesweep_args a;
    a.tiles = layout.tiles;
    a.portion = q;
    a.first_tile = q * layout.portion_tiles;
    const std::int64_t left = layout.tiles.num_tiles - a.first_tile;
    a.portion_tiles = left < layout.portion_tiles ? left : layout.portion_tiles;
    a.pass = p, a.host_passes = passes;
    a.begin_bit = bits.begin_bit, a.end_bit = bits.end_bit, a.descending = bits.descending;
    const lookback::temp_part set{layout.state.offset + (layout.clear_once ? static_cast<std::size_t>(p) * layout.state_set_bytes : 0),
                                  layout.state_set_bytes};
    a.state = set.in(d_temp_storage);
    a.words_offset = layout.state_words_offset;
    a.alternate = layout.alternate, a.set_bytes = layout.state_set_bytes;
    const dim3 grid(static_cast<unsigned>(
        onesweep_grid(a.portion_tiles, radix_tuning::persistent_onesweep<HAS_VALUES>, sms,
                      pass_min_blocks<HAS_VALUES, K, V, threads>))),
        block(threads);
    cudaError_t e;
    if (layout.clear_once || layout.alternate) {
      e = lookback::launch_after_smem(kernel, grid, block, smem, stream, pdl, kb, vb, a, digit, control, bases);
    } else {
      e = lookback::launch_prepare(d_temp_storage, set, stream);
      if (e == cudaSuccess)
        e = lookback::launch_after_smem(kernel, grid, block, smem, stream, true, kb, vb, a, digit, control, bases);
    }
    if (e == cudaSuccess) e = detail::after_launch(stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/// Blocks of copy_kernel for n items: grid-stride, at most 4 per SM-ish (1056 blocks of 256 threads).
inline unsigned copy_blocks(std::int64_t n) {
  const std::int64_t b = (n + 4095) / 4096;
  return static_cast<unsigned>(b < 1 ? 1 : b > 1056 ? 1056 : b);
}

/// Writes n items to `to`, grid-stride: item(i) for each, or, when `vec` (16-byte aligned target, and
/// T divides 16 bytes), chunk(c) for each whole 16-byte chunk c and item(i) for the tail.
template <class T, class Chunk, class Item>
__device__ __forceinline__ void write_items(T* to, std::int64_t n, bool vec, Chunk chunk, Item item) {
  const std::int64_t rank = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::int64_t threads = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t done = 0;
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    if (vec && reinterpret_cast<std::uintptr_t>(to) % 16 == 0) {
      constexpr std::int64_t per = 16 / sizeof(T);
      const std::int64_t chunks = n / per;
      uint4* o = reinterpret_cast<uint4*>(to);
      for (std::int64_t c = rank; c < chunks; c += threads) o[c] = chunk(c);
      done = chunks * per;
    }
  }
  for (std::int64_t i = done + rank; i < n; i += threads) to[i] = item(i);
}

/// Copies n items from `from` to `to`, 16 bytes a thread-step when both are 16-byte aligned.
template <class T>
__device__ void copy_items(const T* from, T* to, std::int64_t n) {
  write_items(to, n, reinterpret_cast<std::uintptr_t>(from) % 16 == 0,
              [&](std::int64_t c) { return reinterpret_cast<const uint4*>(from)[c]; },
              [&](std::int64_t i) { return from[i]; });
}

/// Writes n copies of v to `to`, 16 bytes a thread-step when `to` is 16-byte aligned.
template <class T>
__device__ void fill_items(T* to, T v, std::int64_t n) {
  uint4 w{};
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    T pack[16 / sizeof(T)];
    for (auto& x : pack) x = v;
    memcpy(&w, pack, sizeof(w));
  }
  write_items(to, n, true, [&](std::int64_t) { return w; }, [&](std::int64_t) { return v; });
}

/// Whether n keys whose images all equal `first`'s are n copies of `first`: always, but for floating
/// keys whose image is that of +-0.0 (both map to it; the input's mix of them must be kept).
template <class K>
__device__ __forceinline__ bool equal_keys_are_copies(const K& first) {
  if constexpr (kind_of<K>() == key_kind::floating)
    return radix_key<K>::ordered(first) != radix_key<K>::ordered_bits(0);
  else
    return true;
}

/// The call's last step: when the passes that ran (all but those in the skip mask; `control` null: all
/// of them) left keys and values somewhere else than the caller expects, copy them there; keys only,
/// with every key equal over all its bits (control->equal_keys), fill the target with the first key.
/// Grid-stride over any grid (finish_copy_kernel's; the bucket form's fused last launch, bucket_sort.cuh,
/// which calls it only when the histogram did not choose the form: finish_copy_kernel runs only where
/// the histogram cannot choose it).
template <bool HAS_VALUES, class K, class V>
__device__ __forceinline__ void finish_copy(const pass_buffers<K>& kb, const pass_buffers<V>& vb,
                                            const sort_control* control, int host_passes, std::int64_t n) {
  const unsigned skip = control != nullptr ? control->skip_mask : 0u;
  const int k = executed_passes(skip, host_passes);
  if (!kb.needs_copy(k, host_passes)) return;
  if constexpr (!HAS_VALUES) {
    // ---- every key the same (histogram: all bits constant): the result is a fill, no second read ----
    if (control != nullptr && control->equal_keys != 0) {
      const K first = kb.result(k)[0];
      if (equal_keys_are_copies(first)) {
        fill_items(const_cast<K*>(kb.target(host_passes)), first, n);
        return;
      }
    }
  }
  copy_items(kb.result(k), const_cast<K*>(kb.target(host_passes)), n);
  if constexpr (HAS_VALUES) copy_items(vb.result(k), const_cast<V*>(vb.target(host_passes)), n);
}

/// finish_copy as a kernel of its own (launched as the last pass's programmatic dependent, radix_tuning::pdl).
template <bool HAS_VALUES, class K, class V>
__global__ void __launch_bounds__(256)
    finish_copy_kernel(pass_buffers<K> kb, pass_buffers<V> vb, const sort_control* control, int host_passes,
                       std::int64_t n) {
  lookback::wait_for_previous_grid();
  finish_copy<HAS_VALUES>(kb, vb, control, host_passes, n);
}

} // namespace radix_detail
} // namespace carry
