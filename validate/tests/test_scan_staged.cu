// GPU tests: the staged single-pass tile (items held in shared memory), odd shapes, bitwise agreement.
#include <cstring>

#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {

const carry::scan_options sp_modes[2] = {{carry::scan_algorithm::single_pass, false},
                                         {carry::scan_algorithm::single_pass, true}};

/// Sizes that reach the staged agent (more than one tile): around one and a few tiles, across groups of
/// 32 tiles (the canonical look-back), primes; plus the edge sizes, which one-tile inputs take through
/// the single-tile launch.
template <class P>
std::vector<std::int64_t> staged_sizes() {
  const std::int64_t t = P::tile_items;
  std::vector<std::int64_t> s = edge_sizes(t);
  for (std::int64_t n :
       {2 * t - 1, 2 * t, 2 * t + 1, 31 * t + 7, 32 * t, 33 * t + 1, 70 * t + 5, std::int64_t{1000003}})
    s.push_back(n);
  return capped_sizes(s);
}

/// P as the single-pass and the small-input policy (so no warp-striped small path): every size x mode x
/// inclusive/exclusive x out of place / in place, against the CPU reference and, for sums, CUB.
template <class P, class T, class Op>
void check_staged(Op op, T init, bool sum_op) {
  using HP = carry::tuning::hierarchical_policy<T>;
  std::uint64_t seed = 4100;
  for (const auto& opt : sp_modes)
    seed = check_sizes<HP, P, P>(op, init, sum_op, opt, staged_sizes<P>(), seed);
}

} // namespace

TEST_CASE("staged tile: tuned u32 and u64 sums", "[gpu][staged]") {
  check_staged<carry::tuning::single_pass_policy<std::uint32_t>>(carry::sum{}, std::uint32_t{0}, true);
  check_staged<carry::tuning::single_pass_policy<std::uint64_t>>(carry::sum{}, std::uint64_t{5}, true);
}

TEST_CASE("staged tile: odd shapes (3 warps, chunks not a multiple of 8), bytes, float max",
          "[gpu][staged]") {
  // The first three prefetch their guessed tiles at every size (PREFETCH 1), so the prefetch runs
  // under the sanitizers' small sizes too; the tuned policies prefetch only beyond one wave.
  check_staged<carry::staged_tile_policy<96, 24, 1, true, 1>>(carry::sum{}, std::uint32_t{0}, true);
  check_staged<carry::staged_tile_policy<128, 64, 1, true, 1>>(carry::sum{}, std::uint8_t{0}, true); // packed
  check_staged<carry::staged_tile_policy<128, 64, 1, true, 1>>(carry::maximum{}, std::uint8_t{3}, false);
  check_staged<carry::staged_tile_policy<64, 8, 1, false>>(carry::maximum{}, -1e30f, false);
}

TEST_CASE("staged tile: non-commutative operators (8-byte and 16-byte types)", "[gpu][staged]") {
  check_staged<carry::staged_tile_policy<256, 16, 6>>(compose_affine{}, affine{3, 7}, false);
  check_staged<carry::staged_tile_policy<64, 4, 1>>(mat2_product{}, mat2{{1, 2, 0, 1}}, false);
}

TEST_CASE("staged tile: unaligned pointers take element accesses", "[gpu][staged]") {
  using T = std::uint32_t;
  using P = carry::tuning::single_pass_policy<T>;
  using W = carry::device_scan_with<carry::tuning::hierarchical_policy<T>, P, P>;
  for (const auto& opt : sp_modes)
    for (std::int64_t n : {std::int64_t{P::tile_items + 1}, std::int64_t{5 * P::tile_items + 7}})
      check_unaligned_sum<W>(n, opt);
}

TEST_CASE("staged tile: deterministic float sums equal the register tile's bit for bit", "[gpu][staged]") {
  // The staged agent folds in the same order as the register tile of the same shape, so the
  // deterministic mode's bits do not depend on which of the two runs.
  using staged = carry::tuning::single_pass_policy<float>;
  using regs = carry::tile_policy<carry::block_scan_algorithm::coarsened, staged::block_threads,
                                  staged::items_per_thread, true>;
  using HP = carry::tuning::hierarchical_policy<float>;
  const carry::scan_options det{carry::scan_algorithm::single_pass, true};
  for (std::int64_t n : capped_sizes({std::int64_t{40} * staged::tile_items + 123, // > 2048 tiles:
                                      std::int64_t{2049} * staged::tile_items + 1})) {
    const auto in = random_reals(n, n);
    device_buffer<float> d_in(n), d_a(n), d_b(n);
    d_in.upload(in);
    for (int exclusive = 0; exclusive < 2; ++exclusive) {
      auto run = [&](auto wrapper, float* out) {
        using W = decltype(wrapper);
        std::size_t bytes = 0;
        auto call = [&](void* tmp) {
          return exclusive ? W::exclusive_scan(tmp, bytes, d_in.ptr, out, carry::sum{}, 0.5f, n, det)
                           : W::inclusive_scan(tmp, bytes, d_in.ptr, out, carry::sum{}, n, det);
        };
        REQUIRE(call(nullptr) == cudaSuccess);
        device_buffer<unsigned char> tmp(bytes);
        tmp.poison();
        REQUIRE(call(tmp.ptr) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      };
      d_a.poison();
      d_b.poison();
      run(carry::device_scan_with<HP, staged, staged>{}, d_a.ptr);
      run(carry::device_scan_with<HP, regs, regs>{}, d_b.ptr);
      const auto a = d_a.download(n), b = d_b.download(n);
      INFO("n = " << n << (exclusive ? ", exclusive" : ", inclusive"));
      CHECK(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
      // sanity: close to the double-precision reference
      double acc = exclusive ? 0.5 : 0.0, worst = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        if (!exclusive) acc += in[i];
        worst = std::max(worst, std::abs(a[i] - acc));
        if (exclusive) acc += in[i];
      }
      CHECK(worst < 0.05);
    }
  }
}
