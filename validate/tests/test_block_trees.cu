// GPU tests: the Brent-Kung and Blelloch block scans, all block sizes, types and operators.
#include "tests/common/block_harness.cuh"

using namespace carry_validate;
using A = carry::block_scan_algorithm;

TEST_CASE("brent_kung: seed example", "[gpu][block]") {
  check_seed_example<A::brent_kung>();
}
TEST_CASE("brent_kung: u32 sum, all block sizes", "[gpu][block]") {
  check_block_sizes<A::brent_kung, 2, std::uint32_t>(carry::sum{}, 7u);
}
TEST_CASE("brent_kung: affine composition, all block sizes", "[gpu][block]") {
  check_block_sizes<A::brent_kung, 2, affine>(compose_affine{}, affine{3, 5});
}
TEST_CASE("brent_kung: f32 max, i64 sum, odd items per thread", "[gpu][block]") {
  check_block_scan<float, 65, A::brent_kung, 1, true>(carry::maximum{}, -1.f, 41);
  check_block_scan<std::int64_t, 128, A::brent_kung, 5, false>(carry::sum{}, 0, 42);
}

TEST_CASE("blelloch: seed example", "[gpu][block]") {
  check_seed_example<A::blelloch>();
}
TEST_CASE("blelloch: u32 sum, all block sizes", "[gpu][block]") {
  check_block_sizes<A::blelloch, 2, std::uint32_t>(carry::sum{}, 7u);
}
TEST_CASE("blelloch: affine composition, all block sizes", "[gpu][block]") {
  check_block_sizes<A::blelloch, 2, affine>(compose_affine{}, affine{3, 5});
}
TEST_CASE("blelloch: f32 max, i64 sum, odd items per thread", "[gpu][block]") {
  check_block_scan<float, 65, A::blelloch, 1, true>(carry::maximum{}, -1.f, 51);
  check_block_scan<std::int64_t, 128, A::blelloch, 5, false>(carry::sum{}, 0, 52);
}
