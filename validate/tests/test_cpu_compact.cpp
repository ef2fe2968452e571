// CPU tests of the compaction module's host/device helpers: pass choice, temp layout, argument checks,
// partition offsets, the run calls' behaviours on the keyed agent's model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include <carry/compact/detail/plan.hpp>
#include <carry/compact/detail/runs.hpp>
#include <carry/compact/tuning.hpp>
#include <carry/scan/operators.hpp>

#include "tests/common/keyed_model.hpp"

using namespace carry::compact_detail;
using carry::compact_algorithm;
using carry::detail::arg_error;
using carry_validate::run_keyed_model;

TEST_CASE("compaction pass choice", "[compact]") {
  const std::int64_t tile = 4096;
  const auto A = compact_algorithm::automatic, T3 = compact_algorithm::three_kernel,
             S = compact_algorithm::single_pass;
  CHECK(choose_compact_pass(0, tile, A, false, false, 0) == compact_pass::empty);
  CHECK(choose_compact_pass(-3, tile, A, false, false, 0) == compact_pass::empty);
  CHECK(choose_compact_pass(1, tile, T3, false, true, 0) == compact_pass::one_tile);
  CHECK(choose_compact_pass(tile, tile, S, true, false, 0) == compact_pass::one_tile);
  CHECK(choose_compact_pass(tile + 1, tile, A, false, false, 0) == compact_pass::single_pass);
  CHECK(choose_compact_pass(tile + 1, tile, A, false, false, 1 << 20) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(1 << 20, tile, A, false, false, 1 << 20) == compact_pass::single_pass);
  CHECK(choose_compact_pass(tile + 1, tile, T3, false, false, 0) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(tile + 1, tile, S, false, false, 1 << 30) == compact_pass::single_pass);
  // in place: always the single pass; partition: always the three kernels (needs the total first)
  CHECK(choose_compact_pass(tile + 1, tile, T3, true, false, 0) == compact_pass::single_pass);
  CHECK(choose_compact_pass(tile + 1, tile, S, false, true, 0) == compact_pass::three_kernel);
  // one cluster when the device co-schedules the tiles: automatic, in place, partition; explicit forms kept
  CHECK(choose_compact_pass(16 * tile, tile, A, false, false, 0, 16) == compact_pass::cluster);
  CHECK(choose_compact_pass(16 * tile, tile, A, false, true, 0, 16) == compact_pass::cluster);
  CHECK(choose_compact_pass(16 * tile, tile, S, true, false, 0, 16) == compact_pass::cluster);
  CHECK(choose_compact_pass(16 * tile + 1, tile, A, false, false, 0, 16) == compact_pass::single_pass);
  CHECK(choose_compact_pass(16 * tile + 1, tile, A, false, true, 0, 16) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(9 * tile, tile, A, false, false, 0, 8) == compact_pass::single_pass);
  CHECK(choose_compact_pass(2 * tile, tile, T3, false, false, 0, 16) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(2 * tile, tile, S, false, false, 0, 16) == compact_pass::single_pass);
  CHECK(choose_compact_pass(2 * tile, tile, A, false, false, 0, 0) == compact_pass::single_pass);
  // a partition of few tiles: count + scatter, the scan of the counts folded in (automatic only)
  CHECK(choose_compact_pass(256 * tile, tile, A, false, true, 0, 16, 256) == compact_pass::count_scatter);
  CHECK(choose_compact_pass(256 * tile + 1, tile, A, false, true, 0, 16, 256) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(17 * tile, tile, T3, false, true, 0, 16, 256) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(17 * tile, tile, A, false, true, 0, 16, 0) == compact_pass::three_kernel);
  CHECK(choose_compact_pass(17 * tile, tile, A, false, false, 0, 16, 256) == compact_pass::single_pass);
}

TEST_CASE("count kernel of computed inputs: warps a tile", "[compact]") {
  using carry::compact_detail::count_alone_warps;
  CHECK(count_alone_warps(1, 8192) == 8);
  CHECK(count_alone_warps(512, 8192) == 8);
  CHECK(count_alone_warps(1025, 8192) == 4);
  CHECK(count_alone_warps(2048, 8192) == 4);
  CHECK(count_alone_warps(4096, 8192) == 2);
  CHECK(count_alone_warps(8192, 8192) == 1);
  CHECK(count_alone_warps(std::int64_t{1} << 40, 8192) == 1);
  // the shipped quarter wave: 8 warps a tile up to 256 tiles (2^21 u32), 1 from 2048 (2^24)
  CHECK(count_alone_warps(256, 2048) == 8);
  CHECK(count_alone_warps(512, 2048) == 4);
  CHECK(count_alone_warps(1024, 2048) == 2);
  CHECK(count_alone_warps(2048, 2048) == 1);
  for (std::int64_t tiles = 1; tiles < 20000; tiles += 37) {
    const int w = count_alone_warps(tiles, 8192);
    REQUIRE((w == 1 || w == 2 || w == 4 || w == 8));
    REQUIRE((w == 1 || tiles * w <= 8192));
    REQUIRE((w == 8 || tiles * w * 2 > 8192)); // the most that fit
  }
}

TEST_CASE(
    "a flagged stable partition keeps its selection bits: staged items from 2 tiles, computed items from "
    "the tuned bytes of flags",
    "[compact]") {
  using carry::compact_tuning::index_stored_bits_from_flag_bytes;
  using carry::compact_tuning::keeps_selection_bits;
  for (bool staged : {false, true}) {
    CHECK_FALSE(keeps_selection_bits(staged, 0, 0));
    CHECK_FALSE(
        keeps_selection_bits(staged, 1, index_stored_bits_from_flag_bytes)); // one tile: no count pass
  }
  CHECK(keeps_selection_bits(true, 2, 8));
  CHECK(keeps_selection_bits(true, 1 << 20, index_stored_bits_from_flag_bytes - 1));
  CHECK_FALSE(keeps_selection_bits(false, 4096, index_stored_bits_from_flag_bytes - 1));
  CHECK(keeps_selection_bits(false, 4096, index_stored_bits_from_flag_bytes));
  CHECK(keeps_selection_bits(false, 2, std::int64_t{1} << 40));
}

TEST_CASE("compaction temp layout covers both forms, aligned, one size for every option", "[compact]") {
  const compact_layout one = make_compact_layout(1, 0, 16);
  CHECK(one.allocation == 1);
  for (std::int64_t tiles : {2, 31, 32, 33, 65536, 1 << 20}) {
    const std::size_t scan_bytes = 1000 + static_cast<std::size_t>(tiles);
    const compact_layout l = make_compact_layout(tiles, scan_bytes, 16);
    CHECK(l.counts.offset == 0);
    CHECK(l.counts.bytes == static_cast<std::size_t>(tiles) * 8);
    CHECK(l.scan.offset % 256 == 0);
    CHECK(l.scan.offset >= l.counts.bytes);
    CHECK(l.scan.bytes == scan_bytes);
    CHECK(l.state.status.bytes == static_cast<std::size_t>(tiles) * 16);
    CHECK(l.state.groups.bytes == 0); // integer counts: the classic look-back, no group words
    CHECK(l.state.cleared.offset == 0);
    CHECK(l.state.cleared.bytes >= l.state.status.offset + l.state.status.bytes);
    // the allocation holds either form from any base alignment
    CHECK(l.allocation >= l.scan.offset + l.scan.bytes + 255);
    CHECK(l.allocation >= l.state.cleared.bytes + 255);
    CHECK(l.bits.bytes == 0);
    // a flagged stable partition's selection bits: their own aligned part after the scan's, in the
    // three-kernel form only
    const std::size_t bits_bytes = static_cast<std::size_t>(tiles) * 1024;
    const compact_layout b = make_compact_layout(tiles, scan_bytes, 16, bits_bytes);
    CHECK(b.bits.bytes == bits_bytes);
    CHECK(b.bits.offset % 256 == 0);
    CHECK(b.bits.offset >= b.scan.offset + b.scan.bytes);
    CHECK(b.allocation >= b.bits.offset + b.bits.bytes + 255);
    CHECK(b.state.cleared.bytes == l.state.cleared.bytes);
  }
}

TEST_CASE("compaction argument checks, in order", "[compact]") {
  int x = 0;
  const void* num = &x;
  CHECK(check_compact_args(false, false, num, -1, 100, 10, 1) == arg_error::negative_count);
  CHECK(check_compact_args(false, false, nullptr, 0, 100, 10, 0) == arg_error::null_output);
  CHECK(check_compact_args(true, true, num, 0, 0, 10, 0) == arg_error::none); // empty: only the count
  CHECK(check_compact_args(true, false, num, 5, 100, 10, 1) == arg_error::null_input);
  CHECK(check_compact_args(false, true, num, 5, 100, 10, 1) == arg_error::null_output);
  CHECK(check_compact_args(false, false, num, 5, 9, 10, 1) == arg_error::temp_too_small);
  CHECK(check_compact_args(false, false, num, 5, 10, 10, 1) == arg_error::none);
  CHECK(check_compact_args(false, false, num, 5, 10, 10, std::int64_t{1} << 31) == arg_error::too_many_tiles);
}

TEST_CASE("stable partition offsets", "[compact]") {
  // the worked example of carry::partition: [3 1 7 0 4 1 6 3], x > 2, in tiles of 4:
  // tile 0 [3 1 7 0] selects 2, tile 1 [4 1 6 3] selects 3; total 5
  CHECK(rejected_offset(5, 0, 0) == 5); // tile 0's rejected [1 0] at 5, 6
  CHECK(rejected_offset(5, 4, 2) == 7); // tile 1's rejected [1] at 7
  // tile 1's rejected [1] through its rejected output: out[7 + 0]
  int out[8] = {};
  rejected_output<int*, 1> r{out, static_cast<std::int64_t>(rejected_offset(5, 4, 2))};
  r[0] = 42;
  CHECK(out[7] == 42);
  // 64-bit offsets past 2^32
  const std::uint64_t big = std::uint64_t{5} << 32;
  CHECK(rejected_offset(big, std::int64_t{3} << 32, std::uint64_t{1} << 32) ==
        big + (std::uint64_t{2} << 32));
}

TEST_CASE("reversed partition offsets (CUB's layout)", "[compact]") {
  // [3 1 7 0 4 2 6 3], x > 2, in tiles of 4: tile 0 [3 1 7 0] selects 2 (rejected 1, 0), tile 1
  // [4 2 6 3] selects 3 (rejected 2); CUB's output [3 7 4 6 3 | 2 0 1]
  CHECK(reversed_rejected_offset(8, 0, 0) == 7); // tile 0's rejected from the last slot down: 7, 6
  CHECK(reversed_rejected_offset(8, 4, 2) == 5); // tile 1's below them: 5
  int out[8] = {3, 7, 4, 6, 3, -1, -1, -1};
  rejected_output<int*, -1> t0{out, static_cast<std::int64_t>(reversed_rejected_offset(8, 0, 0))};
  t0[0] = 1, t0[1] = 0;
  rejected_output<int*, -1> t1{out, static_cast<std::int64_t>(reversed_rejected_offset(8, 4, 2))};
  t1[0] = 2;
  const int cub[8] = {3, 7, 4, 6, 3, 2, 0, 1};
  CHECK(std::equal(out, out + 8, cub));
  // + and += step the way the items go
  CHECK((t0 + 1).at == 6);
  t0 += 2;
  CHECK(t0.at == 5);
  rejected_output<int*, 1> up{out, 5};
  CHECK((up + 2).at == 7);
  // 64-bit: the last slot of 2^33 items, past 2^32 rejected before a tile
  const std::int64_t n = std::int64_t{1} << 33;
  CHECK(reversed_rejected_offset(n, std::int64_t{3} << 31, std::uint64_t{1} << 31) ==
        static_cast<std::uint64_t>(n - 1 - (std::int64_t{1} << 32)));
  // an upward rejected output takes its output's lead; a downward one 31 less its first slot's, so that
  // warp w's items (k = 32 w .. 32 w + 31, item k - lead at slot at - (k - lead)) fill one whole group
  alignas(256) static int ints[64];
  CHECK(group_lead(rejected_output<int*, 1>{ints, 40}, 3) == group_lead(static_cast<int*>(ints), 43));
  const int lead = group_lead(rejected_output<int*, -1>{ints, 40}, 0);
  CHECK(lead == 23);
  for (int w = 0; w < 2; ++w) {
    const std::int64_t top = 40 - (32 * w - lead), bottom = 40 - (32 * w + 31 - lead);
    CHECK(top % 32 == 31);
    CHECK(bottom % 32 == 0);
  }
  CHECK(group_lead(rejected_output<int*, -1>{ints, 63}, 0) == 0); // already a group's top slot
  struct three {
    char c[3];
  };
  alignas(256) static three odd3[8];
  CHECK(group_lead(rejected_output<three*, -1>{odd3, 5}, 0) == 0); // no lead for 3-byte items
}

TEST_CASE("group lead: items before the 32-item group an output sits in", "[compact]") {
  alignas(256) static int ints[128];
  alignas(256) static std::uint64_t wide[128];
  struct three {
    char c[3];
  };
  alignas(256) static three odd[64];
  int* const i0 = ints;
  std::uint64_t* const w0 = wide;
  CHECK(group_lead(i0, 0) == 0);
  CHECK(group_lead(i0, 35) == 3);
  CHECK(group_lead(ints + 5, 27) == 0);
  CHECK(group_lead(ints + 1, 0) == 1);
  CHECK(group_lead(w0, 33) == 1);
  CHECK(group_lead(wide + 31, 1) == 0);
  CHECK(group_lead(+odd, 7) == 0);                         // not a power-of-two size: no shift
  CHECK(group_lead(std::vector<int>::iterator{}, 9) == 0); // not a pointer
}

TEST_CASE("compaction tuning: 32 KB staged tiles up to 8-byte items, masks of at most 32 bits", "[compact]") {
  CHECK(carry::compact_tuning::policy<std::uint32_t>::tile_items * 4 == 32768);
  CHECK(carry::compact_tuning::policy<std::uint64_t>::tile_items * 8 == 32768);
  CHECK(carry::compact_tuning::policy<std::uint8_t>::tile_items == 8192);
  CHECK(carry::compact_tuning::policy<std::uint8_t>::items_per_thread <= 32);
}

namespace {
/// The runs of keys (first key, first position, length) and the sums of their values.
struct runs_ref {
  std::vector<int> keys;
  std::vector<std::int64_t> offsets, lengths;
  std::vector<std::uint32_t> sums;
};
runs_ref runs_of(const std::vector<int>& keys, const std::vector<std::uint32_t>& values) {
  runs_ref r;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      r.keys.push_back(keys[i]);
      r.offsets.push_back(static_cast<std::int64_t>(i));
      r.lengths.push_back(0);
      r.sums.push_back(0);
    }
    ++r.lengths.back();
    r.sums.back() += values[i];
  }
  return r;
}
} // namespace

TEST_CASE("run calls on the keyed agent's model: reduce_by_key, run_length_encode, non_trivial_runs; their "
          "operators associative",
          "[compact]") {
  using carry::detail::keyed;
  std::mt19937 g(9);
  const counted_segments<carry::sum> cs{carry::sum{}};
  for (int t = 0; t < 20000; ++t) {
    auto pick = [&] {
      return keyed<std::uint32_t>{static_cast<std::uint32_t>(g() % 3), static_cast<std::uint32_t>(g() % 100)};
    };
    const auto a = pick(), b = pick(), c = pick();
    const auto l = cs(cs(a, b), c), r = cs(a, cs(b, c));
    REQUIRE((l.head == r.head && l.value == r.value));
    auto span = [&] {
      return run_span<std::uint32_t>{static_cast<std::uint32_t>(g() % 3),
                                     static_cast<std::uint32_t>(g() % 1000)};
    };
    const auto x = span(), y = span(), z = span();
    const auto p = span_op{}(span_op{}(x, y), z), q = span_op{}(x, span_op{}(y, z));
    REQUIRE((p.count == q.count && p.start == q.start));
  }
  for (int n : {1, 2, 3, 16, 17, 33, 500}) {
    std::vector<int> keys(static_cast<std::size_t>(n));
    int k = 0;
    for (auto& x : keys) {
      if (g() % 4 == 0) k += 1 + static_cast<int>(g() % 3);
      x = k;
    }
    std::vector<std::uint32_t> values(keys.size());
    for (auto& v : values) v = g() % 100;
    const runs_ref ref = runs_of(keys, values);
    const std::size_t runs = ref.keys.size();
    std::vector<int> unique(keys.size(), -1);
    std::vector<std::uint32_t> sums(keys.size(), 7777);
    std::int64_t num = -1;
    using rbk = reduce_by_key_behaviour<int, std::uint32_t, std::uint32_t, carry::sum, carry::equal_to, int*,
                                        std::uint32_t*, std::int64_t*>;
    run_keyed_model<4>(rbk{carry::equal_to{}, carry::sum{}, unique.data(), sums.data(), &num}, keys, values);
    REQUIRE(num == static_cast<std::int64_t>(runs));
    REQUIRE(std::vector<int>(unique.begin(), unique.begin() + static_cast<std::ptrdiff_t>(runs)) == ref.keys);
    REQUIRE(std::vector<std::uint32_t>(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(runs)) ==
            ref.sums);
    REQUIRE((runs == keys.size() || unique[runs] == -1)); // nothing past the runs
    // select_unique_by_key: each run's first key and the value beside it
    std::fill(unique.begin(), unique.end(), -1);
    std::vector<std::uint32_t> firsts(keys.size(), 7777), want_firsts;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (i == 0 || keys[i] != keys[i - 1]) want_firsts.push_back(values[i]);
    using ubk = unique_behaviour<int, std::uint32_t, std::uint32_t, carry::equal_to, int*, std::uint32_t*,
                                 std::int64_t*>;
    run_keyed_model<16>(ubk{carry::equal_to{}, unique.data(), firsts.data(), &num}, keys, values);
    REQUIRE(num == static_cast<std::int64_t>(runs));
    REQUIRE(std::vector<int>(unique.begin(), unique.begin() + static_cast<std::ptrdiff_t>(runs)) == ref.keys);
    REQUIRE(std::vector<std::uint32_t>(firsts.begin(), firsts.begin() + static_cast<std::ptrdiff_t>(runs)) ==
            want_firsts);
    // run_length_encode and non_trivial_runs (values unread)
    const std::vector<no_value> none(keys.size());
    std::vector<std::int64_t> lengths(keys.size(), -1), offsets(keys.size(), -1);
    std::fill(unique.begin(), unique.end(), -1);
    using rle =
        span_behaviour<false, int, std::uint32_t, carry::equal_to, int*, std::int64_t*, std::int64_t*>;
    run_keyed_model<16>(rle{carry::equal_to{}, unique.data(), lengths.data(), &num}, keys, none);
    REQUIRE(num == static_cast<std::int64_t>(runs));
    run_keyed_model<32>(rle{carry::equal_to{}, unique.data(), lengths.data(), &num}, keys, none);
    REQUIRE(num == static_cast<std::int64_t>(runs));
    REQUIRE(std::vector<int>(unique.begin(), unique.begin() + static_cast<std::ptrdiff_t>(runs)) == ref.keys);
    REQUIRE(std::vector<std::int64_t>(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(runs)) ==
            ref.lengths);
    std::vector<std::int64_t> nt_off, nt_len;
    for (std::size_t r = 0; r < runs; ++r)
      if (ref.lengths[r] > 1) {
        nt_off.push_back(ref.offsets[r]);
        nt_len.push_back(ref.lengths[r]);
      }
    std::fill(lengths.begin(), lengths.end(), -1);
    using ntr = span_behaviour<true, int, std::uint64_t, carry::equal_to, std::int64_t*, std::int64_t*,
                               std::int64_t*>;
    run_keyed_model<4>(ntr{carry::equal_to{}, offsets.data(), lengths.data(), &num}, keys, none);
    REQUIRE(num == static_cast<std::int64_t>(nt_off.size()));
    REQUIRE(std::vector<std::int64_t>(
                offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(nt_off.size())) == nt_off);
    REQUIRE(std::vector<std::int64_t>(
                lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(nt_off.size())) == nt_len);
  }
}

TEST_CASE("which single-pass tiles ask the L2 for a tile ahead: item tiles, not index tiles or partitions by "
          "flags",
          "[compact]") {
  using carry::compact_tuning::tiles_ahead;
  CHECK(tiles_ahead(1, false, false) == 1);
  CHECK(tiles_ahead(2, false, false) == 2);
  CHECK(tiles_ahead(0, false, false) == 0);
  CHECK(tiles_ahead(1, true, false) == 0);
  CHECK(tiles_ahead(1, false, true) == 0);
  CHECK(tiles_ahead(1, true, true) == 0);
}
