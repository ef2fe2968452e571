// Distributed sort over the shards of an NCCL communicator: dist::sort_keys, sort_pairs and their
// descending forms (carry's sort of each shard, splitters from samples of the sorted shards, an exchange
// by grouped send/recv of the sorted parts, keys delta-coded in blocks or raw in slices on a side stream,
// each merged as it arrives, a stable merge of the sorted runs that arrived).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../../radixsort/detail/key_traits.hpp"
#include "../../radixsort/detail/merge.cuh"
#include "../../radixsort/device_radix_sort.cuh"
#include "../../scan/device_scan.cuh"
#include "../../scan/transform_input.hpp"
#include "../../scan/util/launch.cuh"
#include "communicator.hpp"
#include "detail/delta_kernels.cuh"
#include "detail/exchange.cuh"
#include "detail/kernels.cuh"
#include "detail/sort_plan.hpp"

namespace carry {
namespace dist {
namespace detail {

/// The sort's order of key k, widened for the samples (radix_detail::key_image).
template <class K>
CARRY_HD std::uint64_t sort_image(const K& k, bool descending) {
  return static_cast<std::uint64_t>(radix_detail::key_image(k, descending));
}

/// One block: the count and up to sort_samples keys at regular positions of the shard.
template <class K>
__global__ void sample_kernel(const K* keys, std::int64_t n, bool descending, sample_slot* out) {
  const int s = n < sort_samples ? static_cast<int>(n) : sort_samples;
  if (threadIdx.x == 0) out[0] = {0, n};
  for (int k = static_cast<int>(threadIdx.x); k < sort_samples; k += static_cast<int>(blockDim.x)) {
    if (k < s) {
      const std::int64_t i = sample_position(n, s, k);
      out[1 + k] = {sort_image(keys[i], descending), i};
    } else {
      out[1 + k] = {0, -1}; // no sample
    }
  }
}

/// The gathered samples as a sort's input: each one's image (past a shard's samples: the largest, and
/// weight 0) and its slot rank * sort_samples + k, which ascends with the global index (ranks in order,
/// each shard's samples at ascending positions), so a stable sort by image orders them by (image, global
/// index). Thread 0 also writes first[0] = 0 (the engine's scan of the shard counts writes the rest).
template <int = 0> // a template: defined in every translation unit that includes it
__global__ void sample_keys_kernel(const sample_slot* all, int ranks, std::uint64_t* images,
                                   std::uint32_t* slots, std::int64_t* first) {
  const std::int64_t count = std::int64_t{ranks} * sort_samples;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const sample_slot& s = gathered_sample(all, i);
    images[i] = s.index >= 0 ? s.image : ~std::uint64_t{0};
    slots[i] = static_cast<std::uint32_t>(i);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) first[0] = 0;
}

/// Splitter j (of ranks - 1): the first sorted sample whose inclusive weight passes j / ranks of the
/// total (the rule the CPU tests model in doubles, here in exact integers); none: past every key.
template <int = 0>
__global__ void pick_splitters_kernel(const std::uint64_t* prefix, const std::uint32_t* slots,
                                      std::int64_t count, const sample_slot* all, const std::int64_t* first,
                                      int ranks, sort_sample* splitters) {
  const std::uint64_t total = count > 0 ? prefix[count - 1] : 0;
  for (int j = 1 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < ranks;
       j += static_cast<int>(gridDim.x * blockDim.x)) {
    const std::int64_t at = first_past(prefix, count, splitter_target(total, j, ranks));
    if (at < count) {
      const std::uint32_t slot = slots[at];
      const sample_slot& s = gathered_sample(all, slot);
      splitters[j - 1] = sort_sample{s.image, first[slot / sort_samples] + s.index};
    } else {
      splitters[j - 1] = sort_sample{~std::uint64_t{0}, INT64_MAX};
    }
  }
}

/// Each rank's bucket bounds in this rank's sorted shard: off[j] = how many of its items go to ranks
/// before j (the items before splitter j - 1 in (key image, global index) order; a binary search a rank).
/// first_of: this rank's first global index (on the device).
template <class K>
__global__ void bounds_kernel(const K* sorted, std::int64_t n, const std::int64_t* first_of, bool descending,
                              const sort_sample* splitters, int ranks, std::uint64_t* off) {
  const std::int64_t first = *first_of;
  for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j <= ranks;
       j += static_cast<int>(gridDim.x * blockDim.x)) {
    std::int64_t lo = 0, hi = n;
    if (j == 0)
      hi = 0;
    else if (j == ranks)
      lo = n;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (before(sort_sample{sort_image(sorted[mid], descending), first + mid}, splitters[j - 1]))
        lo = mid + 1;
      else
        hi = mid;
    }
    off[j] = static_cast<std::uint64_t>(lo);
  }
}

/// Events a caller may have recorded on the stream at the sort's stage boundaries (the tool's phase
/// times): [0] before the local sort, [1] after it, [2] before the exchange, [3] after it, [4] after the
/// merge. The caller creates them; the sort only records them.
struct sort_marks {
  cudaEvent_t at[5];
};

/// Every distributed sort (V = radix_detail::null_value: keys alone); marks: see sort_marks (null: none);
/// side: a side_stream on which the exchange goes in slices, each merged on `stream` as it arrives (null:
/// one exchange, then the merge); slices: the slices asked for (0: the policy's; exchange_slices).
template <class K, class V>
cudaError_t dispatch_sort(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* keys_in,
                          K* keys_out, const V* values_in, V* values_out, std::int64_t out_capacity,
                          shard_info* d_shard, std::int64_t n, bool descending, const communicator& comm,
                          cudaStream_t stream, const sort_marks* marks = nullptr,
                          key_coding coding = key_coding::by_policy, const side_stream* side = nullptr,
                          int slices_asked = 0) {
  auto mark = [&](int i) { return marks != nullptr ? cudaEventRecord(marks->at[i], stream) : cudaSuccess; };
  constexpr bool pairs = !std::is_same<V, radix_detail::null_value>::value;
  if (!comm.valid() || comm.size() > 65536) return cudaErrorInvalidValue;
  const int ranks = comm.size(), rank = comm.rank();
  const std::int64_t nn = n > 0 ? n : 0, cap = out_capacity > 0 ? out_capacity : 0;
  // ---- temp storage ----
  constexpr int bits = radix_detail::radix_key<K>::bits;
  auto local_sort = [&](void* t, std::size_t& b, K* k, V* v) {
    if constexpr (pairs)
      return descending ? carry::sort_pairs_descending(t, b, keys_in, k, values_in, v, nn, 0, bits, stream)
                        : carry::sort_pairs(t, b, keys_in, k, values_in, v, nn, 0, bits, stream);
    else
      return descending ? carry::sort_keys_descending(t, b, keys_in, k, nn, 0, bits, stream)
                        : carry::sort_keys(t, b, keys_in, k, nn, 0, bits, stream);
  };
  std::size_t sort_bytes = 0;
  if (const cudaError_t e = local_sort(nullptr, sort_bytes, nullptr, nullptr); e != cudaSuccess) return e;
  // the splitters are chosen on the device: the gathered samples sorted by image (stable: by global index
  // within an image), their weights' prefix sums, one search a splitter
  const std::int64_t gathered = std::int64_t{ranks} * sort_samples;
  const auto slot_weights =
      make_transform_input(static_cast<const std::uint32_t*>(nullptr), slot_weight{nullptr});
  const auto block_counts = make_transform_input(static_cast<const sample_block*>(nullptr), block_count{});
  std::size_t pick_sort_bytes = 0, pick_scan_bytes = 0, first_scan_bytes = 0;
  if (const cudaError_t e =
          carry::sort_pairs(nullptr, pick_sort_bytes, static_cast<const std::uint64_t*>(nullptr),
                            static_cast<std::uint64_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
                            static_cast<std::uint32_t*>(nullptr), gathered, 0, 64, stream);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = carry::inclusive_sum(nullptr, pick_scan_bytes, slot_weights,
                                                 static_cast<std::uint64_t*>(nullptr), gathered, stream);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = carry::inclusive_sum(nullptr, first_scan_bytes, block_counts,
                                                 static_cast<std::int64_t*>(nullptr), ranks, stream);
      e != cudaSuccess)
    return e;
  const std::size_t pick_bytes = std::max({pick_sort_bytes, pick_scan_bytes, first_scan_bytes});
  const std::size_t block = sizeof(sample_slot) * (1 + sort_samples);
  // a merge tree's second buffer (up to merge_fan runs merge straight out: merge_runs)
  constexpr std::size_t fan = radix_detail::merge_fan<K, V>();
  const std::int64_t tree = ranks > static_cast<int>(fan) ? cap : 0;
  // the exchange moves 16-byte aligned parts (exchange_plan): a shard is read up to a granule past its
  // end, and the receive buffer has room for each part's widening. Coded keys (delta_code.hpp) travel in
  // whole blocks of delta_block: a header a block and its payload words, decoded where the keys would land
  constexpr std::size_t narrowest = pairs && sizeof(V) < sizeof(K) ? sizeof(V) : sizeof(K);
  if (side != nullptr && !side->valid()) return cudaErrorInvalidValue;
  using KU = typename radix_detail::radix_key<K>::bits_type;
  using header = delta_header<KU>;
  constexpr std::int64_t block_words = delta_words(8 * static_cast<int>(sizeof(KU)));
  const auto header_words =
      make_transform_input(static_cast<const header*>(nullptr), delta_header_words<KU>{});
  // the temp storage of one way to exchange the keys: coded, or raw with room for the slices the policy
  // gives it on a side stream
  struct temp_layout {
    bool coded = false;
    int room_slices = 1, bound_words = 1; // bound words: off, and coded: the payload offsets at its ends
    std::int64_t granule = 1, landing = 0, send_blocks = 0, recv_blocks = 0;
    std::size_t scan_bytes = 0;
    lookback::temp_builder carve;
    lookback::temp_part mine_at, all_at, split_at, first_at, pi_at, pis_at, ps_at, pss_at, pp_at, pt_at,
        off_at, offs_at, sk_at, sv_at, hd_at, po_at, pay_at, rh_at, ro_at, rp_at, sc_at, rk_at, rv_at, tk_at,
        tv_at, ms_at, sort_at;
  };
  auto lay_out = [&](bool coded, temp_layout& t) -> cudaError_t {
    t.coded = coded;
    t.room_slices = exchange_slices(ranks, coded, pairs, slices_asked);
    t.granule = coded ? delta_block : narrowest < 16 ? static_cast<std::int64_t>(16 / narrowest) : 1;
    t.landing = cap + exchange_slack(ranks, t.granule, t.room_slices);
    t.send_blocks = coded ? (nn + delta_block - 1) / delta_block : 0;
    t.recv_blocks = coded ? (t.landing + delta_block - 1) / delta_block : 0;
    t.bound_words = coded ? 3 : 1;
    if (coded) {
      std::size_t a = 0, b = 0;
      if (const cudaError_t e = carry::exclusive_sum(
              nullptr, a, header_words, static_cast<std::uint64_t*>(nullptr), t.send_blocks + 1, stream);
          e != cudaSuccess)
        return e;
      if (const cudaError_t e = carry::exclusive_sum(
              nullptr, b, header_words, static_cast<std::uint64_t*>(nullptr), t.recv_blocks, stream);
          e != cudaSuccess)
        return e;
      t.scan_bytes = a > b ? a : b;
    }
    const auto words = static_cast<std::size_t>(ranks * t.room_slices + 1) * t.bound_words;
    auto& carve = t.carve;
    t.mine_at = carve.add(block);
    t.all_at = carve.add(block * ranks);
    t.split_at = carve.add(sizeof(sort_sample) * ranks * t.room_slices);
    t.first_at = carve.add(sizeof(std::int64_t) * (ranks + 1));
    t.pi_at = carve.add(sizeof(std::uint64_t) * gathered);
    t.pis_at = carve.add(sizeof(std::uint64_t) * gathered);
    t.ps_at = carve.add(sizeof(std::uint32_t) * gathered);
    t.pss_at = carve.add(sizeof(std::uint32_t) * gathered);
    t.pp_at = carve.add(sizeof(std::uint64_t) * gathered);
    t.pt_at = carve.add(pick_bytes);
    t.off_at = carve.add(sizeof(std::uint64_t) * words);
    t.offs_at = carve.add(sizeof(std::uint64_t) * words * ranks);
    t.sk_at = carve.add(sizeof(K) * (nn + t.granule));
    t.sv_at = carve.add(pairs ? sizeof(V) * (nn + t.granule) : 0);
    t.hd_at = carve.add(sizeof(header) * (coded ? t.send_blocks + 1 : 0));
    t.po_at = carve.add(sizeof(std::uint64_t) * (coded ? t.send_blocks + 1 : 0));
    t.pay_at = carve.add(sizeof(std::uint32_t) * block_words * t.send_blocks);
    t.rh_at = carve.add(sizeof(header) * t.recv_blocks);
    t.ro_at = carve.add(sizeof(std::uint64_t) * t.recv_blocks);
    t.rp_at = carve.add(sizeof(std::uint32_t) * block_words * t.recv_blocks);
    t.sc_at = carve.add(t.scan_bytes);
    t.rk_at = carve.add(sizeof(K) * (coded ? t.recv_blocks * delta_block : t.landing));
    t.rv_at = carve.add(pairs ? sizeof(V) * t.landing : 0);
    t.tk_at = carve.add(sizeof(K) * (tree + 1));
    t.tv_at = carve.add(pairs ? sizeof(V) * (tree + 1) : 0);
    t.ms_at = carve.add(sizeof(std::int64_t) * radix_detail::merge_splits<K>(cap));
    t.sort_at = carve.add(sort_bytes);
    return cudaSuccess;
  };
  // a call lent a side stream may exchange its keys another way than one without (codes_keys): the temp
  // storage holds either, so its size is the same with a side stream or without
  temp_layout plain, beside;
  if (const cudaError_t e = lay_out(codes_keys(coding, ranks, pairs, false, slices_asked), plain);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = lay_out(codes_keys(coding, ranks, pairs, true, slices_asked), beside);
      e != cudaSuccess)
    return e;
  const std::size_t allocation = std::max(plain.carve.allocation(), beside.carve.allocation());
  const temp_layout& lay = side != nullptr ? beside : plain;
  const bool coded = lay.coded;
  const int slices = side != nullptr ? lay.room_slices : 1, buckets = ranks * slices,
            bound_words = lay.bound_words;
  const std::int64_t granule = lay.granule, send_blocks = lay.send_blocks;
  const std::size_t scan_bytes = lay.scan_bytes;
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = allocation;
    return cudaSuccess;
  }
  if (n < 0 || out_capacity < 0 || d_shard == nullptr || temp_storage_bytes < allocation ||
      (nn > 0 && (keys_in == nullptr || (pairs && values_in == nullptr))) ||
      (cap > 0 && (keys_out == nullptr || (pairs && values_out == nullptr))))
    return cudaErrorInvalidValue;
  auto* mine = lay.mine_at.as<sample_slot>(d_temp_storage);
  auto* all = lay.all_at.as<sample_slot>(d_temp_storage);
  auto* splitters = lay.split_at.as<sort_sample>(d_temp_storage);
  auto* off = lay.off_at.as<std::uint64_t>(d_temp_storage);
  auto* offs = lay.offs_at.as<std::uint64_t>(d_temp_storage);
  auto* sk = lay.sk_at.as<K>(d_temp_storage);
  auto* rk = lay.rk_at.as<K>(d_temp_storage);
  auto* tk = lay.tk_at.as<K>(d_temp_storage);
  V* sv = pairs ? lay.sv_at.as<V>(d_temp_storage) : nullptr;
  V* rv = pairs ? lay.rv_at.as<V>(d_temp_storage) : nullptr;
  V* tv = pairs ? lay.tv_at.as<V>(d_temp_storage) : nullptr;
  // ---- the shard sorted on its own (stable) ----
  if (const cudaError_t e = mark(0); e != cudaSuccess) return e;
  if (nn > 0) {
    std::size_t sb = sort_bytes;
    if (const cudaError_t e = local_sort(lay.sort_at.in(d_temp_storage), sb, sk, sv); e != cudaSuccess)
      return e;
  }
  if (const cudaError_t e = mark(1); e != cudaSuccess) return e;
  // ---- samples of every sorted shard (its exact quantiles), and the shards' counts: one all-gather ----
  sample_kernel<<<1, 256, 0, stream>>>(static_cast<const K*>(sk), nn, descending, mine);
  if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  if (const cudaError_t e = from_nccl(ncclAllGather(mine, all, block, ncclUint8, comm.get(), stream));
      e != cudaSuccess)
    return e;
  // ---- splitters over (key image, global index), chosen on the device (the same on every rank), then
  // each bucket's bounds in the sorted shard (sliced: `slices` buckets a rank, each a slice of its run) ----
  // A shard's sorted position stands for its global index: the local sort is stable, so equal keys keep
  // their input order, and rank q's items all come before rank q + 1's.
  auto* first = lay.first_at.as<std::int64_t>(d_temp_storage);
  auto* pick_images = lay.pi_at.as<std::uint64_t>(d_temp_storage);
  auto* pick_slots = lay.ps_at.as<std::uint32_t>(d_temp_storage);
  auto* sorted_slots = lay.pss_at.as<std::uint32_t>(d_temp_storage);
  auto* prefix = lay.pp_at.as<std::uint64_t>(d_temp_storage);
  sample_keys_kernel<><<<static_cast<unsigned>((gathered + 255) / 256), 256, 0, stream>>>(
      static_cast<const sample_slot*>(all), ranks, pick_images, pick_slots, first);
  if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  std::size_t fb = first_scan_bytes; // every rank's first global index: first[q + 1] = first[q] + count q
  if (const cudaError_t e = carry::inclusive_sum(
          lay.pt_at.in(d_temp_storage), fb,
          make_transform_input(reinterpret_cast<const sample_block*>(all), block_count{}), first + 1, ranks,
          stream);
      e != cudaSuccess)
    return e;
  if (ranks > 1) {
    std::size_t b = pick_sort_bytes;
    if (const cudaError_t e = carry::sort_pairs(
            lay.pt_at.in(d_temp_storage), b, static_cast<const std::uint64_t*>(pick_images),
            lay.pis_at.as<std::uint64_t>(d_temp_storage), static_cast<const std::uint32_t*>(pick_slots),
            sorted_slots, gathered, 0, 64, stream);
        e != cudaSuccess)
      return e;
    b = pick_scan_bytes;
    if (const cudaError_t e = carry::inclusive_sum(
            lay.pt_at.in(d_temp_storage), b,
            make_transform_input(static_cast<const std::uint32_t*>(sorted_slots), slot_weight{all}), prefix,
            gathered, stream);
        e != cudaSuccess)
      return e;
    pick_splitters_kernel<><<<(buckets + 255) / 256, 256, 0, stream>>>(
        static_cast<const std::uint64_t*>(prefix), static_cast<const std::uint32_t*>(sorted_slots), gathered,
        static_cast<const sample_slot*>(all), static_cast<const std::int64_t*>(first), buckets, splitters);
    if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  }
  bounds_kernel<<<(buckets + 256) / 256, 256, 0, stream>>>(
      static_cast<const K*>(sk), nn, static_cast<const std::int64_t*>(first + rank), descending,
      static_cast<const sort_sample*>(splitters), buckets, off);
  if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  // ---- coded keys: each block's header, the payload offsets (the engine's scan), the payload; the run this
  // rank keeps is not coded (its blocks get no payload) ----
  auto* hd = lay.hd_at.as<header>(d_temp_storage);
  auto* po = lay.po_at.as<std::uint64_t>(d_temp_storage);
  auto* pay = lay.pay_at.as<std::uint32_t>(d_temp_storage);
  if (coded) {
    constexpr int batch = apps_tuning::default_policy::dist_delta_batch;
    const unsigned grid = delta_grid<batch>(send_blocks);
    delta_width_kernel<batch>
        <<<grid, delta_threads, 0, stream>>>(static_cast<const K*>(sk), nn, send_blocks, descending,
                                             static_cast<const std::uint64_t*>(off + rank), hd);
    if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
    std::size_t sb = scan_bytes;
    if (const cudaError_t e = carry::exclusive_sum(
            lay.sc_at.in(d_temp_storage), sb,
            make_transform_input(static_cast<const header*>(hd), delta_header_words<KU>{}), po,
            send_blocks + 1, stream);
        e != cudaSuccess)
      return e;
    if (send_blocks > 0) {
      delta_pack_kernel<batch><<<grid, delta_threads, 0, stream>>>(
          static_cast<const K*>(sk), nn, send_blocks, descending,
          static_cast<const std::uint64_t*>(off + rank), static_cast<const header*>(hd),
          static_cast<const std::uint64_t*>(po), pay);
      if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
    }
    delta_bounds_kernel<<<1, 256, 0, stream>>>(static_cast<const std::uint64_t*>(off), ranks,
                                               static_cast<const std::uint64_t*>(po), off + (ranks + 1));
    if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  }
  // ---- every rank's bucket bounds (and coded: payload offsets): the exchange's exact counts, on the host ----
  std::vector<std::uint64_t> h_offs;
  const std::size_t per_rank = static_cast<std::size_t>(buckets + 1) * bound_words;
  if (const cudaError_t e = gather_to_host<std::uint64_t>(off, offs, per_rank, h_offs, comm, stream);
      e != cudaSuccess)
    return e;
  std::vector<std::vector<std::int64_t>> offsets(static_cast<std::size_t>(ranks)), words(offsets.size());
  for (int q = 0; q < ranks; ++q) {
    const std::uint64_t* h = h_offs.data() + static_cast<std::size_t>(q) * per_rank;
    for (int j = 0; j <= buckets; ++j) offsets[q].push_back(static_cast<std::int64_t>(h[j]));
    if (coded)
      for (int j = 0; j < 2 * (ranks + 1); ++j)
        words[q].push_back(static_cast<std::int64_t>(h[ranks + 1 + j]));
  }
  std::int64_t total = 0; // every shard's count: its last bound
  for (int q = 0; q < ranks; ++q) total += offsets[q][buckets];
  std::vector<exchange_plan> xs; // a plan a slice, each received after the last
  std::int64_t received = 0;
  for (int i = 0; i < slices; ++i) {
    xs.push_back(plan_slice(offsets, rank, granule, slices, i, i > 0 ? xs.back().landed : 0));
    received += xs.back().received;
  }
  const exchange_plan& x = xs.front();
  if (x.most_received > cap) return cudaErrorInvalidValue; // every rank sees it: all refuse, none waits
  // ---- the exchange: grouped sends and receives of the planned parts (the own run stays in place) ----
  if (const cudaError_t e = mark(2); e != cudaSuccess) return e;
  cudaError_t exchanged_e;
  if (coded) {
    // headers land in slots the raw keys' places / G (zero where nothing lands: no payload, never read),
    // payloads end to end in rank order; then the engine's scan of the slots' words, and the decoding
    const coded_plans c = plan_coded(x, offsets, words, rank, delta_block);
    auto* rh = lay.rh_at.as<header>(d_temp_storage);
    auto* ro = lay.ro_at.as<std::uint64_t>(d_temp_storage);
    auto* rp = lay.rp_at.as<std::uint32_t>(d_temp_storage);
    const std::int64_t landed_blocks = (x.landed + delta_block - 1) / delta_block; // <= recv_blocks
    if (const cudaError_t e = cudaMemsetAsync(rh, 0, sizeof(header) * landed_blocks, stream);
        e != cudaSuccess)
      return e;
    const planned<header> ph{&c.headers, exchanged<header>{hd, rh}};
    const planned<std::uint32_t> pp{&c.payload, exchanged<std::uint32_t>{pay, rp}};
    if constexpr (pairs)
      exchanged_e = exchange_planned(comm, stream, ph, pp, planned<V>{&x, exchanged<V>{sv, rv}});
    else
      exchanged_e = exchange_planned(comm, stream, ph, pp);
    if (exchanged_e != cudaSuccess) return exchanged_e;
    std::size_t sb = scan_bytes;
    if (const cudaError_t e = carry::exclusive_sum(
            lay.sc_at.in(d_temp_storage), sb,
            make_transform_input(static_cast<const header*>(rh), delta_header_words<KU>{}), ro, landed_blocks,
            stream);
        e != cudaSuccess)
      return e;
    constexpr int batch = apps_tuning::default_policy::dist_delta_batch;
    if (landed_blocks > 0) {
      delta_decode_kernel<batch><<<delta_grid<batch>(landed_blocks), delta_threads, 0, stream>>>(
          static_cast<const header*>(rh), static_cast<const std::uint64_t*>(ro),
          static_cast<const std::uint32_t*>(rp), landed_blocks, descending, rk);
      if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
    }
  }
  // ---- the sorted runs of a slice (one a rank, in rank order) merged stably into its place in the output
  // (a tree of merges, ping the same place in the tree buffer; pairs of keys and values of up to 4 bytes
  // merge four runs in one pass; a slice has at most four runs, so pong is unused) ----
  auto* ms = lay.ms_at.as<std::int64_t>(d_temp_storage);
  auto merge = [&](const exchange_plan& xp, cudaStream_t on) {
    std::vector<radix_detail::sorted_run<K, V>> runs;
    for (int q = 0; q < ranks; ++q) {
      if (xp.run_count[q] == 0) continue;
      if (q == rank)
        runs.push_back({sk + xp.send_at[q], pairs ? sv + xp.send_at[q] : nullptr, xp.run_count[q]});
      else
        runs.push_back({rk + xp.run_at[q], pairs ? rv + xp.run_at[q] : nullptr, xp.run_count[q]});
    }
    const std::int64_t o = xp.slice_offset;
    return radix_detail::merge_runs(runs, keys_out + o, pairs ? values_out + o : values_out,
                                    tree > 0 ? tk + o : tk, pairs && tree > 0 ? tv + o : tv, rk, rv, ms,
                                    descending, on);
  };
  if (coded) {
    if (const cudaError_t e = mark(3); e != cudaSuccess) return e;
    if (const cudaError_t e = merge(x, stream); e != cudaSuccess) return e;
  } else {
    // raw parts a slice at a time; in several slices they travel on the side stream (forked from `stream`
    // here), and `stream` merges each slice once it has arrived, while the next one travels, and has
    // joined the side stream after the last
    const bool forked = slices > 1;
    const cudaStream_t on = forked ? side->stream() : stream;
    if (forked) {
      if (const cudaError_t e = cudaEventRecord(side->fork(), stream); e != cudaSuccess) return e;
      if (const cudaError_t e = cudaStreamWaitEvent(on, side->fork(), 0); e != cudaSuccess) return e;
    }
    for (int i = 0; i < slices; ++i) {
      if constexpr (pairs)
        exchanged_e = exchange(xs[i], comm, on, false, exchanged<K>{sk, rk}, exchanged<V>{sv, rv});
      else
        exchanged_e = exchange(xs[i], comm, on, false, exchanged<K>{sk, rk});
      if (exchanged_e != cudaSuccess) return exchanged_e;
      if (forked) {
        if (const cudaError_t e = cudaEventRecord(side->join(), on); e != cudaSuccess) return e;
        if (const cudaError_t e = cudaStreamWaitEvent(stream, side->join(), 0); e != cudaSuccess) return e;
      }
      const cudaError_t marked = i + 1 == slices ? mark(3) : cudaSuccess;
      if (marked != cudaSuccess) return marked;
      if (const cudaError_t e = merge(xs[i], stream); e != cudaSuccess) return e;
    }
  }
  if (const cudaError_t e = mark(4); e != cudaSuccess) return e;
  write_shard_kernel<><<<1, 1, 0, stream>>>(d_shard, received, x.out_offset, total);
  return carry::detail::after_launch(stream);
}

} // namespace detail

/// Sorts the keys of every rank's shard across the ranks, stably: afterwards rank 0 holds the smallest
/// keys, in order, then rank 1, ... (global order, ties in their global input order); each rank's count,
/// global offset and the total are in *d_shard. Shards may differ in size and be empty; d_keys_out holds
/// up to out_capacity keys (a rank gets about total / ranks, within a few percent: 1024 samples a rank
/// choose the splitters; a call that would pass any rank's capacity is refused on every rank). Keys: as
/// carry::sort_keys.
///
///   rank 0: [5 1 9 3], rank 1: [2 8 0 7]  ->  rank 0: [0 1 2 3] {4, 0, 8}, rank 1: [5 7 8 9] {4, 4, 8}
///
/// Deliberate difference from the single-GPU calls: it synchronises `stream` once (NCCL's sends and
/// receives need their counts on the host: the bucket bounds are read back; the splitters are chosen on
/// the device).
template <class K>
cudaError_t sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                      K* d_keys_out, std::int64_t out_capacity, shard_info* d_shard, std::int64_t num_items,
                      const communicator& comm, cudaStream_t stream = 0) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                               static_cast<const radix_detail::null_value*>(nullptr),
                               static_cast<radix_detail::null_value*>(nullptr), out_capacity, d_shard,
                               num_items, false, comm, stream);
}

/// sort_keys, largest key first (still stable).
template <class K>
cudaError_t sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                 K* d_keys_out, std::int64_t out_capacity, shard_info* d_shard,
                                 std::int64_t num_items, const communicator& comm, cudaStream_t stream = 0) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                               static_cast<const radix_detail::null_value*>(nullptr),
                               static_cast<radix_detail::null_value*>(nullptr), out_capacity, d_shard,
                               num_items, true, comm, stream);
}

/// sort_keys with a side stream (side_stream: the caller's second stream, at the greatest priority, and two
/// events): the exchange then goes in slices on the side stream and each slice is merged on `stream` as
/// soon as it has arrived, while the next one travels (raw exchanges of up to four ranks: keys the policy
/// would code travel raw here where they go in several slices, apps_tuning's dist_delta_beside_slices;
/// elsewhere as sort_keys). The result and the temp storage size are sort_keys'; `stream` has joined the
/// side stream when the call's work on it ends.
///
///   carry::dist::sort_keys(d_temp, bytes, d_in, d_out, capacity, d_shard, n, comm, side, stream);
template <class K>
cudaError_t sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                      K* d_keys_out, std::int64_t out_capacity, shard_info* d_shard, std::int64_t num_items,
                      const communicator& comm, const side_stream& side, cudaStream_t stream) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                               static_cast<const radix_detail::null_value*>(nullptr),
                               static_cast<radix_detail::null_value*>(nullptr), out_capacity, d_shard,
                               num_items, false, comm, stream, nullptr, detail::key_coding::by_policy, &side);
}

/// sort_keys_descending with a side stream (as sort_keys with one).
template <class K>
cudaError_t sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                 K* d_keys_out, std::int64_t out_capacity, shard_info* d_shard,
                                 std::int64_t num_items, const communicator& comm, const side_stream& side,
                                 cudaStream_t stream) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                               static_cast<const radix_detail::null_value*>(nullptr),
                               static_cast<radix_detail::null_value*>(nullptr), out_capacity, d_shard,
                               num_items, true, comm, stream, nullptr, detail::key_coding::by_policy, &side);
}

/// sort_keys with values that travel with their keys (key and value sizes together at most 16 bytes:
/// they are partitioned and exchanged as one item).
///
///   rank 0: keys [5 1], values [a b]; rank 1: keys [2 0], values [c d]
///   ->  rank 0: [0 1] [d b], rank 1: [2 5] [c a]
template <class K, class V>
cudaError_t sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                       K* d_keys_out, const V* d_values_in, V* d_values_out, std::int64_t out_capacity,
                       shard_info* d_shard, std::int64_t num_items, const communicator& comm,
                       cudaStream_t stream = 0) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                               d_values_out, out_capacity, d_shard, num_items, false, comm, stream);
}

/// sort_pairs, largest key first (still stable).
template <class K, class V>
cudaError_t sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                  K* d_keys_out, const V* d_values_in, V* d_values_out,
                                  std::int64_t out_capacity, shard_info* d_shard, std::int64_t num_items,
                                  const communicator& comm, cudaStream_t stream = 0) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                               d_values_out, out_capacity, d_shard, num_items, true, comm, stream);
}

/// sort_pairs with a side stream (as sort_keys with one).
template <class K, class V>
cudaError_t sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                       K* d_keys_out, const V* d_values_in, V* d_values_out, std::int64_t out_capacity,
                       shard_info* d_shard, std::int64_t num_items, const communicator& comm,
                       const side_stream& side, cudaStream_t stream) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                               d_values_out, out_capacity, d_shard, num_items, false, comm, stream, nullptr,
                               detail::key_coding::by_policy, &side);
}

/// sort_pairs_descending with a side stream (as sort_keys with one).
template <class K, class V>
cudaError_t sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                                  K* d_keys_out, const V* d_values_in, V* d_values_out,
                                  std::int64_t out_capacity, shard_info* d_shard, std::int64_t num_items,
                                  const communicator& comm, const side_stream& side, cudaStream_t stream) {
  return detail::dispatch_sort(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                               d_values_out, out_capacity, d_shard, num_items, true, comm, stream, nullptr,
                               detail::key_coding::by_policy, &side);
}

} // namespace dist
} // namespace carry
