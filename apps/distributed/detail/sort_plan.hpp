// Planning of the distributed sort: the splitter rule's integer pieces (host and device), and the
// exchange's counts and displacements from every rank's bucket offsets (host). CPU-tested.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../tuning.hpp"
#include "plan.hpp"

namespace carry {
namespace dist {
namespace detail {

/// How the sorted parts' keys travel: by the policy's rank counts (apps_tuning), delta-coded, or raw.
enum class key_coding { by_policy, delta, raw };

/// The slices a sort's raw exchange goes in on a side stream, each merged as it arrives (the temp storage
/// keeps room for them with or without one; asked: a caller's count, 0 for the policy's, at most 64): one
/// for a single rank, coded keys, or past four ranks (whose merge tree would need a second buffer a slice);
/// the policy's rows for keys, pairs on two ranks and pairs on three or four.
template <class Policy = apps_tuning::default_policy>
constexpr int exchange_slices(int ranks, bool coded, bool pairs, int asked) {
  if (ranks < 2 || ranks > 4 || coded) return 1;
  const int s =
      asked > 0 ? asked
      : pairs   ? (ranks > 2 ? Policy::dist_exchange_slices_pairs_many : Policy::dist_exchange_slices_pairs)
                : Policy::dist_exchange_slices_keys;
  return s < 1 ? 1 : s > 64 ? 64 : s;
}

/// Whether a sort over `ranks` ranks codes its keys; side: whether it is lent a side stream, on which a raw
/// exchange would go in exchange_slices(ranks, false, pairs, asked) slices. By the policy: from its rank
/// counts, except where a side stream would carry the raw keys in several slices and the policy sends
/// them so rather than coded (dist_delta_beside_slices false).
template <class Policy = apps_tuning::default_policy>
constexpr bool codes_keys(key_coding coding, int ranks, bool pairs, bool side = false, int asked = 0) {
  if (ranks < 2 || coding == key_coding::raw) return false;
  if (coding == key_coding::delta) return true;
  if (ranks < (pairs ? Policy::dist_delta_pairs_from_ranks : Policy::dist_delta_keys_from_ranks))
    return false;
  return !side || Policy::dist_delta_beside_slices ||
         exchange_slices<Policy>(ranks, false, pairs, asked) == 1;
}

/// The device's splitter choice (dispatch_sort) weighs samples in fixed point, so the prefix sums of the
/// weights are exact integers and every rank's have the same bits: a sample of a shard of `count` items
/// of which `taken` were sampled stands for count / taken items, times 2^sample_weight_bits (totals below
/// 2^43 items). The CPU tests hold the same rule in doubles as its model.
constexpr int sample_weight_bits = 20;
CARRY_HD inline std::uint64_t sample_weight_fixed(std::int64_t count, std::int64_t taken) {
  return taken > 0 && count > 0
             ? (static_cast<std::uint64_t>(count) << sample_weight_bits) / static_cast<std::uint64_t>(taken)
             : 0;
}

/// floor(total * j / ranks), exactly and without overflow (0 < j < ranks <= 65536).
CARRY_HD inline std::uint64_t splitter_target(std::uint64_t total, int j, int ranks) {
  const auto r = static_cast<std::uint64_t>(ranks), k = static_cast<std::uint64_t>(j);
  return total / r * k + total % r * k / r;
}

/// The first of `count` ascending inclusive prefix sums above `target` (count if none): the sorted
/// sample that is splitter j for target splitter_target(total, j, ranks).
CARRY_HD inline std::int64_t first_past(const std::uint64_t* prefix, std::int64_t count,
                                        std::uint64_t target) {
  std::int64_t lo = 0, hi = count;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (prefix[mid] > target)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// Samples taken a rank (fewer when its shard is smaller): 1024 keep every rank's output within a few
/// percent of an even share for any key distribution (the regular positions of every shard).
constexpr int sort_samples = 1024;

/// One slot of the gathered sample block: slot 0 holds the shard's count, the rest its samples.
struct sample_slot {
  std::uint64_t image;
  std::int64_t index; // the local index (slot 0: the count)
};

/// The gathered blocks, one a rank: rank q's shard count, and sample `slot` (= q * sort_samples + k: its
/// k-th sample; index < 0 where it took fewer).
CARRY_HD inline std::int64_t gathered_count(const sample_slot* all, std::int64_t q) {
  return all[q * (1 + sort_samples)].index;
}
template <class I>
CARRY_HD const sample_slot& gathered_sample(const sample_slot* all, I slot) {
  return all[static_cast<std::int64_t>(slot / sort_samples) * (1 + sort_samples) + 1 + slot % sort_samples];
}

/// A rank's gathered block (its count, then its samples) as one element, and its shard count: the engine's
/// inclusive sum over the blocks gives every rank's first global index.
using sample_block = sample_slot[1 + sort_samples];
struct block_count {
  CARRY_HD std::int64_t operator()(const sample_block& b) const { return b[0].index; }
};

/// A gathered sample's fixed-point weight from its slot (sample_weight_fixed; 0 past its shard's samples).
struct slot_weight {
  const sample_slot* all;
  CARRY_HD std::uint64_t operator()(std::uint32_t slot) const {
    if (gathered_sample(all, slot).index < 0) return 0;
    const std::int64_t count = gathered_count(all, slot / sort_samples);
    return sample_weight_fixed(count, count < sort_samples ? count : sort_samples);
  }
};

/// Rank `rank`'s side of the exchange from every rank's num_ranks + 1 bucket offsets (offsets[q][j]: where
/// rank q's items for rank j start in its partitioned shard). What travels between two ranks starts and
/// ends on a multiple of `granule` items (the exact part widened by fewer than `granule` items at each
/// end, which the receiver skips), and every receive starts on such a multiple: NCCL's copies run at full
/// speed only on 16-byte aligned parts (the sort passes 16 bytes in items; a rank's own part is exact).
///
///   offsets {{0, 3, 5}, {0, 6, 9}}, granule 4, rank 1: sends items [0, 8) of its shard to rank 0 (the 6
///   items [0, 6) widened), receives rank 0's [3, 5) as [0, 8) at 0: the run it keeps is 2 items at 3;
///   its own run (3 items at 6 of its shard) goes to slot 8 (aligned after the 8 received).
///
/// Sliced (plan_slice): every rank's bucket is `slices` consecutive sub-buckets, offsets[q] has
/// num_ranks * slices + 1 bounds, and a plan moves sub-bucket `slice` of every bucket, received after
/// `landed_from` (the previous slice's `landed`), so each slice's exchange and merge can go on its own.
struct exchange_plan {
  std::vector<std::int64_t> send_count, send_at; // to each rank: how many travel, from where
  std::vector<std::int64_t> recv_count, recv_at; // from each rank: how many travel, to where
  std::vector<std::int64_t> run_count, run_at;   // from each rank: its exact items, where they land
  std::int64_t received = 0;      // this rank's output count in this slice (the runs' exact items)
  std::int64_t landed = 0;        // the receive buffer's items in use (received plus slack)
  std::int64_t out_offset = 0;    // where this rank's output starts in global order
  std::int64_t slice_offset = 0;  // where this slice's output starts in the rank's output
  std::int64_t most_received = 0; // the largest output count of any rank (all slices)
};

/// The items a receive buffer may need beyond the output count: three granules a rank and slice at most.
inline std::int64_t exchange_slack(int ranks, std::int64_t granule, int slices = 1) {
  return 3 * granule * ranks * slices;
}

inline exchange_plan plan_slice(const std::vector<std::vector<std::int64_t>>& offsets, int rank,
                                std::int64_t granule, int slices, int slice, std::int64_t landed_from) {
  const int ranks = static_cast<int>(offsets.size());
  const std::int64_t g = granule > 0 ? granule : 1;
  auto down = [g](std::int64_t i) { return i / g * g; };
  auto up = [g](std::int64_t i) { return (i + g - 1) / g * g; };
  auto begin = [&](int q, int j) { return offsets[q][static_cast<std::size_t>(j) * slices + slice]; };
  auto end = [&](int q, int j) { return offsets[q][static_cast<std::size_t>(j) * slices + slice + 1]; };
  // the part of rank q's bucket j that travels: [at, at + count), widened to granules unless it stays
  auto wire = [&](int q, int j, std::int64_t& at, std::int64_t& count) {
    const std::int64_t b = begin(q, j), e = end(q, j);
    at = q == j || e == b ? b : down(b);
    count = q == j || e == b ? e - b : up(e) - at;
  };
  exchange_plan x;
  for (auto* v : {&x.send_count, &x.send_at, &x.recv_count, &x.recv_at, &x.run_count, &x.run_at})
    v->resize(static_cast<std::size_t>(ranks));
  for (int j = 0; j < ranks; ++j) wire(rank, j, x.send_at[j], x.send_count[j]);
  x.landed = landed_from;
  for (int q = 0; q < ranks; ++q) {
    std::int64_t from = 0;
    wire(q, rank, from, x.recv_count[q]);
    x.recv_at[q] = up(x.landed);
    x.landed = x.recv_at[q] + x.recv_count[q];
    x.run_count[q] = end(q, rank) - begin(q, rank);
    x.run_at[q] = x.recv_at[q] + (begin(q, rank) - from);
    x.received += x.run_count[q];
    x.slice_offset += begin(q, rank) - offsets[q][static_cast<std::size_t>(rank) * slices];
  }
  for (int j = 0; j < ranks; ++j) {
    std::int64_t got = 0;
    for (int q = 0; q < ranks; ++q)
      got += offsets[q][static_cast<std::size_t>(j + 1) * slices] -
             offsets[q][static_cast<std::size_t>(j) * slices];
    if (j < rank) x.out_offset += got;
    x.most_received = std::max(x.most_received, got);
  }
  return x;
}

inline exchange_plan plan_exchange(const std::vector<std::vector<std::int64_t>>& offsets, int rank,
                                   std::int64_t granule = 1) {
  return plan_slice(offsets, rank, granule, 1, 0, 0);
}

/// The coded exchange's two more plans, beside x (plan_exchange(offsets, rank, delta_block): every part
/// that travels is whole blocks of delta_block items). headers: x in blocks (a header a block, the
/// receive slots those of x). payload: x's parts in payload words, from every rank's coded offsets at its
/// bounds' widened ends (words[q][j] = rank q's payload words before block down(offsets[q][j]) / G,
/// words[q][ranks + 1 + j] = before block up(offsets[q][j]) / G); what a rank receives is laid end to end
/// in rank order.
///
///   offsets {{0, 200, 300}, {0, 100, 256}}, G 128, rank 0 receives rank 1's [0, 100) widened to [0, 128):
///   block 0 of rank 1, its words [words[1][0], words[1][3 + 1]) = [0, up(100) / G's offset)
struct coded_plans {
  exchange_plan headers, payload;
};
inline coded_plans plan_coded(const exchange_plan& x, const std::vector<std::vector<std::int64_t>>& offsets,
                              const std::vector<std::vector<std::int64_t>>& words, int rank, std::int64_t g) {
  const int ranks = static_cast<int>(offsets.size());
  coded_plans c;
  c.headers = x;
  for (auto* v : {&c.headers.send_at, &c.headers.send_count, &c.headers.recv_at, &c.headers.recv_count})
    for (auto& i : *v) i /= g; // whole blocks on every part that travels (the own part does not)
  exchange_plan& p = c.payload;
  for (auto* v : {&p.send_count, &p.send_at, &p.recv_count, &p.recv_at, &p.run_count, &p.run_at})
    v->assign(static_cast<std::size_t>(ranks), 0);
  // rank q's part for rank j: its payload words from the widened start's offset to the widened end's
  auto travels = [&](int q, int j) { return q != j && offsets[q][j + 1] > offsets[q][j]; };
  auto words_of = [&](int q, int j) {
    return travels(q, j) ? words[q][ranks + 1 + (j + 1)] - words[q][j] : 0;
  };
  for (int j = 0; j < ranks; ++j) {
    p.send_at[j] = travels(rank, j) ? words[rank][j] : 0;
    p.send_count[j] = words_of(rank, j);
  }
  for (int q = 0; q < ranks; ++q) {
    p.recv_count[q] = words_of(q, rank);
    p.recv_at[q] = p.landed;
    p.landed += p.recv_count[q];
  }
  return c;
}

/// The exchange that leaves rank j holding the even shard j (even_shard) of the items every rank holds
/// now, in global order: rank q's items [g_q, g_q + counts[q]) go where they overlap each even shard.
inline exchange_plan plan_rebalance(const std::vector<std::int64_t>& counts, int rank) {
  const int ranks = static_cast<int>(counts.size());
  std::int64_t total = 0;
  for (std::int64_t c : counts) total += c;
  std::vector<std::vector<std::int64_t>> offsets(static_cast<std::size_t>(ranks));
  std::int64_t g = 0; // rank q's first item in global order
  for (int q = 0; q < ranks; ++q) {
    for (int j = 0; j < ranks; ++j) {
      const std::int64_t b = even_shard(total, ranks, j).begin - g;
      offsets[q].push_back(std::min(std::max(b, std::int64_t{0}), counts[q]));
    }
    offsets[q].push_back(counts[q]);
    g += counts[q];
  }
  return plan_exchange(offsets, rank);
}

} // namespace detail
} // namespace dist
} // namespace carry
