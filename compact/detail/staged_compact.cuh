// The staged tile of a compaction over pointers: items land in shared memory (the engine's staged-tile
// loader: cp.async, no registers held while in flight; element by element for partial or unaligned
// tiles), flags either beside them or straight into a bit per item; each warp then walks its run of the
// tile 32 consecutive items a round and writes the selected ones of a round as one coalesced store (the
// round's picks are the blocked masks of its lanes, side by side).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../scan/lookback/ticket.cuh"
#include "../../scan/tile/staged_tile.cuh"
#include "block_compact.cuh"

namespace carry {
namespace compact_detail {

/// A staged tile's items in shared memory, and what selects them.
template <class Policy, class T, class Sel>
struct staged_selection;

template <class Policy, class T>
using staged_items =
    detail::staged_tile<T, Policy::block_threads, Policy::items_per_thread, Policy::streaming>;

/// Loads a tile of T: full and aligned asynchronously (issue only), else element by element (the block
/// synchronised on return).
template <class Policy, class T>
__device__ void stage_tile(typename staged_items<Policy, T>::temp_storage& ts, const T* tile_in, int valid,
                           bool vec) {
  using tile_t = staged_items<Policy, T>;
  if (vec && valid == tile_t::tile_items)
    tile_t::issue_full(ts, tile_in);
  else
    tile_t::load_items(ts, tile_in, valid);
}

/// Calls f(j, item) for the thread's items j = 0 .. ITEMS-1 of a staged tile, read a 16-byte chunk at a
/// time (its own chunks: conflict-free, one shared-memory load per chunk).
template <class Policy, class T, class F>
__device__ void for_own_items(typename staged_items<Policy, T>::temp_storage& ts, F&& f) {
  using tile_t = staged_items<Policy, T>;
  CARRY_UNROLL
  for (int v = 0; v < tile_t::vcount; ++v) {
    const uint4 chunk = tile_t::own(ts, v);
    T x[tile_t::chunk_items];
    memcpy(x, &chunk, sizeof(x));
    CARRY_UNROLL
    for (int k = 0; k < tile_t::chunk_items; ++k) f(v * tile_t::chunk_items + k, x[k]);
  }
}

/// Whether flags of FlagIt load as 16-byte chunks (staged, or flag_bits' vector path): a pointer whose
/// flags pack into chunks.
template <class Policy, class FlagIt>
constexpr bool vector_flags() {
  return std::is_pointer<FlagIt>::value && detail::stageable<value_of<FlagIt>, Policy::items_per_thread>();
}
/// Whether flags stage in shared memory beside the items: chunked flags with both tiles within 40 KB of
/// static shared memory (1-byte flags beside 32 KB of items). Other flags (wider ones, iterators) go
/// straight into a bit per item (flag_bits).
template <class Policy, class T, class FlagIt>
constexpr bool staged_flags() {
  return vector_flags<Policy, FlagIt>() &&
         (sizeof(T) + sizeof(value_of<FlagIt>)) * Policy::tile_items <= 40 * 1024;
}

/// f(std::true_type{}) for a whole tile (valid == Policy::tile_items: no item need be checked against
/// valid), else f(std::false_type{}): each of the block-striped loops below in both forms.
template <class Policy, class F>
__device__ __forceinline__ decltype(auto) by_tile_fullness(int valid, F&& f) {
  if (valid == Policy::tile_items) return f(std::true_type{});
  return f(std::false_type{});
}

/// Bits of the first `valid` items of a tile: bit i (word i / 32) = picked(i), evaluated block-striped
/// (item i by thread i % threads: 32 consecutive items a warp a step, one ballot a word, which every lane
/// stores: the same word to the same slot, one store without a branch), in batches so that the loads
/// behind picked() are in flight together. Full tiles skip the bound check. The caller synchronises
/// before reading.
template <class Policy, class Picked>
__device__ void ballot_bits(std::uint32_t* bits, int valid, Picked picked) {
  by_tile_fullness<Policy>(valid, [&](auto full) {
    constexpr int items = Policy::items_per_thread, threads = Policy::block_threads;
    constexpr int batch = detail::load_batch(items);
    const int warp = threadIdx.x / 32;
    CARRY_UNROLL
    for (int s = 0; s < items; s += batch) {
      bool f[batch];
      CARRY_UNROLL
      for (int k = 0; k < batch; ++k) {
        const int i = (s + k) * threads + static_cast<int>(threadIdx.x);
        f[k] = (decltype(full)::value || i < valid) && picked(i);
      }
      CARRY_UNROLL
      for (int k = 0; k < batch; ++k)
        bits[(s + k) * (threads / 32) + warp] = __ballot_sync(0xffffffffu, f[k]);
    }
  });
}

/// How many of the thread's block-striped items of a tile (i = s * threads + thread, i < valid) are
/// picked: a tile's count where nothing else is needed (the count kernel of an index tile).
template <class Policy, class Picked>
__device__ int count_picked(int valid, Picked picked) {
  return by_tile_fullness<Policy>(valid, [&](auto full) {
    constexpr int items = Policy::items_per_thread, threads = Policy::block_threads;
    int c = 0;
    CARRY_UNROLL
    for (int s = 0; s < items; ++s) {
      const int i = s * threads + static_cast<int>(threadIdx.x);
      c += (decltype(full)::value || i < valid) && picked(i) ? 1 : 0;
    }
    return c;
  });
}

/// A tile's selection as bits in shared memory: bit i of the tile (word i / 32) set when flag i is
/// non-zero (and i < valid). Full tiles of aligned pointers (`vec`): each warp loads its own run's flags
/// as 16-byte chunks, warp-striped (coalesced), the lanes sharing a word OR their bits together by
/// shuffles, and one writes it. Else element by element, block-striped: 32 consecutive flags per warp a
/// step, one ballot a word. IN_FLIGHT: chunks a lane loads at once (registers: 4 each). The caller
/// synchronises the block before reading.
template <class Policy, int IN_FLIGHT = 4, class FlagIt>
__device__ void flag_bits(std::uint32_t* bits, FlagIt flags, int valid, bool vec) {
  using F = value_of<FlagIt>;
  if constexpr (vector_flags<Policy, FlagIt>()) {
    if (vec && valid == Policy::tile_items) {
      constexpr unsigned full = 0xffffffffu;
      constexpr int items = Policy::items_per_thread;
      const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
      constexpr int per_chunk = 16 / static_cast<int>(sizeof(F));      // flags a chunk
      constexpr int chunks = items * static_cast<int>(sizeof(F)) / 16; // chunks a lane
      constexpr int sharing = per_chunk >= 32 ? 1 : 32 / per_chunk;    // lanes a word
      constexpr int group = chunks < IN_FLIGHT ? chunks : IN_FLIGHT;   // chunks in flight
      const uint4* src = reinterpret_cast<const uint4*>(flags) + warp * 32 * chunks;
      uint4 c[chunks];
      CARRY_UNROLL
      for (int v = 0; v < chunks; ++v) {
        if (v % group == 0) CARRY_UNROLL
        for (int u = v; u < v + group && u < chunks; ++u)
          c[u] = Policy::streaming ? __ldcs(src + u * 32 + lane) : src[u * 32 + lane];
        F x[per_chunk];
        memcpy(x, &c[v], sizeof(x));
        const int first = (v * 32 + lane) * per_chunk; // in the warp's run
        unsigned b = 0;
        CARRY_UNROLL
        for (int k = 0; k < per_chunk; ++k) b |= x[k] != F(0) ? 1u << k : 0u;
        b <<= first % 32;
        CARRY_UNROLL
        for (int d = 1; d < sharing; d *= 2) b |= __shfl_xor_sync(full, b, d);
        if (lane % sharing == 0) bits[warp * items + first / 32] = b;
      }
      return;
    }
  }
  ballot_bits<Policy>(bits, valid, [&](int i) { return flags[i] != F(0); });
}

/// The calling thread's ITEMS bits of a tile's bit string (bit j: its item j).
template <int ITEMS>
__device__ unsigned own_bits(const std::uint32_t* bits, int words) {
  const int bit = static_cast<int>(threadIdx.x) * ITEMS, w = bit / 32, s = bit % 32;
  const unsigned low = ITEMS == 32 ? ~0u : (1u << ITEMS) - 1;
  if constexpr (32 % ITEMS == 0) {
    return (bits[w] >> s) & low;
  } else {
    const std::uint64_t two = bits[w] | (w + 1 < words ? std::uint64_t{bits[w + 1]} << 32 : 0);
    return static_cast<unsigned>(two >> s) & low;
  }
}

template <class Policy, class T, class FlagIt>
struct staged_selection<Policy, T, by_flags<FlagIt>> {
  using F = value_of<FlagIt>;
  static constexpr bool stage_flags = staged_flags<Policy, T, FlagIt>();
  static constexpr int words = selection_words<Policy>();
  using items_t = staged_items<Policy, T>;
  struct flag_tile {
    typename staged_items<Policy, std::conditional_t<stage_flags, F, T>>::temp_storage tile;
  };
  struct flag_words {
    std::uint32_t bits[words];
  };
  struct temp_storage {
    typename items_t::temp_storage items;
    std::conditional_t<stage_flags, flag_tile, flag_words> flags;
  };
  __device__ static void load(temp_storage& ts, const by_flags<FlagIt>& sel, const T* in, std::int64_t base,
                              int valid, bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    if constexpr (stage_flags)
      stage_tile<Policy, F>(ts.flags.tile, sel.flags + base, valid, sel.vec);
    else
      flag_bits<Policy>(ts.flags.bits, sel.flags + base, valid, sel.vec);
    items_t::wait_issued();
    __syncthreads(); // every run readable by every thread
  }
  __device__ static unsigned mask(temp_storage& ts, const by_flags<FlagIt>&, const T*, std::int64_t,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    unsigned m = 0;
    if constexpr (stage_flags)
      for_own_items<Policy, F>(ts.flags.tile, [&](int j, const F& f) { m |= f != F(0) ? 1u << j : 0u; });
    else
      m = own_bits<Policy::items_per_thread>(ts.flags.bits, words);
    return m & detail::live_mask<Policy::items_per_thread>(valid - first);
  }
  __device__ static void prefetch(const by_flags<FlagIt>& sel, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
    if constexpr (std::is_pointer<FlagIt>::value)
      if (sel.vec) items_t::prefetch_l2(sel.flags + base);
  }
};

/// Copies a tile's stored selection words (by_bits; the tile at `base`: words base / 32 on) to `b`,
/// block-striped, once the grid that wrote them is complete. The caller synchronises before reading.
template <class Policy>
__device__ void copy_tile_words(std::uint32_t* b, const by_bits& sel, std::int64_t base) {
  constexpr int words = selection_words<Policy>();
  lookback::wait_for_previous_grid();
  const std::uint32_t* src = sel.words + base / 32;
  for (int w = static_cast<int>(threadIdx.x); w < words; w += Policy::block_threads) b[w] = src[w];
}

/// Stored bits beside staged items: the items staged, the tile's words copied.
template <class Policy, class T>
struct staged_selection<Policy, T, by_bits> {
  static constexpr int words = selection_words<Policy>();
  using items_t = staged_items<Policy, T>;
  struct temp_storage {
    typename items_t::temp_storage items;
    std::uint32_t bits[words];
  };
  __device__ static void load(temp_storage& ts, const by_bits& sel, const T* in, std::int64_t base, int valid,
                              bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    copy_tile_words<Policy>(ts.bits, sel, base);
    items_t::wait_issued();
    __syncthreads(); // every run and word readable by every thread
  }
  __device__ static unsigned mask(temp_storage& ts, const by_bits&, const T*, std::int64_t, int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    return own_bits<Policy::items_per_thread>(ts.bits, words) &
           detail::live_mask<Policy::items_per_thread>(valid - first);
  }
  __device__ static void prefetch(const by_bits&, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
  }
};

/// Selections that look at the items alone (predicate, unique): the staged items and their loads.
template <class Policy, class T>
struct staged_items_only {
  using items_t = staged_items<Policy, T>;
  struct temp_storage {
    typename items_t::temp_storage items;
  };
  template <class Sel>
  __device__ static void load(temp_storage& ts, const Sel&, const T* in, std::int64_t base, int valid,
                              bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    items_t::wait_issued();
    __syncthreads(); // every run readable by every thread
  }
  template <class Sel>
  __device__ static void prefetch(const Sel&, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
  }
};

template <class Policy, class T, class Pred>
struct staged_selection<Policy, T, by_predicate<Pred>> : staged_items_only<Policy, T> {
  using typename staged_items_only<Policy, T>::temp_storage;
  __device__ static unsigned mask(temp_storage& ts, const by_predicate<Pred>& sel, const T*, std::int64_t,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    unsigned m = 0;
    for_own_items<Policy, T>(ts.items,
                             [&](int j, const T& x) { m |= static_cast<bool>(sel.pred(x)) ? 1u << j : 0u; });
    return m & detail::live_mask<Policy::items_per_thread>(valid - first);
  }
};

template <class Policy, class T, class Eq>
struct staged_selection<Policy, T, by_unique<Eq>> : staged_items_only<Policy, T> {
  using items_t = staged_items<Policy, T>;
  using typename staged_items_only<Policy, T>::temp_storage;
  /// The item before the tile comes from the input (in place: unchanged, or rewritten with its own value).
  __device__ static unsigned mask(temp_storage& ts, const by_unique<Eq>& sel, const T* in, std::int64_t base,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    const unsigned live = detail::live_mask<Policy::items_per_thread>(valid - first);
    if (live == 0) return 0;
    T prev = first > 0 ? *items_t::item(ts.items, first - 1) : base > 0 ? in[base - 1] : T{};
    unsigned m = 0;
    for_own_items<Policy, T>(ts.items, [&](int j, const T& x) {
      m |= !static_cast<bool>(sel.eq(prev, x)) ? 1u << j : 0u;
      prev = x;
    });
    if (first == 0 && base == 0) m |= 1u; // the input's first item heads its run
    return m & live;
  }
};

/// Counts of one round: picks before this lane's chunk, in the round, and this lane's own picks (bit k:
/// item k of its chunk), from the masks of the round's owner lanes (a broadcast shuffle each). A partition
/// counts its rejected items so: placed from the owner lanes' scanned counts instead (one warp scan of both
/// counts, as the picks are), it was 1-2 % slower (H100, two binaries in one call, two rounds: stable
/// partition_50 at 2^28 1090 -> 1101 us, u8 flags 868 -> 886, reversed u32 flags 1141 -> 1146).
struct round_counts {
  int before = 0, total = 0;
  unsigned mine = 0;
};
template <int CI, int OWNERS>
__device__ round_counts count_round(unsigned bits, int r, int my_owner, int shift) {
  round_counts c;
  unsigned owner_mask = 0;
  CARRY_UNROLL
  for (int q = 0; q < OWNERS; ++q) {
    const unsigned m = __shfl_sync(0xffffffffu, bits, r * OWNERS + q);
    const int n = __popc(m);
    c.before += q < my_owner ? n : 0;
    owner_mask = q == my_owner ? m : owner_mask;
    c.total += n;
  }
  c.mine = (owner_mask >> shift) & ((1u << CI) - 1);
  c.before += __popc(owner_mask & ((1u << shift) - 1));
  return c;
}

/// out[i] = scratch[i] for i < count, the calling warp's lanes at consecutive i, four loads ahead of their
/// stores. Every lane calls it, after the warp's writes to scratch.
template <class T, class OutIt>
__device__ void copy_out_warp(const T* scratch, int count, OutIt out) {
  int i = static_cast<int>(threadIdx.x % 32);
  for (; i + 96 < count; i += 128) {
    const T a = scratch[i], b = scratch[i + 32], c = scratch[i + 64], d = scratch[i + 96];
    out[i] = a;
    out[i + 32] = b;
    out[i + 64] = c;
    out[i + 96] = d;
  }
  for (; i < count; i += 32) out[i] = scratch[i];
}

/// Writes a warp's picks in input order (bits: the lanes' blocked masks, bit j = item j picked) to
/// out[0], out[1], ... and, in a partition, its rejected items (`rejected`, same form) to rejected_out[0],
/// ... (a rejected_output: upward or downward): round by round, each lane takes one 16-byte chunk of 32
/// consecutive chunks of the warp's run into registers. The picks are compacted in place through the
/// warp's whole region (round r's land behind the earlier rounds', below the end of round r's chunks,
/// which are read: nothing unread is overwritten) and copied out once; a partition's rejected items of
/// a round land at the end of that round's chunks (past its picks: the round holds both) and are copied
/// out before the next round. Rounds without any are skipped.
template <class Policy, bool PARTITION, class T, class OutIt, class RejOut>
__device__ void write_runs(typename staged_items<Policy, T>::temp_storage& ts, unsigned bits,
                           unsigned rejected, OutIt out, RejOut rejected_out) {
  using tile_t = staged_items<Policy, T>;
  constexpr unsigned full = 0xffffffffu;
  constexpr int ci = tile_t::chunk_items, vcount = tile_t::vcount, owners = 32 / vcount;
  static_assert(32 % vcount == 0, "carry: a round is whole lanes' chunks");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int my_owner = lane / vcount, shift = (lane % vcount) * ci;
  const unsigned lanes_with = __ballot_sync(full, bits != 0 || (PARTITION && rejected != 0));
  unsigned rounds = 0;
  CARRY_UNROLL
  for (int r = 0; r < vcount; ++r)
    rounds |= ((lanes_with >> (r * owners)) & (owners == 32 ? full : (1u << owners) - 1)) != 0 ? 1u << r : 0u;
  // round r's picks land behind the earlier rounds' picks, below the end of round r's chunks (which are
  // read by then), and a partition's rejected items of round r at the end of round r's chunks, past them.
  // A chunk's first pick goes to its owner lane's picks before it (one warp scan) plus the owner's picks
  // below the chunk.
  const int own = __popc(bits);
  const int through = detail::warp_kogge_stone_inclusive(own, sum{}, lane, full);
  const int owned_before = through - own;
  T* scratch = reinterpret_cast<T*>(ts.chunks + warp * tile_t::warp_chunks);
  constexpr int round_items = 32 * ci;
  while (rounds != 0) {
    const int r = __ffs(rounds) - 1;
    rounds &= rounds - 1;
    const int owner = r * owners + my_owner;
    const unsigned owner_bits = __shfl_sync(full, bits, owner);
    const int at = __shfl_sync(full, owned_before, owner) + __popc(owner_bits & ((1u << shift) - 1));
    const unsigned mine = (owner_bits >> shift) & ((1u << ci) - 1);
    const round_counts j = PARTITION ? count_round<ci, owners>(rejected, r, my_owner, shift) : round_counts{};
    const uint4* region = ts.chunks + warp * tile_t::warp_chunks + r * 32; // the swizzle stays inside it
    const uint4 chunk = region[tile_t::swizzle(r * 32 + lane) - r * 32];
    T x[ci];
    memcpy(x, &chunk, sizeof(x));
    __syncwarp(); // the round's chunks are read before anything lands on them
    if constexpr (PARTITION) {
      // ---- the round's picks, and its rejected items at the end of its chunks, then those out ----
      T* rejects = scratch + (r + 1) * round_items - j.total;
      CARRY_UNROLL
      for (int k = 0; k < ci; ++k) {
        const unsigned below = (1u << k) - 1;
        if ((mine >> k) & 1u) scratch[at + __popc(mine & below)] = x[k];
        if ((j.mine >> k) & 1u) rejects[j.before + __popc(j.mine & below)] = x[k];
      }
      __syncwarp();
      for (int i = lane; i < j.total; i += 32) rejected_out[i] = rejects[i];
      rejected_out += j.total;
    } else {
      CARRY_UNROLL
      for (int k = 0; k < ci; ++k)
        if ((mine >> k) & 1u) scratch[at + __popc(mine & ((1u << k) - 1))] = x[k];
    }
  }
  __syncwarp();
  copy_out_warp(scratch, __shfl_sync(full, through, 31), out);
}

/// The staged tile, for items that pack into 16-byte chunks: the tile interface the compaction agent
/// uses (load: the thread's selection mask; prefetch; write), with nothing held in registers.
template <class Policy, class T, class Sel>
struct staged_tile : item_tile_steps<staged_tile<Policy, T, Sel>, Sel> {
  using selection = staged_selection<Policy, T, Sel>;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int min_blocks = Policy::min_blocks;
  static_assert(items <= 32, "carry: a thread's selection is a 32-bit mask");
  using temp_storage = typename selection::temp_storage;

  __device__ unsigned load(temp_storage& ts, const Sel& sel, const T* in, std::int64_t base, int valid,
                           bool vec_in) {
    selection::load(ts, sel, in, base, valid, vec_in);
    return selection::mask(ts, sel, in, base, valid);
  }
  __device__ static void prefetch(const Sel& sel, const T* in, std::int64_t base) {
    selection::prefetch(sel, in, base);
  }
  /// The tile's selected items at `before` (+ their rank), then (partition) its rejected ones at rej[rank
  /// among the tile's rejected]. thread_offset: the block scan of the per-thread counts; lane 0's is the
  /// warp's offset among the tile's selected items.
  template <bool PARTITION, class InIt, class OutIt, class RejOut>
  __device__ void write(temp_storage& ts, InIt, unsigned mask, int thread_offset, int, int valid,
                        std::int64_t, std::uint64_t before, const RejOut& rej, OutIt out) const {
    const int warp_offset = __shfl_sync(0xffffffffu, thread_offset, 0);
    const OutIt selected_out = out + static_cast<std::int64_t>(before + warp_offset);
    if constexpr (PARTITION) {
      const int first = threadIdx.x * items;
      const int warp_first = (threadIdx.x / 32) * 32 * items;
      const int rejected_before = (warp_first < valid ? warp_first : valid) - warp_offset;
      write_runs<Policy, true, T>(ts.items, mask, ~mask & detail::live_mask<items>(valid - first),
                                  selected_out, rej + rejected_before);
    } else {
      write_runs<Policy, false, T>(ts.items, mask, 0u, selected_out, selected_out);
    }
  }
};

} // namespace compact_detail
} // namespace carry
