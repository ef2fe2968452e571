// GPU tests: the look-back building blocks outside the scan: a vector look-back over many chains per tile
// (Onesweep's shape: 256 digit counts per tile) in packed 32-bit words and in tagged 16-byte words; the
// cluster mailbox; tile loads from any iterator.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include <carry/scan/detail/dispatch.cuh>
#include <carry/scan/tile/tile_io.cuh>
#include <carry/scan/lookback/cluster.cuh>
#include <carry/scan/lookback/look_back.cuh>
#include <carry/scan/lookback/prepare.cuh>
#include <carry/scan/lookback/state.cuh>
#include <carry/scan/lookback/ticket.cuh>

#include "tests/common/gpu.cuh"

using namespace carry_validate;
namespace lb = carry::lookback;

namespace {

/// The count of chain c in tile t (a hash: the CPU reference recomputes it).
__host__ __device__ std::uint32_t chain_count(std::int64_t t, int c) {
  std::uint64_t x = static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull +
                    static_cast<std::uint64_t>(c) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x % 1000);
}

struct add {
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a + b; }
};

/// One block per tile (by ticket), one thread per chain: publish the tile's count, resolve the chain's
/// exclusive prefix by look-back (WINDOW words a round trip), publish the inclusive prefix, write the
/// exclusive prefix out.
template <int WINDOW, class Format>
__global__ void chains_kernel(lb::single_pass_state<Format> state, std::uint32_t* out, std::int64_t tiles) {
  __shared__ std::uint32_t slot;
  const std::int64_t tile = lb::block_ticket(slot, state.counter);
  const int chain = static_cast<int>(threadIdx.x);
  const auto view = state.chain();
  const std::uint32_t mine = chain_count(tile, chain);
  std::uint32_t excl = 0;
  if (tile == 0) {
    view.publish(0, chain, lb::state_prefix, mine);
  } else {
    view.publish(tile, chain, lb::state_aggregate, mine);
    excl = lb::look_back_chain<0, WINDOW>(view, tile, chain, std::uint32_t{0}, add{});
    view.publish(tile, chain, lb::state_prefix, excl + mine);
  }
  out[tile * state.chains + chain] = excl;
  (void)tiles;
}

template <class Format, int WINDOW = 1>
void check_chains(std::int64_t tiles, int chains, int fill) {
  lb::temp_builder b;
  const lb::temp_part before = b.add(1000); // a module's own scratch ahead of the state
  const lb::state_parts parts = lb::add_state<Format>(b, tiles, chains, false);
  device_buffer<unsigned char> tmp(b.allocation());
  CARRY_CUDA_OR_DIE(cudaMemset(tmp.ptr, fill, b.allocation()));
  const auto state = lb::carve_state<Format>(tmp.ptr, parts, chains);
  device_buffer<std::uint32_t> out(static_cast<std::size_t>(tiles * chains));
  out.poison();
  cudaStream_t s;
  CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize()); // the fill and the poison (legacy stream) are done
  for (int rep = 0; rep < 3; ++rep) {         // again on its own leftovers
    REQUIRE(lb::launch_prepare(tmp.ptr, parts.cleared, s) == cudaSuccess);
    REQUIRE(lb::launch_prepared(chains_kernel<WINDOW, Format>, dim3(static_cast<unsigned>(tiles)),
                                dim3(chains), s, state, out.ptr, tiles) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    const auto got = out.download(static_cast<std::size_t>(tiles * chains));
    std::vector<std::uint32_t> run(chains, 0);
    std::size_t bad = 0;
    for (std::int64_t t = 0; t < tiles; ++t)
      for (int c = 0; c < chains; ++c) {
        if (got[t * chains + c] != run[c]) ++bad;
        run[c] += chain_count(t, c);
      }
    INFO("tiles " << tiles << ", chains " << chains << ", window " << WINDOW << ", fill " << fill
                  << ", repeat " << rep);
    CHECK(bad == 0);
  }
  // the module's part before the state was not touched by the prepare step
  std::vector<unsigned char> h(before.bytes);
  CARRY_CUDA_OR_DIE(
      cudaMemcpy(h.data(), before.as<unsigned char>(tmp.ptr), h.size(), cudaMemcpyDeviceToHost));
  CHECK(std::all_of(h.begin(), h.end(),
                    [&](unsigned char x) { return x == static_cast<unsigned char>(fill); }));
  cudaStreamDestroy(s);
}

} // namespace

TEST_CASE("multi-chain look-back: 256 chains per tile, packed 32-bit words, against the CPU",
          "[gpu][lookback]") {
  // 0xA5 and 0xFF fills: words whose state bits read 2 (prefix) or 3; only the prepare step makes them
  // invalid. Tiles from one to several waves of 256-thread blocks.
  for (int fill : {0x00, 0xA5, 0xFF})
    for (std::int64_t tiles : {1, 2, 33, 700, 5000}) check_chains<lb::packed_counts>(tiles, 256, fill);
}

TEST_CASE("multi-chain look-back: several words a round trip (windows 2, 4, 8)", "[gpu][lookback]") {
  // tiles 1 .. 9 cross every window's edge; 700 and 5000 run many blocks at once
  for (std::int64_t tiles : {1, 2, 3, 4, 5, 8, 9, 700, 5000}) {
    check_chains<lb::packed_counts, 2>(tiles, 256, 0xA5);
    check_chains<lb::packed_counts, 4>(tiles, 256, 0xFF);
    check_chains<lb::packed_counts, 8>(tiles, 256, 0x00);
  }
  check_chains<lb::tagged_words<std::uint32_t>, 4>(1000, 64, 0xA5);
}

TEST_CASE("multi-chain look-back: other chain counts and the tagged 16-byte format", "[gpu][lookback]") {
  for (int chains : {32, 64, 96})
    for (std::int64_t tiles : {3, 1000}) {
      check_chains<lb::packed_counts>(tiles, chains, 0xA5);
      check_chains<lb::tagged_words<std::uint32_t>>(tiles, chains, 0xA5);
    }
}

// ---- tile loads from any iterator, with the pad value as a parameter ----

namespace {

/// A counting iterator: item i is base + 3 i (read through operator[] only).
struct counting {
  std::uint32_t base;
  __host__ __device__ std::uint32_t operator[](std::int64_t i) const {
    return base + 3u * static_cast<std::uint32_t>(i);
  }
};

template <int THREADS, int ITEMS, bool TRANSPOSE, class It>
__global__ void tile_load_kernel(It in, int valid, std::uint32_t pad, bool vec, std::uint32_t* out) {
  using io = carry::detail::tile_io<std::uint32_t, THREADS, ITEMS, false, TRANSPOSE>;
  __shared__ typename io::temp_storage ts;
  std::uint32_t items[ITEMS];
  io::load(ts, in, valid, vec, items, THREADS * ITEMS, pad);
  for (int j = 0; j < ITEMS; ++j) out[threadIdx.x * ITEMS + j] = items[j];
}

template <int THREADS, int ITEMS, bool TRANSPOSE>
void check_tile_loads() {
  constexpr int tile = THREADS * ITEMS;
  device_buffer<std::uint32_t> out(tile), src(tile);
  std::vector<std::uint32_t> h(tile);
  for (int i = 0; i < tile; ++i) h[i] = 1000u + 3u * static_cast<std::uint32_t>(i);
  src.upload(h);
  for (int valid : {1, 7, tile / 2 + 5, tile - 1, tile}) {
    for (int from_pointer = 0; from_pointer < 2; ++from_pointer) {
      out.poison();
      if (from_pointer)
        tile_load_kernel<THREADS, ITEMS, TRANSPOSE>
            <<<1, THREADS>>>(static_cast<const std::uint32_t*>(src.ptr), valid, 0u, true, out.ptr);
      else
        tile_load_kernel<THREADS, ITEMS, TRANSPOSE>
            <<<1, THREADS>>>(counting{1000u}, valid, 0u, false, out.ptr);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      const auto got = out.download(tile);
      std::size_t bad = 0;
      for (int i = 0; i < tile; ++i) bad += got[i] != (i < valid ? h[i] : 0u);
      INFO("threads " << THREADS << " items " << ITEMS << " transpose " << TRANSPOSE << " valid " << valid
                      << " pointer " << from_pointer);
      CHECK(bad == 0);
    }
  }
}

/// The value thread i of block b sends in exchange e (a hash the host recomputes).
template <class T>
__host__ __device__ T mailbox_value(int b, int i, int e) {
  return static_cast<T>(chain_count(b * 131 + e, i) * 7u + static_cast<unsigned>(e));
}

/// A cluster of `blocks` blocks of 256 threads makes `exchanges` exchanges through the engine's mailbox,
/// each block checking every row of its inbox after each wait; bad[b] counts the wrong values block b
/// saw. The inbox starts dirty (0xFF) so that a value never sent cannot pass.
template <class T>
__global__ void __launch_bounds__(256) mailbox_kernel(int exchanges, unsigned* bad) {
  namespace cg = cooperative_groups;
  __shared__ alignas(16) T inbox[16][256];
  __shared__ std::uint64_t full;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), blocks = static_cast<int>(cluster.num_blocks());
  for (int r = 0; r < 16; ++r) inbox[r][threadIdx.x] = static_cast<T>(~T{0});
  const unsigned bytes = lb::mailbox_bytes<256, T>(blocks);
  __syncthreads(); // the dirty inbox written before any block's own row
  lb::mailbox_start(&full, bytes);
  lb::cluster_started();
  lb::cluster_wait(); // every block started (its barrier initialised)
  unsigned wrong = 0;
  for (int e = 0; e < exchanges; ++e) {
    lb::mailbox_send<256>(&inbox[0][0], &full, mailbox_value<T>(rank, static_cast<int>(threadIdx.x), e), rank,
                          blocks);
    lb::mailbox_wait(&full, static_cast<unsigned>(e) & 1u);
    for (int r = 0; r < blocks; ++r)
      wrong += inbox[r][threadIdx.x] != mailbox_value<T>(r, static_cast<int>(threadIdx.x), e);
    if (threadIdx.x == 0 && e + 1 < exchanges) lb::mailbox_expect(&full, bytes);
    cluster.sync(); // every inbox read before the next exchange's sends
  }
  if (wrong) atomicAdd(&bad[rank], wrong);
}

template <class T>
void check_mailbox() {
  struct mailbox_tag {};
  auto* kernel = mailbox_kernel<T>;
  const int limit = carry::detail::cluster_limit<mailbox_tag>(kernel, 256, 16, 0);
  if (limit < 2) WARN("no cluster of 2 blocks can be co-scheduled: the mailbox runs on one block only");
  device_buffer<unsigned> bad(16);
  for (int blocks : {1, 2, 3, 5, 8, 9, 13, 16}) {
    if (blocks > 1 && blocks > limit) continue;
    for (int exchanges : {1, 2, 7}) {
      REQUIRE(cudaMemset(bad.ptr, 0, 16 * sizeof(unsigned)) == cudaSuccess);
      REQUIRE(lb::launch_cluster(kernel, static_cast<unsigned>(blocks), 256, 0, nullptr, exchanges,
                                 bad.ptr) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      const auto got = bad.download(16);
      unsigned wrong = 0;
      for (unsigned w : got) wrong += w;
      INFO(sizeof(T) << "-byte values, " << blocks << " blocks, " << exchanges << " exchanges");
      CHECK(wrong == 0);
    }
  }
}

} // namespace

TEST_CASE("cluster mailbox: every block's row in every block, 1-16 blocks, repeated exchanges",
          "[gpu][lookback]") {
  check_mailbox<std::uint16_t>();
  check_mailbox<std::uint32_t>();
}

TEST_CASE("tile loads: a counting iterator and a pointer, partial tiles padded with 0", "[gpu][tile_io]") {
  check_tile_loads<128, 8, true>();
  check_tile_loads<128, 8, false>();
  check_tile_loads<64, 3, true>();
}
