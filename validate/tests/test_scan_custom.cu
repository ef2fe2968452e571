// GPU tests: device scans of user structs with non-commutative operators (8 and 16 bytes), every mode.
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

TEST_CASE("device scan of affine maps (8 bytes, composition)", "[gpu][scan]") {
  check_all_modes<affine>(compose_affine{}, affine{3, 7}, false);
}
TEST_CASE("device scan of 2x2 matrices (16 bytes, product)", "[gpu][scan]") {
  check_all_modes<mat2>(mat2_product{}, mat2{{1, 2, 0, 1}}, false);
}
