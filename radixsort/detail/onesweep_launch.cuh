// Host launches of the onesweep pass (one launch a portion, each with its look-back words cleared) and the
// finishing copy's grid: the sort's passes and bin_by_key's one pass alike.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "../../scan/lookback/prepare.cuh"
#include "../../scan/util/launch.cuh"
#include "finish.cuh"
#include "onesweep_kernel.cuh"

namespace carry {
namespace radix_detail {

/// Launches pass p of `passes` over the layout's tiles (of tile_shape's threads x ITEMS), one launch a
/// portion (each with its look-back words cleared: once for the whole call by its first memset, by the memset
/// and the pass before (alternate), or prepared for the launch), taking control's skip mask and the bases the
/// histogram left. `pdl`: the stream's last work is a kernel of this call that allows dependents (the
/// histogram, the pass before), so a launch without a prepare step may be its programmatic dependent.
/// The radix sort's passes and bin_by_key's one pass alike. THREADS: the blocks' threads (0: tile_shape's;
/// the wide tile's radix_tuning::wide_threads).
/// MSD: the last pass's launch (p = passes - 1) as the bucket form's MSD pass where the histogram chose
/// it (onesweep_kernel's MSD), `bits` giving the call's bit range and direction.
template <bool HAS_VALUES, int ITEMS = 0, int THREADS = 0, bool MSD = false,
          class P = radix_tuning::default_policy, class K, class V, class Digit>
cudaError_t launch_onesweep_pass(void* d_temp_storage, const sort_layout& layout, int p, int passes,
                                 const Digit& digit, const pass_buffers<K>& kb, const pass_buffers<V>& vb,
                                 const sort_control* control, std::uint64_t* bases, int sms,
                                 cudaStream_t stream, bool pdl = false, const onesweep_args& bits = {}) {
  constexpr int items = ITEMS > 0 ? ITEMS : tile_shape<K, V, P>::items;
  constexpr int threads = THREADS > 0 ? THREADS : tile_shape<K, V, P>::threads;
  auto* kernel = onesweep_kernel<items, HAS_VALUES, K, V, Digit, threads, MSD, P>;
  // ---- a tile storage past 48 KB is dynamic shared memory: the kernel's limit, once per device ----
  using storage = onesweep_storage<items, HAS_VALUES, K, V, Digit, threads, P>;
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
    const lookback::temp_part set{
        layout.state.offset + (layout.clear_once ? static_cast<std::size_t>(p) * layout.state_set_bytes : 0),
        layout.state_set_bytes};
    a.state = set.in(d_temp_storage);
    a.words_offset = layout.state_words_offset;
    a.alternate = layout.alternate, a.set_bytes = layout.state_set_bytes;
    const dim3 grid(
        static_cast<unsigned>(onesweep_grid(a.portion_tiles, radix_tuning::persistent_onesweep<HAS_VALUES>,
                                            sms, pass_min_blocks<HAS_VALUES, K, V, threads, P>))),
        block(threads);
    cudaError_t e;
    if (layout.clear_once || layout.alternate) {
      e = lookback::launch_after_smem(kernel, grid, block, smem, stream, pdl, kb, vb, a, digit, control,
                                      bases);
    } else {
      e = lookback::launch_prepare(d_temp_storage, set, stream);
      if (e == cudaSuccess)
        e = lookback::launch_after_smem(kernel, grid, block, smem, stream, true, kb, vb, a, digit, control,
                                        bases);
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

} // namespace radix_detail
} // namespace carry
