// GPU test: more than 2^31 items (uint8), hierarchical and single pass, checked against the CPU reference.
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

TEST_CASE("uint8 scan of 2^31 + 123 items", "[gpu][scan][large]") {
  if (sanitize_mode()) return; // sizes past 2^31 (or 2^29): not for a sanitizer
  const std::int64_t n = (std::int64_t{1} << 31) + 123;
  std::vector<std::uint8_t> in(n);
  std::mt19937_64 g(2024);
  for (std::int64_t i = 0; i < n; i += 8) {
    std::uint64_t r = g();
    std::memcpy(in.data() + i, &r, std::min<std::int64_t>(8, n - i));
  }
  std::vector<std::uint8_t> ref(n);
  std::uint8_t acc = 0;
  for (std::int64_t i = 0; i < n; ++i) ref[i] = acc = static_cast<std::uint8_t>(acc + in[i]);
  for (const auto& opt : {carry::scan_options{carry::scan_algorithm::hierarchical, false},
                          carry::scan_options{carry::scan_algorithm::single_pass, false},
                          carry::scan_options{carry::scan_algorithm::single_pass, true}}) {
    INFO("algorithm " << static_cast<int>(opt.algorithm) << (opt.deterministic ? " deterministic" : ""));
    auto run = [&](void* tmp, std::size_t& bytes, const std::uint8_t* d_in, std::uint8_t* d_out,
                   std::int64_t m) { return carry::inclusive_sum(tmp, bytes, d_in, d_out, m, opt); };
    run_and_check(run, in, ref, opt.deterministic); // the deterministic run goes in place
  }
}
