// Single-pass agent, register tile: scan the tile, publish its aggregate, look back, publish its prefix.
#pragma once

#include "../lookback/state.cuh"
#include "../lookback/ticket.cuh"
#include "../lookback/tile_prefix_op.cuh"
#include "agent_common.cuh"

namespace carry {
namespace detail {

/// The look-back state of a scan over T: the engine's default status format.
template <class T>
using scan_state = lookback::single_pass_state<lookback::default_format<T>>;

/// The carry-in callback of one single-pass scan tile (the scan's seed: init of an exclusive scan).
template <int DELAY_NS, bool EXCLUSIVE, bool CANONICAL, class T, class Op>
__device__ lookback::tile_prefix_op<DELAY_NS, CANONICAL, lookback::default_format<T>, Op>
scan_tile_prefix(const scan_state<T>& state, std::int64_t tile, bool last, Op op, const T& init) {
  return {state.status, state.groups, tile, !last, op, init, EXCLUSIVE};
}

template <class Policy, bool EXCLUSIVE, bool CANONICAL, class T, class Op>
struct single_pass_agent {
  using tt = tile_types<Policy, T>;
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = 1;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::scan_t::temp_storage scan;
    std::uint32_t tile;
  };

  __device__ static void consume(temp_storage& ts, const T* in, T* out, const tile_plan& plan, Op op, T init,
                                 const scan_state<T>& state, bool vec_in, bool vec_out) {
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = lookback::block_ticket(ts.tile, state.counter);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    T items[tt::items];
    tt::io::load(ts.io, in + plan.tile_base(tile), valid, vec_in, items, tt::tile_items);
    // ---- scan; warp 0 meanwhile publishes and looks back ----
    auto get_prefix =
        scan_tile_prefix<Policy::lookback_delay_ns, EXCLUSIVE, CANONICAL>(state, tile, last, op, init);
    T aggregate;
    typename tt::scan_t(ts.scan).template scan_with_callback<EXCLUSIVE>(items, op, get_prefix, aggregate);
    tt::io::store(ts.io, out + plan.tile_base(tile), valid, vec_out, items, tt::tile_items);
  }
};

} // namespace detail
} // namespace carry
