// GPU tests: the two Kogge-Stone block scans, all block sizes, types and operators (non-commutative too).
#include "tests/common/block_harness.cuh"

using namespace carry_validate;
using A = carry::block_scan_algorithm;

TEST_CASE("kogge_stone: seed example", "[gpu][block]") {
  check_seed_example<A::kogge_stone>();
}
TEST_CASE("kogge_stone: u32 sum, all block sizes", "[gpu][block]") {
  check_block_sizes<A::kogge_stone, 1, std::uint32_t>(carry::sum{}, 7u);
}
TEST_CASE("kogge_stone: affine composition, all block sizes", "[gpu][block]") {
  check_block_sizes<A::kogge_stone, 1, affine>(compose_affine{}, affine{3, 5});
}
TEST_CASE("kogge_stone: f32 max and 3 items per thread", "[gpu][block]") {
  check_block_scan<float, 65, A::kogge_stone, 3, false>(carry::maximum{}, 0.f, 21);
  check_block_scan<float, 256, A::kogge_stone, 3, true>(carry::maximum{}, -1.f, 22);
}

TEST_CASE("kogge_stone_double_buffer: seed example", "[gpu][block]") {
  check_seed_example<A::kogge_stone_double_buffer>();
}
TEST_CASE("kogge_stone_double_buffer: u32 sum, all block sizes", "[gpu][block]") {
  check_block_sizes<A::kogge_stone_double_buffer, 1, std::uint32_t>(carry::sum{}, 7u);
}
TEST_CASE("kogge_stone_double_buffer: affine composition, all block sizes", "[gpu][block]") {
  check_block_sizes<A::kogge_stone_double_buffer, 1, affine>(compose_affine{}, affine{3, 5});
}
TEST_CASE("kogge_stone_double_buffer: double sum, 2 items per thread", "[gpu][block]") {
  check_block_scan<double, 65, A::kogge_stone_double_buffer, 2, false>(carry::sum{}, 0.0, 31);
  check_block_scan<double, 512, A::kogge_stone_double_buffer, 2, true>(carry::sum{}, 1.0, 32);
}
