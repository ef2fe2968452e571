// Host planning of the distributed sort: splitters from the all-gathered samples, and the exchange's
// counts and displacements from every rank's bucket offsets. Host code, CPU-tested.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "plan.hpp"

namespace carry {
namespace dist {
namespace detail {

/// The ranks - 1 splitters: the samples ordered by (image, index), splitter j the first at which the
/// samples' weights (the items each stands for) reach j / ranks of their sum, so shards of different
/// sizes weigh as many items as they hold. Every rank computes the same ones from the same samples.
inline std::vector<sort_sample> choose_splitters(std::vector<sort_sample> samples, int ranks) {
  std::sort(samples.begin(), samples.end(), [](const sort_sample& a, const sort_sample& b) { return before(a, b); });
  double total = 0;
  for (const auto& x : samples) total += x.weight;
  std::vector<sort_sample> out;
  double seen = 0;
  std::size_t at = 0;
  for (int j = 1; j < ranks; ++j) {
    const double target = total * j / ranks;
    while (at < samples.size() && seen + samples[at].weight <= target) seen += samples[at++].weight;
    if (at < samples.size())
      out.push_back(samples[at]);
    else
      out.push_back(sort_sample{~std::uint64_t{0}, INT64_MAX, 0}); // nothing left: nothing past it
  }
  return out;
}

/// Rank `rank`'s side of the exchange from every rank's num_ranks + 1 bucket offsets (offsets[q][j]: where
/// rank q's items for rank j start in its partitioned shard).
struct exchange_plan {
  std::vector<std::int64_t> send_count, send_at; // to each rank: how many, from where
  std::vector<std::int64_t> recv_count, recv_at; // from each rank: how many, to where
  std::int64_t received = 0;                      // this rank's output count
  std::int64_t out_offset = 0;                    // where it starts in global order
  std::int64_t most_received = 0;                 // the largest output count of any rank
};
inline exchange_plan plan_exchange(const std::vector<std::vector<std::int64_t>>& offsets, int rank) {
  const int ranks = static_cast<int>(offsets.size());
  exchange_plan e;
  e.send_count.resize(ranks);
  e.send_at.resize(ranks);
  e.recv_count.resize(ranks);
  e.recv_at.resize(ranks);
  for (int j = 0; j < ranks; ++j) {
    e.send_at[j] = offsets[rank][j];
    e.send_count[j] = offsets[rank][j + 1] - offsets[rank][j];
  }
  for (int q = 0; q < ranks; ++q) {
    e.recv_at[q] = e.received;
    e.recv_count[q] = offsets[q][rank + 1] - offsets[q][rank];
    e.received += e.recv_count[q];
  }
  for (int j = 0; j < ranks; ++j) {
    std::int64_t got = 0;
    for (int q = 0; q < ranks; ++q) got += offsets[q][j + 1] - offsets[q][j];
    if (j < rank) e.out_offset += got;
    e.most_received = std::max(e.most_received, got);
  }
  return e;
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
