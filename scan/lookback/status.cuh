// Status words of the decoupled look-back, as formats a module picks: tagged 16-byte words, flag + slots,
// packed 32-bit counts; and the (tile, chain) view that a vector look-back (one chain per digit) reads.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda/atomic>

#include "../util/config.hpp"
#include "words.hpp"

namespace carry {
namespace lookback {

__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// ---- formats: each has `value_type`, `word_bytes` (the bytes of one status word), `bind(void*)`, and
// the device calls publish(index, state, value) and read(index, state&, value&) ----

/// T of up to 8 bytes: one 16-byte word (value bits, state), written and read whole (as CUB does).
template <class T>
struct tagged_words {
  static_assert(sizeof(T) <= 8, "carry: tagged_words holds values of up to 8 bytes");
  using value_type = T;
  static constexpr std::size_t word_bytes = 16;
  std::uint64_t* words = nullptr; // pairs: value bits, state
  CARRY_HD static tagged_words bind(void* p) { return {static_cast<std::uint64_t*>(p)}; }

  __device__ void publish(std::int64_t i, unsigned state, const T& v) const {
    std::uint64_t bits = 0;
    memcpy(&bits, &v, sizeof(T));
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + 2 * i), "l"(bits),
                 "l"(std::uint64_t{state})
                 : "memory");
  }
  __device__ void read(std::int64_t i, unsigned& state, T& v) const {
    std::uint64_t bits, tag;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(bits), "=l"(tag)
                 : "l"(words + 2 * i)
                 : "memory");
    state = state_of_field(tag);
    memcpy(&v, &bits, sizeof(T));
  }
};

/// Any trivially copyable T: a 32-bit flag per word (release/acquire) and two value slots (aggregate,
/// inclusive prefix), each written before its flag.
template <class T>
struct flagged_words {
  using value_type = T;
  static constexpr int value_words = (sizeof(T) + 3) / 4;
  static constexpr std::size_t word_bytes = 4 + 8 * value_words; // flag, aggregate, prefix
  unsigned* base = nullptr;
  CARRY_HD static flagged_words bind(void* p) { return {static_cast<unsigned*>(p)}; }

  /// Word i: [flag | aggregate | inclusive prefix], 32-bit words.
  __device__ unsigned* word(std::int64_t i) const { return base + i * (word_bytes / 4); }

  __device__ void publish(std::int64_t i, unsigned state, const T& v) const {
    unsigned w[value_words] = {};
    memcpy(w, &v, sizeof(T));
    unsigned* s = word(i) + 1 + (state == state_prefix ? value_words : 0);
    CARRY_UNROLL
    for (int k = 0; k < value_words; ++k) s[k] = w[k];
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*word(i));
    f.store(state, cuda::memory_order_release); // the value is visible first
  }
  __device__ void read(std::int64_t i, unsigned& state, T& v) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*word(i));
    const unsigned s = f.load(cuda::memory_order_acquire);
    state = state_of_field(s);
    if (state == state_invalid) return;
    const unsigned* src = word(i) + 1 + (state == state_prefix ? value_words : 0);
    unsigned w[value_words];
    CARRY_UNROLL
    for (int k = 0; k < value_words; ++k) w[k] = load_relaxed(src + k);
    memcpy(&v, w, sizeof(T));
  }
};

/// Onesweep's format: one 32-bit word per (tile, chain), the state in the top 2 bits and a count of up
/// to 2^30 - 1 below (words.hpp), written and read with one relaxed 32-bit access. 4 bytes a word instead
/// of 16, so a look-back over 256 chains per tile moves a quarter of the bytes.
struct packed_counts {
  using value_type = std::uint32_t;
  static constexpr std::size_t word_bytes = 4;
  unsigned* words = nullptr;
  CARRY_HD static packed_counts bind(void* p) { return {static_cast<unsigned*>(p)}; }

  __device__ void publish(std::int64_t i, unsigned state, std::uint32_t count) const {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(words + i), "r"(packed_word(state, count))
                 : "memory");
  }
  __device__ void read(std::int64_t i, unsigned& state, std::uint32_t& count) const {
    const unsigned w = load_relaxed(words + i);
    state = packed_state(w);
    count = packed_count(w);
  }
};

/// The status format the scan engine uses for T: tagged 16-byte words up to 8 bytes, else flag + slots.
template <class T>
using default_format = std::conditional_t<(sizeof(T) <= 8), tagged_words<T>, flagged_words<T>>;

/// Status words seen as (tile, chain) (chain_index, words.hpp).
template <class Format>
struct chain_view {
  Format words;
  int chains = 1;
  __device__ void publish(std::int64_t tile, int chain, unsigned state,
                          const typename Format::value_type& v) const {
    words.publish(chain_index(tile, chain, chains), state, v);
  }
  __device__ void read(std::int64_t tile, int chain, unsigned& state, typename Format::value_type& v) const {
    words.read(chain_index(tile, chain, chains), state, v);
  }
};

} // namespace lookback
} // namespace carry
