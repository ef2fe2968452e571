// allocate_slots' single pass: requests widened to the offset type, the engine's block scan with its
// decoupled look-back (ticket, status words, tile prefix), offsets written, the total and (bounded) the
// number that fit written by the one thread that knows them; and the unbounded form on the engine's staged
// agent, widening as it stages.
#pragma once

#include <cstdint>

#include "../../scan/block_scan.cuh"
#include "../../scan/agent/single_pass_agent.cuh"
#include "../../scan/agent/staged_agent.cuh"
#include "../../scan/tile/tile_io.cuh"
#include "../../scan/lookback/ticket.cuh"
#include "../../scan/operators.hpp"
#include "slot_math.hpp"

namespace carry {
namespace apps_detail {

template <class O>
using slots_state = detail::scan_state<O>;

/// How a slots launch runs: by ticket after the prepare step (else one tile, block 0).
struct slots_flags {
  bool ticketed = false;
  bool vec_in = false, vec_out = false;
};

template <int THREADS, int ITEMS, bool BOUNDED, class R, class O, class NumT, class ReqIt = const R*>
__global__ void __launch_bounds__(THREADS)
    slots_kernel(ReqIt requests, O* offsets, O* total, O capacity, NumT* num_fitted, detail::tile_plan plan,
                 slots_state<O> state, slots_flags how) {
  using in_io = detail::tile_io<R, THREADS, ITEMS, true, true>;
  using out_io = detail::tile_io<O, THREADS, ITEMS, true, true>;
  using scan_t = block_scan<O, THREADS, block_scan_algorithm::coarsened, ITEMS>;
  constexpr int tile_items = THREADS * ITEMS;
  __shared__ union {
    typename in_io::temp_storage in;
    typename out_io::temp_storage out;
  } io;
  __shared__ typename scan_t::temp_storage scan;
  __shared__ std::uint32_t ticket;
  // ---- take a ticket (one tile: block 0) ----
  const std::int64_t tile = how.ticketed ? lookback::block_ticket(ticket, state.counter) : 0;
  const std::int64_t base = plan.tile_base(tile);
  const int valid = plan.valid_items(tile);
  const bool last = tile == plan.num_tiles - 1;
  // ---- load the requests, widen them ----
  R r[ITEMS];
  in_io::load(io.in, requests + base, valid, how.vec_in, r, tile_items, R{0});
  const int first = static_cast<int>(threadIdx.x) * ITEMS;
  O x[ITEMS];
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j) x[j] = first + j < valid ? static_cast<O>(r[j]) : O{0};
  // ---- exclusive sum; warp 0 meanwhile publishes and looks back (the engine's tile prefix) ----
  O aggregate;
  if (how.ticketed) {
    auto get_prefix = detail::scan_tile_prefix<0, true, false>(state, tile, last, sum{}, O{0});
    scan_t(scan).template scan_with_callback<true>(x, sum{}, get_prefix, aggregate);
  } else {
    scan_t(scan).exclusive_scan(x, O{0}, sum{}, aggregate);
  }
  // ---- the total, and (bounded) the number that fit: item i is the first that does not fit when its
  // offset is within the capacity but its end is past it; when the last item fits, all n do ----
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j) {
    if (first + j >= valid) break;
    const std::int64_t i = base + first + j;
    const O end = x[j] + static_cast<O>(r[j]);
    if (last && first + j == valid - 1) *total = end;
    if constexpr (BOUNDED) {
      const bool fits = slots_fit<O, R>(x[j], r[j], capacity);
      if (!fits && x[j] <= capacity) *num_fitted = static_cast<NumT>(i);
      if (fits && last && first + j == valid - 1) *num_fitted = static_cast<NumT>(plan.num_items);
      x[j] = fits ? x[j] : slot_sentinel<O>();
    }
  }
  __syncthreads(); // the load's staging area is free for the store's
  out_io::store(io.out, offsets + base, valid, how.vec_out, x, tile_items);
}

/// allocate_slots on more than one register tile: the engine's staged single pass (its tuned policy for
/// the offset type), each request widened to the offset type as the tile is staged; the total written by
/// the thread that holds the last request.
template <class Policy, class R, class O>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks)
    slots_staged_kernel(const R* requests, O* offsets, O* total, detail::tile_plan plan, slots_state<O> state,
                        bool vec_in, bool vec_out) {
  using agent = detail::staged_agent<Policy, true, false, O, sum>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, requests, offsets, plan, sum{}, O{0}, state, vec_in, vec_out, total);
}

} // namespace apps_detail
} // namespace carry
