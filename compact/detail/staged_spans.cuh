// The run-length calls' staged single pass (run_length_encode, non_trivial_runs over pointer keys of 4
// bytes or more): the tile's keys in shared memory (the engine's cp.async tile), each thread's run starts
// and ends as bit masks, its (marks, latest run start) through the engine's block scan and look-back, then
// each warp writes its outputs compacted through its own region of the tile.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../scan/agent/single_pass_agent.cuh"
#include "../../scan/block_scan.cuh"
#include "../../scan/detail/by_key.hpp"
#include "../../scan/lookback/ticket.cuh"
#include "agents.cuh"
#include "runs.hpp"
#include "staged_compact.cuh"

namespace carry {
namespace compact_detail {

/// Whether the run-length calls over KeyIt with run index I take the staged pass of Policy's tile:
/// pointer keys that stage, at least as wide as I (a warp's computed outputs fit its region of the
/// tile), and a 32-bit index.
template <class Policy, class KeyIt, class I>
constexpr bool staged_spans() {
  using K = detail::iter_value<KeyIt>;
  return std::is_pointer<KeyIt>::value && std::is_same<I, std::uint32_t>::value && sizeof(K) >= sizeof(I) &&
         detail::stageable<K, Policy::items_per_thread>();
}

/// Writes a warp's computed outputs in input order: each thread's items with a bit in `bits` (blocked)
/// give value(j), written to out[0], out[1], ... through the warp's region of the staged tile (free: the
/// caller's block has passed a barrier since the keys were last read), then copied out coalesced.
template <class Policy, class K, class V, class OutIt, class Value>
__device__ void write_values(typename staged_items<Policy, K>::temp_storage& ts, unsigned bits, OutIt out,
                             Value value) {
  using tile_t = staged_items<Policy, K>;
  static_assert(sizeof(V) <= sizeof(K), "carry: a warp's values fit its region of the tile");
  constexpr unsigned full = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const int own = __popc(bits);
  const int through = detail::warp_kogge_stone_inclusive(own, sum{}, lane, full);
  const int total = __shfl_sync(full, through, 31);
  if (total == 0) return;
  V* scratch = reinterpret_cast<V*>(ts.chunks + warp * tile_t::warp_chunks);
  __syncwarp(); // an earlier use of the region (its copies out) is done
  int at = through - own;
  for (unsigned m = bits; m != 0; m &= m - 1) scratch[at++] = value(__ffs(static_cast<int>(m)) - 1);
  __syncwarp();
  copy_out_warp(scratch, total, out);
}

/// The staged agent of the run-length calls (B: span_behaviour), the keyed agent's shape (dispatch_keyed):
/// a tile's keys staged in shared memory, nothing of them in registers, so a tile of 8192 u32 keys and 6
/// blocks an SM keep 192 KB in flight (the keyed agent's register tiles: 4096 keys, 96 KB).
template <class Policy, bool CANONICAL, class B>
struct staged_span_agent {
  using K = typename B::key_type;
  using A = typename B::aggregate;
  using I = decltype(A::count);
  using Op = typename B::op_type;
  static constexpr bool non_trivial = B::uses_prev_head; // non_trivial_runs: marks need the item before
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = Policy::min_blocks;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int tile_items = block_threads * items;
  using items_t = staged_items<Policy, K>;
  using scan_t =
      block_scan<A, block_threads, block_scan_algorithm::coarsened, 1, detail::warp_scan_of<Policy>::value>;
  static_assert(items <= 32, "carry: a thread's runs are 32-bit masks");
  struct temp_storage {
    typename items_t::temp_storage items;
    typename scan_t::temp_storage scan;
    std::uint32_t tile_index;
  };

  template <class Source>
  __device__ static void consume(temp_storage& ts, const Source& in, const B& b, const tile_plan& plan, Op op,
                                 A init, const detail::scan_state<A>& state, bool, bool) {
    const K* keys = in.keys;
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out ----
    if (prefetch_guess<Policy, Policy::prefetch_ahead>(plan, in.vec_keys))
      items_t::prefetch_l2(keys + plan.tile_base(blockIdx.x));
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = lookback::block_ticket(ts.tile_index, state.counter);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    const std::int64_t base = plan.tile_base(tile);
    if (const std::int64_t a = prefetch_ahead_tile<Policy::prefetch_ahead>(plan, tile, in.vec_keys); a >= 0)
      items_t::prefetch_l2(keys + plan.tile_base(a));

    // ---- the tile's keys to shared memory ----
    stage_tile<Policy, K>(ts.items, keys + base, valid, in.vec_keys);
    items_t::wait_issued();
    __syncthreads(); // every run readable by every thread

    // ---- the thread's run starts (heads) and ends, one key comparison an item; its marks (run starts,
    // or second items of runs); keys outside the tile from the input ----
    const int first = static_cast<int>(threadIdx.x) * items;
    const std::int64_t at = base + first; // the thread's first item in the input
    const unsigned live = detail::live_mask<items>(valid - first);
    auto key = [&](int i) -> K { return i >= 0 && i < valid ? *items_t::item(ts.items, i) : keys[base + i]; };
    unsigned heads = 0, ends = 0;
    bool prev_head = false; // the item before the thread's first starts a run
    if (live != 0) {
      K prev = at > 0 ? key(first - 1) : K{};
      unsigned differs = 0; // bit j: item j differs from the one before it (dead items: any bits)
      for_own_items<Policy, K>(ts.items, [&](int j, const K& x) {
        differs |= static_cast<bool>(b.eq(prev, x)) ? 0u : 1u << j;
        prev = x;
      });
      if (at == 0) differs |= 1u;
      heads = differs & live;
      const int top = 31 - __clz(static_cast<int>(live)); // the thread's last item
      const bool tail =
          at + top + 1 >= in.n || !static_cast<bool>(b.eq(key(first + top), key(first + top + 1)));
      ends = ((differs >> 1) | (tail ? 1u << top : 0u)) & live;
      if constexpr (non_trivial)
        prev_head = at == 1 || (at >= 2 && !static_cast<bool>(b.eq(key(first - 2), key(first - 1))));
    }
    const unsigned marks = non_trivial ? ~heads & ((heads << 1) | (prev_head ? 1u : 0u)) & live : heads;

    // ---- (marks, latest start) through the block scan; warp 0 publishes and looks back ----
    A totals[1] = {static_cast<I>(__popc(marks)),
                   heads != 0 ? static_cast<I>(at + 31 - __clz(static_cast<int>(heads))) : I{0}};
    A aggregate;
    auto get_prefix =
        detail::scan_tile_prefix<Policy::lookback_delay_ns, false, CANONICAL>(state, tile, last, op, init);
    const tile_prefix<A> carry =
        scan_t(ts.scan).thread_carry_with_callback(totals, op, get_prefix, aggregate);
    const I count = carry.valid ? carry.value.count : I{0}; // marks before the thread
    const I start = carry.valid ? carry.value.start : I{0}; // the latest run start before it

    // ---- the outputs, each warp through its region of the tile (the block scan's barrier: every key
    // comparison is done). A run's index: the marks up to it, less one. A thread's closing items (a run's
    // last; non_trivial_runs: of a run of two or more) take consecutive indices from its marks so far,
    // less one where a run it closes was marked before it ----
    const unsigned closing = non_trivial ? ends & ~heads : ends;
    const bool open = at > 0 && (heads & 1u) == 0 && (!non_trivial || !prev_head);
    const I close_at = static_cast<I>(count - (open ? 1u : 0u));
    auto run_start = [&](int j) { // the start of item j's run
      const unsigned h = heads & detail::upto_bit(1u << j);
      return h != 0 ? static_cast<I>(at + 31 - __clz(static_cast<int>(h))) : start;
    };
    auto length = [&](int j) { return static_cast<I>(at + j + 1 - run_start(j)); };
    const std::int64_t warp_close = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, close_at, 0));
    if constexpr (non_trivial) {
      write_values<Policy, K, I>(ts.items, closing, b.out0() + warp_close, run_start);
      write_values<Policy, K, I>(ts.items, closing, b.out1() + warp_close, length);
    } else {
      const std::int64_t warp_count = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, count, 0));
      write_runs<Policy, false, K>(ts.items, heads, 0u, b.out0() + warp_count, b.out0() + warp_count);
      write_values<Policy, K, I>(ts.items, closing, b.out1() + warp_close, length);
    }
    if (live != 0 && at + (31 - __clz(static_cast<int>(live))) == in.n - 1)
      *b.num_runs = static_cast<I>(count + static_cast<I>(__popc(marks)));
  }
};

} // namespace compact_detail
} // namespace carry
