// CPU tests: tile planning, temp-storage layout, argument checks, status words, pass choice, operator
// traits and the seeds' tree schedules run serially with the very node functions the kernels use.
#define CATCH_CONFIG_MAIN
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <carry/scan/detail/accumulator.hpp>
#include <carry/scan/detail/by_key.hpp>
#include <carry/scan/detail/pass_choice.hpp>
#include <carry/scan/util/plan.hpp>
#include <carry/scan/util/tree.hpp>
#include <carry/scan/lookback/layout.hpp>
#include <carry/scan/lookback/words.hpp>
#include <carry/scan/operators.hpp>
#include <carry/scan/scan_options.hpp>
#include <carry/compact/compact_options.hpp>
#include <carry/scan/tile_prefix.hpp>
#include <carry/scan/tuning.hpp>

#include "tests/common/keyed_model.hpp"
#include "tests/common/reference.hpp"

using namespace carry;
using namespace carry::detail;
using carry_validate::affine;
using carry_validate::run_keyed_model;
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

TEST_CASE("an equality functor argument: not a stream, a number, a pointer or an options struct",
          "[cpu][operators]") {
  CHECK(equality_functor<equal_to>);
  CHECK(equality_functor<compose_affine>);
  CHECK(!equality_functor<int>);                 // a literal 0 as the stream
  CHECK(!equality_functor<struct stream_like*>); // a pointer, as a cudaStream_t is
  CHECK(!equality_functor<std::nullptr_t>);
  CHECK(!equality_functor<scan_options>); // options come after the functor
  CHECK(!equality_functor<compact_options>);
}

TEST_CASE("keys by position: a warp's blocked key stores hit distinct banks", "[cpu][by_key]") {
  // u32 keys, 16 a thread (the keyed agent's 4-byte tile): for each j the 32 lanes store position
  // lane * 16 + j; their slots must fall in 32 different banks (slot mod 32), and slots never collide
  for (int warp = 0; warp < 8; ++warp)
    for (int j = 0; j < 16; ++j) {
      std::vector<bool> bank(32, false);
      for (int lane = 0; lane < 32; ++lane) {
        const int slot = padded_key_slot((warp * 32 + lane) * 16 + j);
        CHECK_FALSE(bank[slot % 32]);
        bank[slot % 32] = true;
      }
    }
  std::vector<bool> used(padded_key_slot(4096), false);
  for (int p = 0; p < 4096; ++p) {
    const int slot = padded_key_slot(p);
    REQUIRE(slot < padded_key_slot(4096));
    CHECK_FALSE(used[slot]);
    used[slot] = true;
  }
  CHECK(padded_key_slot(31) == 31);
  CHECK(padded_key_slot(32) == 33);
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

TEST_CASE("temp-storage layout: aligned, disjoint parts inside the allocation; nested layouts",
          "[cpu][plan]") {
  lookback::temp_builder b;
  const lookback::temp_part p0 = b.add(8), p1 = b.add(1000), p2 = b.add(0);
  CHECK(p0.offset == 0);
  CHECK(p1.offset == 256);
  CHECK(p2.offset == 256 + 1024);
  CHECK(b.size() == 256 + 1024);
  for (std::uintptr_t base : {std::uintptr_t{4096}, std::uintptr_t{4097}, std::uintptr_t{4351}}) {
    void* bp = reinterpret_cast<void*>(base);
    for (const auto& p : {p0, p1, p2}) {
      auto a = reinterpret_cast<std::uintptr_t>(p.in(bp));
      CHECK(a % lookback::temp_alignment == 0);
      CHECK(a + p.bytes <= base + b.allocation());
    }
  }
  CHECK(lookback::temp_builder{}.allocation() == 1); // never zero bytes
  // a module's scratch with the engine's state nested in it: one size query, parts placed by `within`
  lookback::temp_builder inner;
  const lookback::state_parts st = lookback::add_state(inner, 1000, 1, true, 16);
  lookback::temp_builder outer;
  const lookback::temp_part flags = outer.add(12345), engine = outer.add(inner.size()), tail = outer.add(7);
  const lookback::temp_part status = st.status.within(engine);
  CHECK(status.offset == engine.offset + st.status.offset);
  CHECK(status.offset % lookback::temp_alignment == 0);
  CHECK(status.offset >= flags.offset + flags.bytes);
  CHECK(st.groups.within(engine).offset + st.groups.bytes <= tail.offset);
}

TEST_CASE("look-back state: counter, status words and groups, all inside the cleared span",
          "[cpu][lookback]") {
  for (std::int64_t tiles :
       {std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33}, std::int64_t{100000}}) {
    for (int chains : {1, 256}) {
      for (bool canonical : {false, true}) {
        lookback::temp_builder b;
        b.add(100); // a part of the module before the state
        const auto p = lookback::add_state(b, tiles, chains, canonical, 4);
        INFO("tiles " << tiles << " chains " << chains << " canonical " << canonical);
        CHECK(p.status.bytes == static_cast<std::size_t>(tiles * chains * 4));
        CHECK(p.groups.bytes == (canonical ? static_cast<std::size_t>((tiles + 31) / 32 * 4) : 0u));
        CHECK(p.cleared.offset == p.counter.offset);
        CHECK(p.cleared.offset + p.cleared.bytes >= p.status.offset + p.status.bytes);
        CHECK(p.cleared.offset + p.cleared.bytes == p.groups.offset + p.groups.bytes);
        CHECK(b.size() >= p.cleared.offset + p.cleared.bytes);
        // the prepare kernel covers the span in 16-byte words, never past the state's last part
        CHECK(lookback::align_up(p.cleared.bytes, 16) <= b.size() - p.cleared.offset);
      }
    }
  }
  CHECK(lookback::canonical_groups(1) == 1);
  CHECK(lookback::canonical_groups(32) == 1);
  CHECK(lookback::canonical_groups(33) == 2);
  CHECK(lookback::prepare_blocks(0) == 1);
  CHECK(lookback::prepare_blocks(16 * 256) == 1);
  CHECK(lookback::prepare_blocks(16 * 256 + 1) == 2);
  CHECK(lookback::prepare_blocks(std::size_t{1} << 40) == 512);
}

TEST_CASE("status words: states, packed counts, (tile, chain) indices", "[cpu][lookback]") {
  using namespace carry::lookback;
  // cleared memory is invalid; only 1 and 2 are states; foreign bits read as invalid
  CHECK(state_of_field(0) == state_invalid);
  CHECK(state_of_field(1) == state_aggregate);
  CHECK(state_of_field(2) == state_prefix);
  CHECK(state_of_field(3) == state_invalid);
  CHECK(state_of_field(0xA5A5A5A5A5A5A5A5ull) == state_invalid);
  // packed 32-bit words: the count never reaches the state bits
  CHECK(packed_word(state_aggregate, 5) == ((1u << 30) | 5u));
  CHECK(packed_state(packed_word(state_prefix, packed_count_max)) == state_prefix);
  CHECK(packed_count(packed_word(state_prefix, packed_count_max)) == packed_count_max);
  CHECK(packed_state(packed_word(state_aggregate, packed_count_max + 1)) == state_aggregate);
  CHECK(packed_state(0) == state_invalid);
  CHECK(packed_state(0xFFFFFFFFu) == state_invalid); // state bits 3: not a state
  for (unsigned st : {1u, 2u})
    for (std::uint32_t c : {0u, 1u, 12345u, packed_count_max}) {
      CHECK(packed_state(packed_word(st, c)) == st);
      CHECK(packed_count(packed_word(st, c)) == c);
    }
  // (tile, chain): a tile's chains are adjacent, tiles follow each other
  CHECK(chain_index(0, 0, 256) == 0);
  CHECK(chain_index(0, 255, 256) == 255);
  CHECK(chain_index(1, 0, 256) == 256);
  CHECK(chain_index(7, 3, 256) == 7 * 256 + 3);
  CHECK(chain_index((std::int64_t{1} << 24) - 1, 255, 256) == (std::int64_t{1} << 32) - 1);
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

TEST_CASE("the carry fix-up: with_carry, extend, apply_carry (carry always the earlier operand)",
          "[cpu][plan]") {
  int run[3] = {3, 4, 11};
  carry::apply_carry<false>(run, carry::tile_prefix<int>{10, true}, carry::sum{});
  CHECK(std::vector<int>(run, run + 3) == std::vector<int>{13, 14, 21});
  int ex[3] = {3, 4, 11};
  carry::apply_carry<true>(ex, carry::tile_prefix<int>{10, true}, carry::sum{});
  CHECK(std::vector<int>(ex, ex + 3) == std::vector<int>{10, 13, 14});
  int none[2] = {3, 4};
  carry::apply_carry<false>(none, carry::tile_prefix<int>{99, false}, carry::sum{}); // no carry: unchanged
  CHECK(std::vector<int>(none, none + 2) == std::vector<int>{3, 4});
  struct cat {
    std::string operator()(const std::string& a, const std::string& b) const { return a + b; }
  };
  const carry::tile_prefix<std::string> c{"c", true}, no{"x", false};
  CHECK(carry::with_carry(c, std::string("a"), cat{}) == "ca");
  CHECK(carry::with_carry(no, std::string("a"), cat{}) == "a");
  CHECK(carry::extend(no, std::string("a"), cat{}).valid);
  CHECK(carry::extend(carry::extend(c, std::string("a"), cat{}), std::string("b"), cat{}).value == "cab");
  std::string runs[2] = {"a", "ab"}; // thread-local inclusive of [a b]
  carry::apply_carry<true>(runs, c, cat{});
  CHECK(runs[0] == "c");
  CHECK(runs[1] == "ca");
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
  // tiles ahead (modes 4 and up): only the blocks below `from`, whose tiles no earlier tile asks for
  CHECK(prefetch_guessed_tile(4, 131, 2048, 528, true, 132));
  CHECK_FALSE(prefetch_guessed_tile(4, 132, 2048, 528, true, 132)); // tile 0 asks for tile 132
  CHECK(prefetch_guessed_tile(5, 263, 2048, 528, true, 264));
  CHECK_FALSE(prefetch_guessed_tile(5, 264, 2048, 528, true, 264));
  CHECK(prefetch_guessed_tile(4, 659, 2048, 528, true, 660)); // asked from past one wave
  CHECK_FALSE(prefetch_guessed_tile(4, 5, 2048, 528, false, 132));
  // mode 2 with tiles asked ahead past one wave (the compaction): beyond one wave, and below `from`
  CHECK(prefetch_guessed_tile(2, 791, 2048, 660, true, 792));
  CHECK_FALSE(prefetch_guessed_tile(2, 792, 2048, 660, true, 792));
  CHECK_FALSE(prefetch_guessed_tile(2, 5, 660, 660, true, 792));
  CHECK(prefetch_guessed_tile(2, 5000, 8192, 660, true, never_asked)); // nothing asks ahead: every block
}

TEST_CASE("keyed prefetch: the tile a tile asks for ahead", "[cpu][plan]") {
  CHECK(tile_ahead(4, 0, 132, 132) == 132); // one tile an SM ahead, every tile (the keyed agent)
  CHECK(tile_ahead(4, 1000, 132, 132) == 1132);
  CHECK(tile_ahead(6, 7, 132, 396) == 7 + 3 * 132);
  CHECK(tile_ahead(4, 528, 132, 660) == 660); // from past one wave (the compaction): the first asked for
  CHECK(tile_ahead(4, 527, 132, 660) == -1);  // its block asks for its own
  for (int mode : {0, 1, 2})
    CHECK(tile_ahead(mode, 7000, 132, 0) == -1); // the other modes ask for none ahead
  // where asking starts: the keyed agent from the tile its first tile asks for, the compaction past one wave
  CHECK(first_tile_asked(1, 132, 0) == 132);
  CHECK(first_tile_asked(3, 132, 0) == 396);
  CHECK(first_tile_asked(1, 132, 5) == 792);
  for (int ahead : {0, -1, -3}) CHECK(first_tile_asked(ahead, 132, 5) == never_asked); // no asks ahead
  for (std::int64_t tile = 0; tile < 2000; ++tile) { // every tile asked for lies at or past it
    const std::int64_t asked = tile_ahead(4, tile, 132, first_tile_asked(1, 132, 5));
    CHECK((asked == -1 ? tile + 132 < 792 : asked >= 792 && asked == tile + 132));
  }
}

TEST_CASE("small-input planning", "[cpu][plan]") {
  // one tile; up to cluster_tiles tiles run as one cluster; more take the look-back
  using sm = small_mode;
  CHECK(choose_small_mode(1, 16, false) == sm::one_tile);
  CHECK(choose_small_mode(1, 16, true) == sm::one_tile);
  CHECK(choose_small_mode(2, 16, false) == sm::cluster);
  CHECK(choose_small_mode(4, 16, true) == sm::cluster);
  CHECK(choose_small_mode(16, 16, true) == sm::cluster);
  CHECK(choose_small_mode(17, 16, false) == sm::look_back);
  CHECK(choose_small_mode(17, 16, true) == sm::look_back_canonical);
  CHECK(choose_small_mode(9, 8, true) == sm::look_back_canonical); // the device co-schedules only 8
  CHECK(choose_small_mode(2, 0, false) == sm::look_back);          // no clusters on this device
  CHECK(choose_small_mode(2, 2, false) == sm::cluster);
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
  // 2^16 items of every benchmarked type fit one cluster of at most 16 small tiles (one launch)
  CHECK(ceil_div(1 << 16, tuning::small_policy<std::uint8_t>::tile_items) <= 16);
  CHECK(ceil_div(1 << 16, tuning::small_policy<std::uint32_t>::tile_items) <= 16);
  CHECK(ceil_div(1 << 16, tuning::small_policy<float>::tile_items) <= 16);
  CHECK(ceil_div(1 << 16, tuning::small_policy<std::uint64_t>::tile_items) <= 16);
  CHECK(tuning::small_policy<std::uint64_t>::cluster_tiles == 16);
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

namespace {
struct pair_sum { // a user operator of two types: its result type is the accumulator
  long long operator()(long long a, int b) const { return a + b; }
};
struct writes_anything { // an output iterator without a value type (as a discard iterator)
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = void;
  using iterator_category = std::output_iterator_tag;
};
} // namespace

TEST_CASE("scan accumulators: CUB's rule, sums in the output's type, a named one, the overload split",
          "[cpu]") {
  using carry::default_accumulator;
  using carry::detail::scan_accumulator_t;
  using u8p = const std::uint8_t*;
  // sums: the output's type (u8 flags into u32 offsets), the input's where the output has none
  STATIC_REQUIRE(std::is_same<
                 scan_accumulator_t<default_accumulator, true, carry::sum, std::uint8_t, u8p, std::uint32_t*>,
                 std::uint32_t>::value);
  STATIC_REQUIRE(
      std::is_same<
          scan_accumulator_t<default_accumulator, true, carry::sum, std::uint8_t, u8p, writes_anything>,
          std::uint8_t>::value);
  // other operators: op(init, item)'s type; where that does not compile, the output's
  STATIC_REQUIRE(
      std::is_same<scan_accumulator_t<default_accumulator, false, pair_sum, long long, const int*, short*>,
                   long long>::value);
  STATIC_REQUIRE(
      std::is_same<scan_accumulator_t<default_accumulator, false, carry::maximum, long, const int*, double*>,
                   double>::value);
  STATIC_REQUIRE(
      std::is_same<scan_accumulator_t<default_accumulator, false, carry::maximum, int, const int*, long*>,
                   int>::value);
  // named
  STATIC_REQUIRE(std::is_same<scan_accumulator_t<std::int64_t, true, carry::sum, bool, const bool*, int*>,
                              std::int64_t>::value);
  // which overloads: pointers of one type (and, exclusive, an init of that type) take the pointer ones
  STATIC_REQUIRE(!carry::detail::iterator_scan_args<const float*, float*>());
  STATIC_REQUIRE(!carry::detail::iterator_scan_args<float*, float*, float>());
  STATIC_REQUIRE(carry::detail::iterator_scan_args<const float*, float*, int>());
  STATIC_REQUIRE(carry::detail::iterator_scan_args<const float*, double*>());
  STATIC_REQUIRE(!carry::detail::iterator_scan_args<std::nullptr_t, float*>());
}

namespace {
/// A non-commutative associative operator on u32: the composition of maps x -> a x + b mod 2^16,
/// packed as a << 16 | b.
struct compose16 {
  std::uint32_t operator()(std::uint32_t f, std::uint32_t g) const {
    const std::uint32_t fa = f >> 16, fb = f & 0xffff, ga = g >> 16, gb = g & 0xffff;
    return ((ga * fa) & 0xffff) << 16 | ((ga * fb + gb) & 0xffff);
  }
};
} // namespace

TEST_CASE(
    "by-key pieces: the segmented operator is associative; the scans' behaviour on the keyed agent's model "
    "gives the by-key scans",
    "[cpu]") {
  using carry::detail::keyed;
  const carry::detail::segmented<compose16> seg{compose16{}};
  std::mt19937 g(5);
  for (int t = 0; t < 20000; ++t) {
    auto pick = [&] {
      return keyed<std::uint32_t>{static_cast<std::uint32_t>(g() % 2), static_cast<std::uint32_t>(g())};
    };
    const keyed<std::uint32_t> a = pick(), b = pick(), c = pick();
    const auto l = seg(seg(a, b), c), r = seg(a, seg(b, c));
    REQUIRE((l.head == r.head && l.value == r.value));
    // absorbs(b): a (+) b is b, whatever a is (the canonical look-back stops there)
    const auto ab = seg(a, b);
    REQUIRE(seg.absorbs(b) == (b.head != 0));
    if (seg.absorbs(b)) REQUIRE((ab.head == b.head && ab.value == b.value));
  }
  // any tree over a span gives the same fold once the items before its last absorbing one are replaced by
  // that one (what the look-back does with words it need not wait for): random spans and tree shapes
  for (int t = 0; t < 2000; ++t) {
    const int w = 1 + static_cast<int>(g() % 32);
    std::vector<keyed<std::uint32_t>> span(static_cast<std::size_t>(w));
    for (auto& x : span) x = {g() % 4 == 0 ? 1u : 0u, static_cast<std::uint32_t>(g())};
    int last = -1;
    for (int i = 0; i < w; ++i)
      if (seg.absorbs(span[static_cast<std::size_t>(i)])) last = i;
    if (last < 0) continue;
    auto cut = span;
    for (int i = 0; i < last; ++i) cut[static_cast<std::size_t>(i)] = span[static_cast<std::size_t>(last)];
    std::vector<unsigned> splits; // one tree shape for both: split points drawn once, replayed
    for (int i = 0; i < 64; ++i) splits.push_back(static_cast<unsigned>(g()));
    std::function<keyed<std::uint32_t>(const std::vector<keyed<std::uint32_t>>&, int, int, int&)> tree =
        [&](const std::vector<keyed<std::uint32_t>>& x, int lo, int hi, int& k) {
          if (hi - lo == 1) return x[static_cast<std::size_t>(lo)];
          const int m = lo + 1 +
                        static_cast<int>(splits[static_cast<std::size_t>(k++ % 64)] %
                                         static_cast<unsigned>(hi - lo - 1));
          const auto left = tree(x, lo, m, k);
          return seg(left, tree(x, m, hi, k));
        };
    int k0 = 0, k1 = 0;
    const auto full = tree(span, 0, w, k0), short_cut = tree(cut, 0, w, k1);
    REQUIRE((full.head == short_cut.head && full.value == short_cut.value));
  }
  // keys in runs of 1 .. 9 (crossing thread boundaries), values as maps: against a sequential fold
  for (int n : {1, 2, 7, 16, 17, 100, 1000}) {
    std::vector<int> keys(static_cast<std::size_t>(n));
    int k = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (g() % 5 == 0) ++k;
      keys[i] = k;
    }
    std::vector<std::uint32_t> values(keys.size());
    for (auto& v : values) v = static_cast<std::uint32_t>(g());
    const std::uint32_t init = 0x00030002u;
    std::vector<std::uint32_t> want_inc(keys.size()), want_exc(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const bool head = i == 0 || keys[i] != keys[i - 1];
      want_exc[i] = head ? init : compose16{}(init, want_inc[i - 1]);
      want_inc[i] = head ? values[i] : compose16{}(want_inc[i - 1], values[i]);
    }
    using inc_b = carry::detail::scan_by_key_behaviour<false, int, std::uint32_t, compose16, carry::equal_to,
                                                       std::uint32_t*>;
    using exc_b = carry::detail::scan_by_key_behaviour<true, int, std::uint32_t, compose16, carry::equal_to,
                                                       std::uint32_t*>;
    const inc_b bi{carry::equal_to{}, compose16{}, init, nullptr};
    const exc_b be{carry::equal_to{}, compose16{}, init, nullptr};
    REQUIRE(run_keyed_model<4>(bi, keys, values) == want_inc);
    REQUIRE(run_keyed_model<16>(bi, keys, values) == want_inc);
    REQUIRE(run_keyed_model<4>(be, keys, values) == want_exc);
    REQUIRE(run_keyed_model<16>(be, keys, values) == want_exc);
    REQUIRE(run_keyed_model<32>(bi, keys, values) == want_inc);
  }
}

TEST_CASE("mark_runs: one comparison an item; the input's first and last items; the live mask; the "
          "behaviours' folds agree with the pair fold",
          "[cpu]") {
  using carry::detail::keyed_thread;
  using carry::detail::mark_runs;
  // keys [5 5 7 | 7 9 9] as threads of 3: the second thread's prev is 7, and no item follows it
  keyed_thread<int, int, 3> t{{7, 9, 9}, {1, 2, 3}, 0, 0, 0, false, 3, 5};
  mark_runs(t, 3, 7, 9, carry::equal_to{});
  REQUIRE(t.live == 0b111u);
  REQUIRE(t.heads == 0b010u);
  REQUIRE(t.ends == 0b101u); // 7 ends at item 0 (9 follows), the input's last item ends its run
  keyed_thread<int, int, 3> u{{5, 5, 7}, {1, 2, 3}, 0, 0, 0, false, 0, 5};
  mark_runs(u, 3, 5, 7, carry::equal_to{}); // prev: the thread's own first key (nothing before the input)
  REQUIRE(u.heads == 0b101u);
  REQUIRE(u.ends == 0b010u); // the 7 runs on into the next thread
  // a partial thread: 2 live items, the rest padded with a live key
  keyed_thread<int, int, 4> p{{4, 6, 4, 4}, {1, 2, 3, 4}, 0, 0, 0, false, 8, 9};
  mark_runs(p, 2, 4, 4, carry::equal_to{});
  REQUIRE(p.live == 0b11u);
  REQUIRE(p.heads == 0b10u);
  REQUIRE(p.ends == 0b11u);
  keyed_thread<int, int, 4> none{{4, 4, 4, 4}, {}, 0, 0, 0, false, 12, 9};
  mark_runs(none, -2, 4, 4, carry::equal_to{});
  REQUIRE((none.live | none.heads | none.ends) == 0u);
  REQUIRE(carry::detail::live_mask<32>(32) == ~0u);
  REQUIRE(carry::detail::live_mask<32>(31) == 0x7fffffffu);
  REQUIRE(carry::detail::upto_bit(1u << 31) == ~0u);
  // fold_last_run is the value of the pair fold under the segmented operator, on random masks
  std::mt19937 g(11);
  const carry::detail::segmented<compose16> seg{compose16{}};
  for (int r = 0; r < 5000; ++r) {
    keyed_thread<int, std::uint32_t, 16> x{};
    for (auto& v : x.values) v = static_cast<std::uint32_t>(g());
    x.live = carry::detail::live_mask<16>(1 + static_cast<int>(g() % 16));
    x.heads = static_cast<unsigned>(g()) & x.live;
    const auto want = carry::detail::fold_pairs<carry::detail::keyed<std::uint32_t>>(x, seg);
    REQUIRE(carry::detail::fold_last_run(x, compose16{}) == want.value);
  }
}
