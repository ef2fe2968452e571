// GPU tests: device scans of 8- and 16-bit integers in every mode, against the CPU reference and CUB.
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

TEST_CASE("device scan int8", "[gpu][scan]") {
  check_all_modes<std::int8_t>(carry::sum{}, std::int8_t{0}, true);
}
TEST_CASE("device scan uint8", "[gpu][scan]") {
  check_all_modes<std::uint8_t>(carry::sum{}, std::uint8_t{0}, true);
}
TEST_CASE("device scan int16", "[gpu][scan]") {
  check_all_modes<std::int16_t>(carry::sum{}, std::int16_t{0}, true);
}
TEST_CASE("device scan uint16", "[gpu][scan]") {
  check_all_modes<std::uint16_t>(carry::sum{}, std::uint16_t{0}, true);
}
TEST_CASE("device scan uint8 max with a nonzero init", "[gpu][scan]") {
  check_all_modes<std::uint8_t>(carry::maximum{}, std::uint8_t{3}, false);
}
