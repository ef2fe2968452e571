// The onesweep pass kernel: persistent or one block a tile, each tile one onesweep_tile (the agent); the
// bucket form's MSD pass in the last pass's launch.
#pragma once

#include <cstdint>

#include "onesweep_agent.cuh"

namespace carry {
namespace radix_detail {

/// Pass kernel. `Digit`: bin_of(key) in [0, 256), the pass's digit (radix_digit: a radix sort pass;
/// apps' bin_digit: bin_by_key's one pass). A block whose pass the histogram marked skipped returns at
/// once. Otherwise it takes a ticket (tiles in the order blocks start) and runs onesweep_tile; with
/// radix_tuning::persistent_onesweep (keys only) it takes tickets until the portion's tiles are gone (a
/// grid of one wave: a skipped pass costs one wave of blocks that exit, not one block a tile). With
/// whole_form (radix_tuning::whole_tiles) a whole tile runs onesweep_tile's FULL form; the input's last
/// (partial) tile, and every tile without whole_form, the other (padded or checked: padded_form). MSD (radix
/// sorts only, the launch of the call's last pass where the bucket form may run): when the histogram chose
/// the bucket form (control->bucket_top), this launch is the form's first step instead of the last pass
/// (which the histogram then marked skipped), as the one pass of the call: its digit is pass bucket_top - 1's
/// (found here from a's bits; `digit` is not used), it reads the input and writes kb.out (the route of a call
/// whose one pass runs), and it takes the last pass's state set, unused otherwise. When the histogram did not
/// choose it, the launch is the last pass as usual.
template <int ITEMS, bool HAS_VALUES, class K, class V, class Digit, int THREADS = tile_shape<K, V>::threads,
          bool MSD = false, class P = radix_tuning::default_policy>
__global__ void __launch_bounds__(THREADS, (pass_min_blocks<HAS_VALUES, K, V, THREADS, P>))
    onesweep_kernel(pass_buffers<K> kb, pass_buffers<V> vb, onesweep_args a, Digit digit,
                    const sort_control* control, std::uint64_t* bases) {
  using storage = onesweep_storage<ITEMS, HAS_VALUES, K, V, Digit, THREADS, P>;
  // the tile's storage: static, or dynamic when it passes 48 KB (dynamic_tile_storage; the launch asks for
  // it)
  constexpr bool dynamic = dynamic_tile_storage<storage>;
  __shared__ std::conditional_t<dynamic, char, storage> static_ts;
  extern __shared__ uint4 onesweep_dynamic_smem[];
  storage& ts = *[&] {
    if constexpr (dynamic)
      return reinterpret_cast<storage*>(onesweep_dynamic_smem);
    else
      return &static_ts;
  }();
  __shared__ std::uint32_t ticket;
  // ---- launched as the previous kernel's programmatic dependent (radix_tuning::pdl): wait for the
  // previous one to finish (at once otherwise); pdl_early: let the next kernel launch now ----
  if constexpr (radix_tuning::pdl_early<P>) lookback::allow_dependents();
  lookback::wait_for_previous_grid();
  const unsigned skip = control->skip_mask; // written by the histogram, launches ago
  int k, j;                                 // the passes that run, and those before this one
  const unsigned top = MSD ? control->bucket_top : 0u;
  if (top != 0) {        // ---- the bucket form's MSD pass ----
    if constexpr (MSD) { // (radix digits only)
      a.pass = static_cast<int>(top) - 1;
      digit = Digit{
          digit_extract(pass_digit(a.begin_bit, a.end_bit, a.pass, radix_tuning::digit_bits, a.descending))};
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
    if (whole_form<HAS_VALUES, K, V, Digit, P> &&
        a.tiles.valid_items(a.first_tile + t) == storage::tile_items)
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
  if constexpr (radix_tuning::pdl<P> && !radix_tuning::pdl_early<P>)
    lookback::allow_dependents(); // the block's tiles are done
}

} // namespace radix_detail
} // namespace carry
