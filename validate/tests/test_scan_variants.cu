// GPU tests: each non-default block algorithm inside the hierarchical pass (u32 sums, affine maps).
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;
using A = carry::block_scan_algorithm;

template <A ALGO, class T, class Op>
void check_variant(Op op, T init, bool sum_op) {
  using P = carry::tuning::seed_policy<ALGO>;
  const carry::scan_options h{carry::scan_algorithm::hierarchical, false};
  std::uint64_t seed = 100;
  INFO("block algorithm " << carry::block_scan_name(ALGO));
  for (std::int64_t n : edge_sizes(P::tile_items))
    for (int exclusive = 0; exclusive < 2; ++exclusive)
      check_device_scan<P, P>(op, init, h, n, exclusive, exclusive, sum_op, seed++);
}

TEST_CASE("hierarchical pass with kogge_stone", "[gpu][scan]") {
  check_variant<A::kogge_stone>(carry::sum{}, 0u, true);
  check_variant<A::kogge_stone>(compose_affine{}, affine{3, 7}, false);
}
TEST_CASE("hierarchical pass with kogge_stone_double_buffer", "[gpu][scan]") {
  check_variant<A::kogge_stone_double_buffer>(carry::sum{}, 0u, true);
  check_variant<A::kogge_stone_double_buffer>(compose_affine{}, affine{3, 7}, false);
}
TEST_CASE("hierarchical pass with brent_kung", "[gpu][scan]") {
  check_variant<A::brent_kung>(carry::sum{}, 0u, true);
  check_variant<A::brent_kung>(compose_affine{}, affine{3, 7}, false);
}
TEST_CASE("hierarchical pass with blelloch", "[gpu][scan]") {
  check_variant<A::blelloch>(carry::sum{}, 0u, true);
  check_variant<A::blelloch>(compose_affine{}, affine{3, 7}, false);
}
