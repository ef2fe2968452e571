// Support of the distributed tests: one local_group per rank count, shard layouts, per-rank buffers
// filled from a global array and read back in global order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <carry/apps/distributed.cuh>

#include "gpu.cuh"

namespace carry_validate {

/// The group of the first `ranks` GPUs (made once per process), or nullptr when fewer are visible.
inline carry::dist::local_group* dist_group(int ranks) {
  static std::map<int, std::unique_ptr<carry::dist::local_group>> groups;
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible < ranks) return nullptr;
  auto& g = groups[ranks];
  if (!g) {
    g = std::make_unique<carry::dist::local_group>();
    CARRY_CUDA_OR_DIE(carry::dist::local_group::create(ranks, *g));
  }
  return g.get();
}

/// The rank counts a test runs: 2, and 4 where four GPUs are visible.
inline std::vector<int> dist_rank_counts() {
  int visible = 0;
  CARRY_CUDA_OR_DIE(cudaGetDeviceCount(&visible));
  return visible >= 4 ? std::vector<int>{2, 4} : std::vector<int>{2};
}

/// Shard sizes of `total` items over `ranks`: even (remainder first), growing (rank r's share r + 1),
/// the first rank empty, everything on the last rank but one.
inline std::vector<std::vector<std::int64_t>> shard_layouts(std::int64_t total, int ranks) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> even(static_cast<std::size_t>(ranks)), grow(even.size()),
      first_empty(even.size()), one(even.size(), 0);
  for (int r = 0; r < ranks; ++r) {
    const auto s = carry::dist::detail::even_shard(total, ranks, r);
    even[static_cast<std::size_t>(r)] = s.end - s.begin;
  }
  const std::int64_t parts = std::int64_t{ranks} * (ranks + 1) / 2;
  std::int64_t left = total;
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t v = r == ranks - 1 ? left : total * (r + 1) / parts;
    grow[static_cast<std::size_t>(r)] = v;
    left -= v;
  }
  for (int r = 1; r < ranks; ++r) {
    const auto s = carry::dist::detail::even_shard(total, ranks - 1, r - 1);
    first_empty[static_cast<std::size_t>(r)] = s.end - s.begin;
  }
  one[static_cast<std::size_t>(ranks - 2)] = total;
  out = {even, grow, first_empty, one};
  return out;
}

/// Per-rank device buffers of one array: rank r's shard [offset(r), offset(r) + size(r)) of a global
/// vector, allocated on the rank's device (from its thread), with `guard` poisoned items after each.
template <class T>
struct sharded {
  std::vector<std::int64_t> sizes, offsets;
  std::vector<std::unique_ptr<device_buffer<T>>> bufs;
  explicit sharded(const std::vector<std::int64_t>& s) : sizes(s), offsets(s.size(), 0), bufs(s.size()) {
    for (std::size_t r = 1; r < s.size(); ++r) offsets[r] = offsets[r - 1] + s[r - 1];
  }
  /// Called on rank r's thread: allocates its buffer (poisoned) and uploads its part of `all` (if given).
  void make(int r, const std::vector<T>* all = nullptr, std::size_t guard = 8) {
    const auto n = static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]);
    bufs[static_cast<std::size_t>(r)] = std::make_unique<device_buffer<T>>(n, guard);
    auto& b = *bufs[static_cast<std::size_t>(r)];
    b.poison();
    if (all != nullptr && n > 0)
      CARRY_CUDA_OR_DIE(cudaMemcpy(b.ptr, all->data() + offsets[static_cast<std::size_t>(r)], n * sizeof(T),
                                   cudaMemcpyHostToDevice));
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize()); // done before the rank's non-blocking stream reads it
  }
  T* ptr(int r) const { return bufs[static_cast<std::size_t>(r)]->ptr; }
  std::int64_t size(int r) const { return sizes[static_cast<std::size_t>(r)]; }
  /// Every rank's first `counts[r]` items (default: its size), in rank order.
  std::vector<T> gather(const std::vector<std::int64_t>* counts = nullptr) const {
    std::vector<T> out;
    for (std::size_t r = 0; r < bufs.size(); ++r) {
      const auto part = bufs[r]->download(static_cast<std::size_t>(counts ? (*counts)[r] : sizes[r]));
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  bool guards_intact() const {
    for (const auto& b : bufs)
      if (!b->guard_intact()) return false;
    return true;
  }
};

/// Rank r's temp storage for a call: size query, then a dirty allocation (every byte 0xA5).
template <class Call>
cudaError_t with_dirty_temp(std::unique_ptr<device_buffer<unsigned char>>& temp, Call call) {
  std::size_t bytes = 0;
  if (const cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  temp = std::make_unique<device_buffer<unsigned char>>(bytes);
  temp->poison();
  // the poison and the caller's uploads (legacy stream, maybe still in flight) done before the rank's
  // non-blocking stream runs the call
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
  return call(temp->ptr, bytes);
}

} // namespace carry_validate
