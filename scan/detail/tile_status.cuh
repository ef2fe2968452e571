// Single-pass scan state in temp storage: per-tile status words tagged with the call's epoch, and the ticket.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda/atomic>

#include "plan.hpp"

namespace carry {
namespace detail {

__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// Hands out tiles in the order blocks start, so a tile's predecessors are always running or done and
/// forward progress never depends on the scheduler. The counter carries the epoch's low 32 bits. Fast
/// path: one atomicAdd on a word of this epoch. The first block of a call finds a word of another epoch
/// and replaces it with (epoch, 1), taking ticket 0; blocks that raced it retry. (A word left by an
/// earlier call holds a count below 2^31, so the few increments that race the replacement cannot carry
/// into its epoch half.)
__device__ __forceinline__ std::uint32_t take_ticket(std::uint64_t* counter, epoch_t epoch) {
  unsigned long long* c = reinterpret_cast<unsigned long long*>(counter);
  const std::uint32_t e = ticket_epoch(epoch);
  unsigned long long old = atomicAdd(c, 1ull);
  if (counter_epoch(old) == e) return counter_count(old);
  unsigned long long cur = old + 1;
  while (true) {
    unsigned long long prev = atomicCAS(c, cur, counter_word(e, 1));
    if (prev == cur) return 0;
    if (counter_epoch(prev) == e) return counter_count(atomicAdd(c, 1ull));
    cur = prev;
  }
}

/// take_ticket for a call that hands out `tickets` tickets; the holder of the last one re-arms the
/// counter for the call that follows with the next epoch (following_epoch: the next call's, when calls
/// come one after another), so that call's blocks all take the one-atomicAdd fast path instead of
/// racing to replace a stale word (NOTES.md step 23). By then every ticket of this call has been handed
/// out: a block still in the replacement loop holds none, so the last count cannot have gone out yet.
/// If the next call on this storage has another epoch, it replaces the word as before.
__device__ __forceinline__ std::uint32_t take_ticket(std::uint64_t* counter, epoch_t epoch,
                                                     std::int64_t tickets) {
  const std::uint32_t t = take_ticket(counter, epoch);
  if (static_cast<std::int64_t>(t) == tickets - 1)
    atomicExch(reinterpret_cast<unsigned long long*>(counter),
               counter_word(ticket_epoch(following_epoch(epoch)), 0));
  return t;
}

/// The calling block's tile: thread 0 takes a ticket into `slot` (shared memory), every thread reads it.
__device__ __forceinline__ std::int64_t block_ticket(std::uint32_t& slot, std::uint64_t* counter,
                                                     epoch_t epoch, std::int64_t num_tiles) {
  if (threadIdx.x == 0) slot = take_ticket(counter, epoch, num_tiles);
  __syncthreads();
  return slot;
}

/// How a tile's (state, value) is stored: for T of up to 8 bytes one 128-bit word (value bits, 64-bit
/// tag), written and read whole as CUB does; for larger T a 64-bit flag with release/acquire and two
/// value slots (aggregate, inclusive prefix), each written before its flag.
template <class T>
constexpr int status_kind() {
  return sizeof(T) <= 8 ? 1 : 2;
}

template <class T, int KIND = status_kind<T>()>
struct tile_status;

template <class T>
struct tile_status<T, 1> {
  std::uint64_t* words; // pairs: value bits, tag
  static void sizes(std::int64_t tiles, std::size_t (&b)[3]) { b[0] = tiles * 16, b[1] = 0, b[2] = 0; }
  CARRY_HD static tile_status carve(void* const (&p)[3]) { return {static_cast<std::uint64_t*>(p[0])}; }

  __device__ void publish(std::int64_t tile, unsigned state, const T& v, epoch_t epoch) const {
    std::uint64_t bits = 0;
    memcpy(&bits, &v, sizeof(T));
    const std::uint64_t tag = status_tag(epoch, state);
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + 2 * tile), "l"(bits), "l"(tag)
                 : "memory");
  }
  __device__ void read(std::int64_t tile, epoch_t epoch, unsigned& state, T& v) const {
    std::uint64_t bits, tag;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(bits), "=l"(tag)
                 : "l"(words + 2 * tile)
                 : "memory");
    state = tag_state(tag, epoch);
    memcpy(&v, &bits, sizeof(T));
  }
};

template <class T>
struct tile_status<T, 2> {
  static constexpr int words_per_value = (sizeof(T) + 3) / 4;
  std::uint64_t* flags;
  unsigned* aggregates; // words_per_value words per tile
  unsigned* prefixes;
  static void sizes(std::int64_t tiles, std::size_t (&b)[3]) {
    b[0] = tiles * 8, b[1] = tiles * 4 * words_per_value, b[2] = b[1];
  }
  CARRY_HD static tile_status carve(void* const (&p)[3]) {
    return {static_cast<std::uint64_t*>(p[0]), static_cast<unsigned*>(p[1]), static_cast<unsigned*>(p[2])};
  }

  __device__ void publish(std::int64_t tile, unsigned state, const T& v, epoch_t epoch) const {
    unsigned w[words_per_value] = {};
    memcpy(w, &v, sizeof(T));
    unsigned* slot = (state == state_prefix ? prefixes : aggregates) + tile * words_per_value;
    CARRY_UNROLL
    for (int i = 0; i < words_per_value; ++i) slot[i] = w[i];
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> flag(
        *reinterpret_cast<unsigned long long*>(flags + tile));
    flag.store(status_tag(epoch, state), cuda::memory_order_release); // the value is visible first
  }
  __device__ void read(std::int64_t tile, epoch_t epoch, unsigned& state, T& v) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> flag(
        *reinterpret_cast<unsigned long long*>(flags + tile));
    state = tag_state(flag.load(cuda::memory_order_acquire), epoch);
    if (state == state_invalid) return;
    const unsigned* slot = (state == state_prefix ? prefixes : aggregates) + tile * words_per_value;
    unsigned w[words_per_value];
    CARRY_UNROLL
    for (int i = 0; i < words_per_value; ++i) w[i] = load_relaxed(slot + i);
    memcpy(&v, w, sizeof(T));
  }
};

/// Everything the single-pass scan keeps in temp storage. Fast mode keeps each tile's aggregate and
/// then its inclusive prefix in `status`; the canonical look-back keeps aggregates in `status` and the
/// inclusive prefix of each group's last tile in `prefixes`, one word per group of 32 tiles.
template <class T>
struct single_pass_state {
  std::uint64_t* counter;
  tile_status<T> status;
  tile_status<T> prefixes;
};

} // namespace detail
} // namespace carry
