// Small-input agent: warp-striped tiles, one barrier a tile; a cluster of up to 16 tiles exchanges its
// aggregates in distributed shared memory, more tiles take the ticketed look-back.
#pragma once

#include "../lookback/cluster.cuh"
#include "pass_choice.hpp"
#include "../agent/single_pass_agent.cuh"
#include "../tile/warp_striped.cuh"

namespace carry {
namespace detail {

template <class Policy, bool EXCLUSIVE, small_mode MODE, class T, class Op>
struct small_agent {
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = 1;
  static constexpr int warps = Policy::block_threads / warp_threads;
  static constexpr bool ticketed = MODE == small_mode::look_back || MODE == small_mode::look_back_canonical;
  using seg_t = warp_segment<T, Policy::chunks, Policy::streaming>;
  using format = lookback::default_format<T>;
  struct temp_storage {
    T aggregates[warps];   // each warp's segment aggregate
    T inbox[16];           // cluster mode: predecessors' aggregates as the canonical fold takes them
    tile_prefix<T> prefix; // the tile's carry-in (cluster, look-back)
    std::uint32_t tile;
  };

  __device__ static void consume(temp_storage& ts, const T* in, T* out, const tile_plan& plan, Op op, T init,
                                 const scan_state<T>& state, bool vec_in, bool vec_out) {
    const int warp = static_cast<int>(threadIdx.x / warp_threads);
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    std::int64_t tile = blockIdx.x;
    if constexpr (ticketed) // ---- ticket: tiles go out in the order blocks start ----
      tile = lookback::block_ticket(ts.tile, state.counter);
    if constexpr (MODE == small_mode::cluster)
      lookback::cluster_started(); // no block is written to before it runs
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const int seg_valid = valid - warp * seg_t::items;

    // ---- phase 1: load the warp's segment ----
    seg_t seg;
    seg.load(in + base + warp * seg_t::items, seg_valid, vec_in, seg_valid < seg_t::items ? in[base] : T{});
    // ---- phase 2: scan across lanes; warp aggregates meet in shared memory ----
    const T aggregate = seg.reduce(op);
    if (lane == 0) ts.aggregates[warp] = aggregate;
    __syncthreads();

    // ---- phase 3: the tile's carry-in ----
    tile_prefix<T> carry{init, EXCLUSIVE};
    if constexpr (MODE == small_mode::cluster) {
      // The grid is one cluster and tile = rank. Each block pushes its aggregate into the inbox of every
      // later block (lookback::cluster_push: once all have started; visible on return); each block folds
      // its own inbox by the canonical formula (a partial group: fewer than 32 tiles), so deterministic
      // results agree bit for bit with the canonical look-back.
      using prefix_op = lookback::tile_prefix_op<0, true, format, Op>;
      const int tiles = static_cast<int>(plan.num_tiles);
      T mine{};
      if (warp == 0)
        mine = prefix_op::published(fold_in_order(ts.aggregates, warps, op), tile, op, init, EXCLUSIVE);
      lookback::cluster_push(ts.inbox, mine, static_cast<int>(tile), static_cast<int>(tile) + 1, tiles);
      if (warp == 0 && tile > 0) {
        const T v = lane < tile ? ts.inbox[lane] : T{};
        const T p = lookback::fold_partial_group(v, static_cast<int>(tile), op);
        if (lane == 0) ts.prefix = {p, true};
      }
      __syncthreads();
      if (tile > 0) carry = ts.prefix;
    }
    if constexpr (ticketed) {
      if (warp == 0) {
        const T total = fold_in_order(ts.aggregates, warps, op);
        auto get_prefix =
            scan_tile_prefix<Policy::lookback_delay_ns, EXCLUSIVE, MODE == small_mode::look_back_canonical>(
                state, tile, tile == plan.num_tiles - 1, op, init);
        const tile_prefix<T> p = get_prefix(total);
        if (lane == 0) ts.prefix = p;
      }
      __syncthreads();
      carry = ts.prefix;
    }
    // ---- phase 4: the warp's carry-in (the tile's, then the warps before it); scan; store ----
    for (int w = 0; w < warp; ++w) carry = extend(carry, ts.aggregates[w], op);
    seg.template apply<EXCLUSIVE>(op, carry);
    if (seg_valid > 0) seg.store(out + base + warp * seg_t::items, seg_valid, vec_out);
  }
};

} // namespace detail
} // namespace carry
