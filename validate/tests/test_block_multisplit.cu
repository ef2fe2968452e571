// GPU tests: the engine's block multisplit alone (one block ranks one tile), every tile_fill form,
// rank_by, rank_early_by and rank_early_place_by, the sort's peer and count methods and the others,
// blocks of one thread a digit and of more threads than digits, against a CPU stable rank.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include <carry/scan/block/multisplit.cuh>

#include "tests/common/gpu.cuh"

using namespace carry_validate;
using carry::block::count_method;
using carry::block::peer_method;
using carry::block::tile_fill;

namespace {

constexpr int bits = 8, radix = 1 << bits;

/// One block ranks the tile's first `valid` digits (tile index order: the multisplit's warp-striped
/// items); writes each live item's position, and per digit its start and count (from start()/count()
/// after rank_by, or from on_counts with rank_early_by). Dead items' digits are never read: the
/// kernel gives them 0, which would move every position if a form ranked them as live. MODE: 0 rank_by,
/// 1 rank_early_by, 2 rank_early_place_by (positions written by `place`; a dead item placed below
/// `valid` counts in *dead_low). THREADS: the block (threads d < radix own digit d).
template <int ITEMS, peer_method P, count_method C, tile_fill F, int MODE, int THREADS>
__global__ void __launch_bounds__(THREADS)
    multisplit_kernel(const unsigned* digits, int valid, int* positions, int* starts, int* counts,
                      int* dead_low) {
  using ms = carry::block::multisplit<THREADS, ITEMS, bits, P, C>;
  __shared__ typename ms::temp_storage ts;
  unsigned d[ITEMS];
  int pos[ITEMS];
  for (int j = 0; j < ITEMS; ++j) {
    const int i = ms::item_index(j);
    d[j] = i < valid ? digits[i] : 0u;
  }
  const auto digit_at = [&](int j) { return d[j]; };
  const int dd = threadIdx.x;
  if constexpr (MODE == 2) {
    ms::template rank_early_place_by<F>(
        ts, digit_at, valid, [&](int s, int c) { starts[dd] = s, counts[dd] = c; },
        [&](int j, int p) {
          const int i = ms::item_index(j);
          if (i < valid)
            positions[i] = p;
          else if (p < valid)
            atomicAdd(dead_low, 1);
        });
  } else if constexpr (MODE == 1) {
    ms::template rank_early_by<F>(ts, digit_at, valid, pos,
                                  [&](int s, int c) { starts[dd] = s, counts[dd] = c; });
  } else {
    ms::template rank_by<F>(ts, digit_at, valid, pos);
    if (dd < radix) starts[dd] = ms::start(ts, dd), counts[dd] = ms::count(ts, dd, valid);
  }
  if constexpr (MODE != 2) // placed: written in the rounds
    for (int j = 0; j < ITEMS; ++j) {
      const int i = ms::item_index(j);
      if (i < valid) positions[i] = pos[j];
    }
}

// runs: runs of 1000 items a digit (many warps hold one digit: multisplit_tuning::uniform_warps; others
// straddle two runs)
enum class digits_kind { uniform, one_digit, last_digit, few, runs };

std::vector<unsigned> make_digits(int n, digits_kind k, std::uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<unsigned> v(static_cast<std::size_t>(n));
  int index = 0;
  for (auto& x : v) {
    const int i = index++;
    switch (k) {
    case digits_kind::runs:
      x = static_cast<unsigned>(i / 1000 * 37 + 5) % radix;
      break;
    case digits_kind::uniform:
      x = g() % radix;
      break;
    case digits_kind::one_digit:
      x = 17;
      break;
    case digits_kind::last_digit:
      x = radix - 1;
      break; // the padded form's dead items' digit
    case digits_kind::few:
      x = (g() % 3 == 0) ? radix - 1 : (g() % 2 ? 0u : 128u);
      break;
    }
  }
  return v;
}

/// Ranks the first `valid` items of one tile on the GPU and checks positions, starts and counts against
/// a CPU stable rank; outputs poisoned first.
template <int ITEMS, peer_method P, count_method C, tile_fill F, int MODE, int THREADS>
void check_rank(int valid, digits_kind kind, std::uint32_t seed) {
  constexpr int tile = THREADS * ITEMS;
  const auto digits = make_digits(valid, kind, seed);
  // ---- CPU: counts, starts, stable positions ----
  std::vector<int> count(radix, 0), start(radix, 0), want(static_cast<std::size_t>(valid));
  for (unsigned d : digits) ++count[d];
  for (int d = 1; d < radix; ++d) start[d] = start[d - 1] + count[d - 1];
  std::vector<int> next = start;
  for (int i = 0; i < valid; ++i)
    want[static_cast<std::size_t>(i)] = next[digits[static_cast<std::size_t>(i)]]++;
  // ---- GPU ----
  device_buffer<unsigned> d_digits(static_cast<std::size_t>(tile));
  device_buffer<int> d_pos(static_cast<std::size_t>(tile), 1), d_start(radix, 1), d_count(radix, 1);
  device_buffer<int> d_dead_low(1);
  d_dead_low.upload(std::vector<int>{0});
  d_digits.upload(digits); // poisons first: dead items' digits are 0xA5A5A5A5 (never read)
  d_pos.poison(), d_start.poison(), d_count.poison();
  multisplit_kernel<ITEMS, P, C, F, MODE, THREADS>
      <<<1, THREADS>>>(d_digits.ptr, valid, d_pos.ptr, d_start.ptr, d_count.ptr, d_dead_low.ptr);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto pos = d_pos.download(static_cast<std::size_t>(valid));
  const auto got_start = d_start.download(radix), got_count = d_count.download(radix);
  int wrong = 0, wrong_start = 0, wrong_count = 0;
  for (int i = 0; i < valid; ++i)
    wrong += pos[static_cast<std::size_t>(i)] != want[static_cast<std::size_t>(i)];
  for (int d = 0; d < radix; ++d) {
    wrong_start += got_start[static_cast<std::size_t>(d)] != start[static_cast<std::size_t>(d)];
    wrong_count += got_count[static_cast<std::size_t>(d)] != count[static_cast<std::size_t>(d)];
  }
  INFO(THREADS << " threads, " << ITEMS << " items, peers " << static_cast<int>(P) << ", counts "
               << static_cast<int>(C) << ", fill " << static_cast<int>(F)
               << (MODE == 2   ? ", placed"
                   : MODE == 1 ? ", early"
                               : ", late")
               << ", valid " << valid << " of " << tile << ", digits " << static_cast<int>(kind));
  CHECK(wrong == 0);
  CHECK(wrong_start == 0);
  CHECK(wrong_count == 0);
  CHECK(d_pos.guard_intact());
  CHECK(d_dead_low.download(1)[0] == 0);
}

/// Every digit distribution, for the valid counts a form allows (whole: only the full tile).
template <int ITEMS, peer_method P, count_method C, tile_fill F, int MODE, int THREADS = 256>
void check_form() {
  constexpr int tile = THREADS * ITEMS;
  std::vector<int> valids{tile};
  if (F != tile_fill::whole) valids.insert(valids.end(), {1, 31, 33, tile - 1, tile / 2 + 7});
  std::uint32_t seed = 1;
  for (int v : valids)
    for (digits_kind k : {digits_kind::uniform, digits_kind::one_digit, digits_kind::last_digit,
                          digits_kind::few, digits_kind::runs})
      check_rank<ITEMS, P, C, F, MODE, THREADS>(v, k, seed++);
}

constexpr auto atomic_or = peer_method::atomic_or;
constexpr auto leader = count_method::leader_atomic;

} // namespace

TEST_CASE(
    "multisplit: the radix pass's form (atomic_or peers, leader counts, 24 items), every fill, early and late",
    "[gpu][block]") {
  check_form<24, atomic_or, leader, tile_fill::checked, 0>();
  check_form<24, atomic_or, leader, tile_fill::whole, 0>();
  check_form<24, atomic_or, leader, tile_fill::padded, 0>();
  check_form<24, atomic_or, leader, tile_fill::checked, 1>();
  check_form<24, atomic_or, leader, tile_fill::whole, 1>();
  check_form<24, atomic_or, leader, tile_fill::padded, 1>();
}

TEST_CASE("multisplit: positions placed in the ranking rounds (rank_early_place_by), every fill",
          "[gpu][block]") {
  check_form<24, atomic_or, leader, tile_fill::checked, 2>();
  check_form<24, atomic_or, leader, tile_fill::whole, 2>();
  check_form<24, atomic_or, leader, tile_fill::padded, 2>();
  check_form<4, peer_method::match_any, count_method::load_store, tile_fill::padded, 2>();
}

TEST_CASE("multisplit: the other peer and count methods (4 items)", "[gpu][block]") {
  check_form<4, peer_method::match_any, count_method::load_store, tile_fill::checked, 0>();
  check_form<4, peer_method::ballot, count_method::load_store, tile_fill::padded, 0>();
  check_form<4, peer_method::match_any, leader, tile_fill::padded, 1>();
  check_form<4, atomic_or, count_method::load_store, tile_fill::checked, 1>();
}

TEST_CASE("multisplit: blocks of more threads than digits (384 and 512), every fill, early, placed and late",
          "[gpu][block]") {
  check_form<20, atomic_or, leader, tile_fill::checked, 1, 384>();
  check_form<20, atomic_or, leader, tile_fill::whole, 1, 384>();
  check_form<20, atomic_or, leader, tile_fill::padded, 1, 384>();
  check_form<15, atomic_or, leader, tile_fill::padded, 2, 384>();
  check_form<15, atomic_or, leader, tile_fill::checked, 0, 384>();
  check_form<4, peer_method::ballot, leader, tile_fill::padded, 1, 512>();
  check_form<4, atomic_or, count_method::load_store, tile_fill::checked, 1, 512>();
}
