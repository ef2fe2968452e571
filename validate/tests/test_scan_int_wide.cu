// GPU tests: device scans of 32- and 64-bit integers in every mode, against the CPU reference and CUB.
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

TEST_CASE("device scan int32", "[gpu][scan]") {
  check_all_modes<std::int32_t>(carry::sum{}, 0, true);
}
TEST_CASE("device scan uint32", "[gpu][scan]") {
  check_all_modes<std::uint32_t>(carry::sum{}, 0u, true);
}
TEST_CASE("device scan int64", "[gpu][scan]") {
  check_all_modes<std::int64_t>(carry::sum{}, std::int64_t{0}, true);
}
TEST_CASE("device scan uint64", "[gpu][scan]") {
  check_all_modes<std::uint64_t>(carry::sum{}, std::uint64_t{0}, true);
}
TEST_CASE("device scan uint32 with a nonzero init", "[gpu][scan]") {
  check_all_modes<std::uint32_t>(carry::sum{}, 12345u, false);
}
