// Single-pass agent, tile staged in shared memory: the register tile's scan, bit for bit, with the items
// waiting out the look-back in shared memory, so more blocks fit per SM.
#pragma once

#include <iterator>
#include <type_traits>

#include "single_pass_agent.cuh"
#include "../tile/staged_tile.cuh"

namespace carry {
namespace detail {

// ---- single pass, tile staged in shared memory: the same scan as single_pass_agent, bit for bit, but
// the items wait out the look-back in shared memory instead of registers, so more blocks fit per SM
// (1-byte sums: packed-byte arithmetic on full tiles). T: the accumulator. The input is any iterator of
// items convertible to T: full tiles of T pointers load by cp.async, of narrower pointers by the
// widening load (u32 requests into u64 offsets, apps/slots; u8 flags into u32 offsets), anything else
// element by element; the output any iterator T converts to (full tiles of T pointers: 16-byte chunks) ----
template <class Policy, bool EXCLUSIVE, bool CANONICAL, class T, class Op>
struct staged_agent {
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = Policy::min_blocks;
  static constexpr int items = Policy::items_per_thread;
  using tile_t = staged_tile<T, block_threads, items, Policy::streaming>;
  using scan_t = block_scan<T, block_threads, block_scan_algorithm::coarsened, 1>; // over thread totals
  template <class It>
  using value_of = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;
  /// Sums of 1-byte integers on full tiles: running sums and the carry-in four bytes per operation.
  template <class InIt>
  static constexpr bool packed = packed_byte_sum<T, Op>() && std::is_same<value_of<InIt>, T>::value;
  /// Full aligned tiles of a pointer: cp.async (same type) or the widening load (registers, then shared);
  /// the host passes vec_in only for such inputs.
  template <class InIt>
  static constexpr bool chunk_loads = std::is_pointer<InIt>::value &&
                                      (std::is_same<value_of<InIt>, T>::value ||
                                       tile_t::template widenable<value_of<InIt>>());
  struct temp_storage {
    typename tile_t::temp_storage tile;
    typename scan_t::temp_storage scan;
    std::uint32_t tile_index;
  };

  /// total (nullptr: none) gets the fold of the whole input onto init: the last tile's thread that holds
  /// the last item writes it (an exclusive sum's total, which no output item holds).
  template <class InIt, class OutIt>
  __device__ static void consume(temp_storage& ts, InIt in, OutIt out, const tile_plan& plan, Op op, T init,
                                 const scan_state<T>& state, bool vec_in, bool vec_out,
                                 T* total_out = nullptr) {
    constexpr bool packed_in = packed<InIt>;
    constexpr bool stores_chunks = std::is_same<OutIt, T*>::value;
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out
    // (NOTES.md step 32: the ticket's round trip no longer delays the tile's loads) ----
    static_assert(Policy::prefetch <= 2, "carry: a staged scan tile prefetches in mode 0, 1 or 2");
    if constexpr (Policy::prefetch != 0 && chunk_loads<InIt>)
      if (prefetch_guessed_tile(Policy::prefetch, blockIdx.x, plan.num_tiles,
                                std::int64_t{sm_ids()} * min_blocks, vec_in))
        tile_t::prefetch_l2(in + plan.tile_base(blockIdx.x));
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = lookback::block_ticket(ts.tile_index, state.counter);
    const int valid = plan.valid_items(tile);
    const bool full = valid == tile_t::tile_items;
    const bool last = tile == plan.num_tiles - 1;
    const int first = static_cast<int>(threadIdx.x) * items;
    const int live = valid - first; // the thread's items that exist (>= items on full tiles)

    // ---- load straight into shared memory ----
    // Threads past the end of a partial tile (the last tile, whose aggregate is never published) carry
    // a copy of the tile's first input item as their total, read from global memory: in shared memory
    // it would race with thread 0 rewriting its run in phase 1 (or, on full tiles, with other warps'
    // asynchronous copies). This block writes that item's output only after phase 2's barriers.
    T total{};
    bool chunked = false;
    if constexpr (chunk_loads<InIt>) {
      if (full && vec_in) {
        chunked = true;
        if constexpr (!std::is_same<value_of<InIt>, T>::value)
          tile_t::load_full_widening(ts.tile, in + plan.tile_base(tile));
        else
          tile_t::load_full(ts.tile, in + plan.tile_base(tile));
      }
    }
    if constexpr (!std::is_pointer<InIt>::value) { // an iterator: full tiles a 16-byte store a chunk
      if (full) {
        chunked = true;
        tile_t::load_full_chunks(ts.tile, in + plan.tile_base(tile));
      }
    }
    if (!chunked) {
      tile_t::load_items(ts.tile, in + plan.tile_base(tile), valid);
      if (live <= 0) total = static_cast<T>(in[plan.tile_base(tile)]);
    }

    // ---- phase 1: the thread's total, a left fold of its items (as the register tile's scan); the
    // fold's running values stay in place (exclusive: shifted one item right), so that after the
    // look-back only the carry-in remains to be applied ----
    bool packed_tile = false; // a full tile of 1-byte sums: bytes summed four at a time (mod 256)
    if constexpr (packed_in) {
      packed_tile = full;
      if (packed_tile) {
        unsigned byte_carry = 0; // running byte sums in place; carry = the running sum's low byte
        CARRY_UNROLL
        for (int v = 0; v < tile_t::vcount; ++v) {
          uint4& slot = tile_t::own(ts.tile, v);
          unsigned w[4] = {slot.x, slot.y, slot.z, slot.w};
          CARRY_UNROLL
          for (int k = 0; k < 4; ++k) {
            const unsigned inclusive = scan_bytes(w[k], byte_carry);
            w[k] = EXCLUSIVE ? (inclusive << 8) | byte_carry : inclusive;
            byte_carry = inclusive >> 24;
          }
          slot = make_uint4(w[0], w[1], w[2], w[3]);
        }
        total = static_cast<T>(byte_carry);
      }
    }
    if (!packed_tile) {
      CARRY_UNROLL
      for (int v = 0; v < tile_t::vcount; ++v) {
        T x[tile_t::chunk_items];
        uint4 c = tile_t::own(ts.tile, v);
        memcpy(x, &c, sizeof(c));
        CARRY_UNROLL
        for (int e = 0; e < tile_t::chunk_items; ++e) {
          const int j = v * tile_t::chunk_items + e;
          if (j == 0) {
            if (live > 0) total = x[0];
          } else if (full || j < live) {
            const T before = total;
            total = op(total, x[e]);
            x[e] = EXCLUSIVE ? before : total;
          }
        }
        memcpy(&c, x, sizeof(c));
        tile_t::own(ts.tile, v) = c;
      }
    }
    // ---- phase 2: Brent-Kung over the totals; warp 0 publishes and looks back ----
    T totals[1] = {total};
    T aggregate;
    auto get_prefix =
        scan_tile_prefix<Policy::lookback_delay_ns, EXCLUSIVE, CANONICAL>(state, tile, last, op, init);
    const tile_prefix<T> carry =
        scan_t(ts.scan).thread_carry_with_callback(totals, op, get_prefix, aggregate);
    const T pre = carry.value;
    const bool has_pre = carry.valid;
    if (total_out != nullptr && last && live > 0 && live <= items)
      *total_out = has_pre ? op(pre, total) : total;
    // ---- phase 3: out_j = pre (+) (x_0 .. x_j), applied as each warp drains its run (full tiles; the
    // owner's carry-in comes by shuffle) or in place before an element-wise store (other tiles) ----
    auto finish = [&](uint4 c, const T& p, bool hp, bool thread_first) {
      if constexpr (packed_in) {
        if (packed_tile) {
          const unsigned b = (hp ? static_cast<unsigned char>(p) : 0u) * 0x01010101u;
          return make_uint4(add_bytes(c.x, b), add_bytes(c.y, b), add_bytes(c.z, b), add_bytes(c.w, b));
        }
      }
      T x[tile_t::chunk_items];
      memcpy(x, &c, sizeof(c));
      const tile_prefix<T> carry{p, hp};
      CARRY_UNROLL
      for (int e = 0; e < tile_t::chunk_items; ++e) // exclusive scans always have a carry (init at least)
        x[e] = EXCLUSIVE && thread_first && e == 0 ? p : with_carry(carry, x[e], op);
      memcpy(&c, x, sizeof(c));
      return c;
    };
    bool stored = false;
    if constexpr (stores_chunks) {
      if (full && vec_out) {
        // Only a tile's first thread can lack a carry-in (thread_carry), so an owner has one unless it is
        // lane 0 and lane 0 has none: one shuffle per warp instead of one per chunk.
        stored = true;
        const bool lane0_has_pre = __shfl_sync(0xffffffffu, static_cast<int>(has_pre), 0) != 0;
        tile_t::store_full(ts.tile, out + plan.tile_base(tile), [&](const uint4& c, int owner, int v) {
          const T p = shfl_idx(0xffffffffu, pre, owner);
          return finish(c, p, owner != 0 || lane0_has_pre, v == 0);
        });
      }
    }
    if (!stored) {
      CARRY_UNROLL
      for (int v = 0; v < tile_t::vcount; ++v) {
        uint4& slot = tile_t::own(ts.tile, v);
        slot = finish(slot, pre, has_pre, v == 0);
      }
      tile_t::store_items(ts.tile, out + plan.tile_base(tile), valid);
    }
  }
};

} // namespace detail
} // namespace carry
