// GPU tests: device scans of float and double (sums exact on whole numbers, max), every mode.
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

TEST_CASE("device scan float sum", "[gpu][scan]") {
  check_all_modes<float>(carry::sum{}, 0.f, true);
}
TEST_CASE("device scan double sum", "[gpu][scan]") {
  check_all_modes<double>(carry::sum{}, 0.0, true);
}
TEST_CASE("device scan float max", "[gpu][scan]") {
  check_all_modes<float>(carry::maximum{}, -1.f, false);
}
TEST_CASE("device scan double min", "[gpu][scan]") {
  check_all_modes<double>(carry::minimum{}, 100.0, false);
}
