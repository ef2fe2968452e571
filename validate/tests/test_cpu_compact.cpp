// CPU tests of the compaction module's host/device helpers: pass choice, temp layout, argument checks,
// partition offsets.
#include <catch2/catch.hpp>

#include <carry/compact/detail/plan.hpp>
#include <carry/compact/tuning.hpp>

using namespace carry::compact_detail;
using carry::compact_algorithm;
using carry::detail::arg_error;

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
  // staged run of tile 1: [4 6 3 | 1] -> 2, 3, 4 then 7
  CHECK(staged_destination(0, 3, 2, 7) == 2);
  CHECK(staged_destination(2, 3, 2, 7) == 4);
  CHECK(staged_destination(3, 3, 2, 7) == 7);
  // 64-bit offsets past 2^32
  const std::uint64_t big = std::uint64_t{5} << 32;
  CHECK(rejected_offset(big, std::int64_t{3} << 32, std::uint64_t{1} << 32) == big + (std::uint64_t{2} << 32));
}

TEST_CASE("compaction tuning: 32 KB staged tiles up to 8-byte items, masks of at most 32 bits", "[compact]") {
  CHECK(carry::compact_tuning::policy<std::uint32_t>::tile_items * 4 == 32768);
  CHECK(carry::compact_tuning::policy<std::uint64_t>::tile_items * 8 == 32768);
  CHECK(carry::compact_tuning::policy<std::uint8_t>::tile_items == 8192);
  CHECK(carry::compact_tuning::policy<std::uint8_t>::items_per_thread <= 32);
}
