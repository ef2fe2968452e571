// CPU tests: tile planning, temp-storage layout, argument checks, status words, pass choice, operator
// traits and the seeds' tree schedules run serially with the very node functions the kernels use.
#define CATCH_CONFIG_MAIN
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include <carry/scan/detail/pass_choice.hpp>
#include <carry/scan/detail/plan.hpp>
#include <carry/scan/detail/tree.hpp>
#include <carry/scan/operators.hpp>
#include <carry/scan/tuning.hpp>

#include "common/reference.hpp"

using namespace carry;
using namespace carry::detail;
using carry_validate::affine;
using carry_validate::compose_affine;

TEST_CASE("seed examples through the CPU reference", "[cpu][reference]") {
  std::vector<int> x{3, 1, 7, 0, 4, 1, 6, 3};
  CHECK(carry_validate::reference_inclusive(x, sum{}) == std::vector<int>{3, 4, 11, 11, 15, 16, 22, 25});
  CHECK(carry_validate::reference_exclusive(x, 0, sum{}) == std::vector<int>{0, 3, 4, 11, 11, 15, 16, 22});
  std::vector<int> sandwich{3, 5, 2, 7, 28, 4, 3, 0, 8, 1};
  auto cuts = carry_validate::reference_inclusive(sandwich, sum{});
  CHECK(cuts == std::vector<int>{3, 8, 10, 17, 45, 49, 52, 52, 60, 61});
  CHECK(100 - cuts.back() == 39);
}

TEST_CASE("operators keep operand order", "[cpu][operators]") {
  CHECK(sum{}(2, 3) == 5);
  CHECK(maximum{}(2.0f, 3.0f) == 3.0f);
  CHECK(minimum{}(2, 3) == 2);
  compose_affine c;
  affine f{3, 1}, g{5, 4}; // f(x) = 3x+1, g(x) = 5x+4; g(f(x)) = 15x + 9, f(g(x)) = 15x + 13
  CHECK(c(f, g) == affine{15, 9});
  CHECK(c(g, f) == affine{15, 13});
  CHECK(!(c(f, g) == c(g, f)));
}

TEST_CASE("tile planning", "[cpu][plan]") {
  auto p = plan_tiles(0, 4096);
  CHECK(p.num_tiles == 0);
  p = plan_tiles(1, 4096);
  CHECK(p.num_tiles == 1);
  CHECK(p.valid_items(0) == 1);
  p = plan_tiles(4096, 4096);
  CHECK(p.num_tiles == 1);
  CHECK(p.valid_items(0) == 4096);
  p = plan_tiles(4097, 4096);
  CHECK(p.num_tiles == 2);
  CHECK(p.valid_items(1) == 1);
  p = plan_tiles((std::int64_t{1} << 31) + 123, 16384);
  CHECK(p.num_tiles == 131073);
  CHECK(p.valid_items(131072) == 123);
  CHECK(p.tile_base(131072) == (std::int64_t{1} << 31));
  CHECK(next_pow2(1) == 1);
  CHECK(next_pow2(65) == 128);
  CHECK(next_pow2(1024) == 1024);
}

TEST_CASE("temp-storage layout carves aligned, disjoint arrays inside the total", "[cpu][plan]") {
  std::size_t parts[3] = {8, 1000, 0};
  temp_layout<3> t(parts);
  CHECK(t.offset[0] == 0);
  CHECK(t.offset[1] == 256);
  CHECK(t.offset[2] == 256 + 1024);
  for (std::uintptr_t base : {std::uintptr_t{4096}, std::uintptr_t{4097}, std::uintptr_t{4351}}) {
    void* b = reinterpret_cast<void*>(base);
    for (int i = 0; i < 3; ++i) {
      auto p = reinterpret_cast<std::uintptr_t>(t.carve(b, i));
      CHECK(p % temp_alignment == 0);
      CHECK(p + parts[i] <= base + t.total);
    }
  }
  std::size_t none[1] = {0};
  CHECK(temp_layout<1>(none).total == 1); // never zero bytes
}

TEST_CASE("argument checks", "[cpu][plan]") {
  int x = 0;
  CHECK(check_args(&x, &x, 10, 100, 100, 1) == arg_error::none);
  CHECK(check_args(&x, &x, -1, 100, 100, 1) == arg_error::negative_count);
  CHECK(check_args(nullptr, nullptr, 0, 0, 100, 0) == arg_error::none); // n == 0: nothing to do
  CHECK(check_args(nullptr, &x, 10, 100, 100, 1) == arg_error::null_input);
  CHECK(check_args(&x, nullptr, 10, 100, 100, 1) == arg_error::null_output);
  CHECK(check_args(&x, &x, 10, 99, 100, 1) == arg_error::temp_too_small);
  CHECK(check_args(&x, &x, 10, 100, 100, max_tiles + 1) == arg_error::too_many_tiles);
}

TEST_CASE("status tags and the ticket counter carry the epoch", "[cpu][status]") {
  const epoch_t e = (epoch_t{0x12345678} << 32) | 0x9abcdef0u;
  CHECK(tag_state(status_tag(e, state_aggregate), e) == state_aggregate);
  CHECK(tag_state(status_tag(e, state_prefix), e) == state_prefix);
  CHECK(tag_state(status_tag(e, state_prefix), following_epoch(e)) == state_invalid); // another call's word
  CHECK(tag_state(0, e) == state_invalid);                                            // zeroed memory
  CHECK(tag_state(0xA5A5A5A5A5A5A5A5ull, e) == state_invalid);                        // poisoned memory
  // a tag from an epoch that agrees in the low 32 bits only is still another epoch
  CHECK(tag_state(status_tag(e ^ (epoch_t{1} << 40), state_prefix), e) == state_invalid);
  CHECK(following_epoch(1) == 2);
  CHECK(following_epoch(epoch_mask) == 1);                       // wraps past 0
  CHECK(following_epoch(0xffffffffu) == (epoch_t{1} << 32) + 1); // low half 0 is skipped
  for (epoch_t x : {epoch_t{0}, epoch_t{5}, epoch_t{0xffffffffu}, epoch_mask - 1, epoch_mask}) {
    const epoch_t n = following_epoch(x);
    CHECK(n != 0);
    CHECK(ticket_epoch(n) != 0);
    CHECK(n <= epoch_mask);
  }
  auto w = counter_word(ticket_epoch(e), 7);
  CHECK(counter_epoch(w) == 0x9abcdef0u);
  CHECK(counter_count(w) == 7);
  CHECK(counter_count(w + 1) == 8);
}

TEST_CASE("pass choice", "[cpu][plan]") {
  scan_options h{scan_algorithm::hierarchical, false}, s{scan_algorithm::single_pass, false}, a{};
  scan_options d{scan_algorithm::single_pass, true};
  CHECK(choose_family(100, h, true) == tile_family::hierarchical); // the small tiles are single-pass only
  CHECK(choose_family(100, s, true) == tile_family::small);
  CHECK(choose_family(100, s, false) == tile_family::single_pass);
  CHECK(choose_family(100, h, false) == tile_family::hierarchical);
  CHECK(choose_family(tuning::small_n_max, s, true) == tile_family::small);
  CHECK(choose_family(tuning::small_n_max + 1, s, true) == tile_family::single_pass);
  CHECK(choose_family(tuning::small_n_max + 1, h, true) == tile_family::hierarchical);
  CHECK(choose_pass(0, h, 4096) == pass_kind::empty);
  CHECK(choose_pass(4096, h, 4096) == pass_kind::single_tile);
  CHECK(choose_pass(4097, h, 4096) == pass_kind::hierarchical);
  CHECK(choose_pass(4097, s, 4096) == pass_kind::single_pass);
  CHECK(choose_pass(8192, s, 8192) == pass_kind::single_tile);
  const std::int64_t big =
      std::max<std::int64_t>(tuning::auto_single_pass_from, tuning::small_n_max) + 100000;
  CHECK(choose_pass(big, a, 4096) == pass_kind::single_pass);
  // the canonical look-back: in deterministic mode only
  CHECK(canonical_look_back(d));
  CHECK_FALSE(canonical_look_back(s));
  CHECK_FALSE(canonical_look_back(a));
}

TEST_CASE("published aggregates: init goes into tile 0's, for exclusive scans only", "[cpu][plan]") {
  // string concatenation: not commutative, so the order of init shows
  struct cat {
    std::string operator()(const std::string& a, const std::string& b) const { return a + b; }
  };
  const std::string init = "i", a = "a";
  CHECK(published_aggregate<true>(a, 0, cat{}, init) == "ia");
  CHECK(published_aggregate<true>(a, 1, cat{}, init) == "a");
  CHECK(published_aggregate<false>(a, 0, cat{}, init) == "a");
  CHECK(published_aggregate<true>(2.5f, 0, carry::sum{}, 0.5f) == 3.0f);
}

TEST_CASE("staged prefetch: which blocks guess their tile", "[cpu][plan]") {
  // 2048 tiles, 792 resident (132 SMs x 6): mode 2 prefetches as mode 1 does
  for (int mode : {1, 2}) {
    CHECK(prefetch_guessed_tile(mode, 0, 2048, 792, true));
    CHECK(prefetch_guessed_tile(mode, 2046, 2048, 792, true));
    CHECK_FALSE(prefetch_guessed_tile(mode, 2047, 2048, 792, true)); // the last tile may be partial
    CHECK_FALSE(prefetch_guessed_tile(mode, 5, 2048, 792, false));   // unaligned input: element loads
  }
  CHECK_FALSE(prefetch_guessed_tile(0, 5, 2048, 792, true));
  // one wave (512 tiles) or exactly one: only mode 1
  CHECK(prefetch_guessed_tile(1, 5, 512, 792, true));
  CHECK_FALSE(prefetch_guessed_tile(2, 5, 512, 792, true));
  CHECK_FALSE(prefetch_guessed_tile(2, 5, 792, 792, true));
  CHECK(prefetch_guessed_tile(2, 5, 793, 792, true));
  CHECK_FALSE(prefetch_guessed_tile(1, 0, 1, 792, true)); // one tile: nothing to guess
}

TEST_CASE("small-input planning", "[cpu][plan]") {
  // up to gather_tiles tiles gather aggregates, more look back; overlapping arrays always look back
  using sm = small_mode;
  CHECK(choose_small_mode(1, 16, false, false) == sm::one_tile);
  CHECK(choose_small_mode(1, 16, true, true) == sm::one_tile);
  CHECK(choose_small_mode(2, 16, false, false) == sm::gather);
  CHECK(choose_small_mode(4, 16, false, true) == sm::gather);
  CHECK(choose_small_mode(16, 16, false, true) == sm::gather);
  CHECK(choose_small_mode(17, 16, false, false) == sm::look_back);
  CHECK(choose_small_mode(17, 16, false, true) == sm::look_back_canonical);
  CHECK(choose_small_mode(3, 16, true, false) == sm::look_back); // overlap: only the look-back
  CHECK(choose_small_mode(9, 16, true, true) == sm::look_back_canonical);
  CHECK(choose_small_mode(2, 0, false, false) == sm::look_back);
  CHECK(choose_small_mode(2, 1, false, false) == sm::look_back); // gather off (gather_tiles < 2)
  CHECK(choose_small_mode(2, 2, false, false) == sm::gather);
  // a one-tile launch takes only the warps that hold items
  CHECK(small_tile_threads(1, 256, 256) == 32);
  CHECK(small_tile_threads(256, 256, 256) == 32);
  CHECK(small_tile_threads(257, 256, 256) == 64);
  CHECK(small_tile_threads(1024, 256, 256) == 128);
  CHECK(small_tile_threads(2048, 256, 256) == 256);
  CHECK(small_tile_threads(2048, 128, 256) == 128);
  // chunks: 16 bytes of T where T packs into 16 bytes, else one item
  CHECK(chunk_items<std::uint8_t>() == 16);
  CHECK(chunk_items<std::uint32_t>() == 4);
  CHECK(chunk_items<double>() == 2);
  CHECK(chunk_items<affine>() == 2);
  CHECK(chunk_items<carry_validate::mat2>() == 1);
  struct three {
    float a, b, c;
  };
  CHECK(chunk_items<three>() == 1);
  alignas(16) static std::uint32_t buf[8];
  CHECK(chunk_aligned<std::uint32_t>(buf));
  CHECK_FALSE(chunk_aligned<std::uint32_t>(buf + 1));
  CHECK_FALSE(chunk_aligned<carry_validate::mat2>(buf)); // one item per chunk: element accesses
  // overlap: in place and partial aliasing, not adjacent arrays
  CHECK(ranges_overlap(buf, buf, 16));
  CHECK(ranges_overlap(buf, buf + 1, 16));
  CHECK_FALSE(ranges_overlap(buf, buf + 4, 16));
  CHECK_FALSE(ranges_overlap(buf + 4, buf, 16));
  // the small tile's shape
  using sp = tuning::small_policy<std::uint32_t>;
  CHECK(sp::tile_items == sp::block_threads * sp::chunks * 4);
  CHECK(is_small_tile_policy<sp>::value);
  CHECK_FALSE(is_small_tile_policy<tuning::single_pass_policy<std::uint32_t>>::value);
}

TEST_CASE("vector widths of tile loads", "[cpu][plan]") {
  CHECK(vector_bytes<std::uint32_t, 16>() == 16);
  CHECK(vector_bytes<std::uint8_t, 64>() == 16);
  CHECK(vector_bytes<std::uint64_t, 1>() == 8);
  CHECK(vector_bytes<std::uint32_t, 1>() == 4);
  CHECK(vector_bytes<std::uint16_t, 1>() == 0);
  CHECK(vector_bytes<affine, 2>() == 16);
  alignas(16) static std::uint32_t buf[8];
  CHECK(vector_aligned<std::uint32_t, 16>(buf));
  CHECK_FALSE(vector_aligned<std::uint32_t, 16>(buf + 1));
  CHECK(tuning::coarsened_items<std::uint32_t>() == 16);
  CHECK(tuning::coarsened_items<std::uint8_t>() == 64);
  CHECK(tuning::single_pass_policy<std::uint32_t>::tile_items == 8192);
}

TEST_CASE("staged tiles: the chunk swizzle is a bijection and striped accesses are conflict-free",
          "[cpu][plan]") {
  // largest number of lanes of a 32-lane 16-byte access that meet in one of the 8 bank groups: 4 is the
  // minimum (four wavefronts for 512 bytes), i.e. no conflict
  auto worst = [](int vcount, bool blocked) {
    int w = 0;
    for (int v = 0; v < vcount; ++v) {
      int count[8] = {};
      for (int lane = 0; lane < 32; ++lane)
        ++count[staged_swizzle(blocked ? lane * vcount + v : 32 * v + lane, vcount) % 8];
      for (int c : count) w = c > w ? c : w;
    }
    return w;
  };
  for (int vcount = 1; vcount <= 40; ++vcount) {
    INFO("vcount " << vcount);
    std::vector<int> seen(32 * vcount, 0);
    for (int l = 0; l < 32 * vcount; ++l) {
      const int s = staged_swizzle(l, vcount);
      REQUIRE(s >= 0);
      REQUIRE(s < 32 * vcount);
      ++seen[s];
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == 32 * vcount);
    CHECK(worst(vcount, false) == 4);
    if (vcount % 8 == 0) CHECK(worst(vcount, true) == 4);
  }
  CHECK(worst(12, true) > 4); // why shapes with vcount % 8 != 0 are not chosen (they stay correct)
  // the tuned staged tiles: 8 or 16 chunks a thread
  CHECK(tuning::single_pass_policy<std::uint32_t>::items_per_thread * 4 / 16 % 8 == 0);
  CHECK(tuning::single_pass_policy<std::uint64_t>::items_per_thread * 8 / 16 % 8 == 0);
  CHECK(is_staged_policy<tuning::single_pass_policy<float>>::value);
  CHECK(is_staged_policy<tuning::single_pass_policy<std::uint8_t>>::value);
  CHECK(tuning::single_pass_policy<std::uint8_t>::items_per_thread / 16 % 8 == 0);
}

// ---- the tree schedules, run serially (within a level the nodes are independent) ----

template <class T, class Op>
std::vector<T> run_kogge_stone(std::vector<T> s, Op op) {
  const int n = static_cast<int>(s.size());
  for (int stride = 1; stride < n; stride *= 2) {
    std::vector<T> next(n);
    for (int k = 0; k < n; ++k) next[k] = kogge_stone_node(s.data(), k, stride, op);
    s = next;
  }
  return s;
}
template <class T, class Op>
std::vector<T> run_brent_kung(std::vector<T> s, Op op) {
  const int n = static_cast<int>(s.size()), p = next_pow2(n);
  for (int stride = 1; stride < p; stride *= 2) {
    const int nodes = brent_kung_up_nodes(n, stride);
    if (nodes > 0) REQUIRE(nodes * 2 * stride - 1 < n); // no node targets the padding
    for (int k = 0; k < nodes; ++k) brent_kung_up_node(s.data(), k, stride, op);
  }
  for (int stride = p / 4; stride >= 1; stride /= 2) {
    const int nodes = brent_kung_down_nodes(n, stride);
    if (nodes > 0) REQUIRE(nodes * 2 * stride - 1 + stride < n);
    for (int k = 0; k < nodes; ++k) brent_kung_down_node(s.data(), k, stride, op);
  }
  return s;
}
template <class T, class Op>
std::vector<T> run_blelloch_inclusive(const std::vector<T>& x, Op op, std::mt19937_64& g) {
  const int n = static_cast<int>(x.size()), p = next_pow2(n);
  std::vector<T> s(p);
  for (auto& v : s) v = carry_validate::random_value<T>(g); // padding holds junk: it must not matter
  s[p - 1] = x[0];
  for (int i = 1; i < n; ++i) s[i - 1] = x[i];
  for (int stride = 1; stride < p / 2; stride *= 2) {
    const int nodes = blelloch_up_nodes(n - 1, stride);
    if (nodes > 0) REQUIRE(nodes * 2 * stride - 1 < n - 1); // the root keeps its seed
    for (int k = 0; k < nodes; ++k) brent_kung_up_node(s.data(), k, stride, op);
  }
  for (int stride = p / 2; stride >= 1; stride /= 2) {
    const int nodes = blelloch_down_nodes(n, p, stride);
    for (int k = 0; k < nodes; ++k) blelloch_down_node(s.data(), k, stride, op);
  }
  s.resize(n);
  return s;
}

TEST_CASE("tree schedules equal the sequential scan for every size 1..600", "[cpu][tree]") {
  std::mt19937_64 g(42);
  for (int n = 1; n <= 600; ++n) {
    auto xi = carry_validate::random_values<std::uint32_t>(n, n);
    auto ref = carry_validate::reference_inclusive(xi, sum{});
    REQUIRE(run_kogge_stone(xi, sum{}) == ref);
    REQUIRE(run_brent_kung(xi, sum{}) == ref);
    REQUIRE(run_blelloch_inclusive(xi, sum{}, g) == ref);
    auto xa = carry_validate::random_values<affine>(n, 1000 + n); // non-commutative
    auto refa = carry_validate::reference_inclusive(xa, compose_affine{});
    REQUIRE(run_kogge_stone(xa, compose_affine{}) == refa);
    REQUIRE(run_brent_kung(xa, compose_affine{}) == refa);
    REQUIRE(run_blelloch_inclusive(xa, compose_affine{}, g) == refa);
  }
}
