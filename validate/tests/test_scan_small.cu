// GPU tests: the small-input path (warp-striped tiles: one tile, one cluster, look-back).
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {

const carry::scan_options small_modes[3] = {carry::scan_options{},
                                            {carry::scan_algorithm::single_pass, false},
                                            {carry::scan_algorithm::single_pass, true}};

/// Sizes around a small policy's warp segment, tile and cluster limit, a run across several groups
/// of 32 tiles (the canonical look-back's boundaries), primes, and small_n_max itself.
template <class P>
std::vector<std::int64_t> small_sizes() {
  const std::int64_t tile = P::tile_items, warp = 32 * P::items_per_thread, cluster = P::cluster_tiles;
  // clang-format off
  std::vector<std::int64_t> s{0, 1, 2, 31, 33,
                              warp - 1, warp, warp + 1,
                              tile - 1, tile, tile + 1, 2 * tile, 2 * tile + 3,
                              3 * tile, 3 * tile + 1, 33 * tile, 33 * tile + 1, 70 * tile + 5,
                              cluster * tile, cluster * tile + 1,
                              1009, 65521, carry::tuning::small_n_max};
  // clang-format on
  s.erase(std::remove_if(s.begin(), s.end(),
                         [](std::int64_t n) { return n < 0 || n > carry::tuning::small_n_max; }),
          s.end());
  return capped_sizes(s);
}

/// Every small size x mode x inclusive/exclusive x out of place / in place,
/// against the CPU reference and, for sums, CUB.
template <class P, class T, class Op>
void check_small(Op op, T init, bool sum_op) {
  using HP = carry::tuning::hierarchical_policy<T>;
  using SP = carry::tuning::single_pass_policy<T>;
  std::uint64_t seed = 900;
  for (const auto& opt : small_modes)
    seed = check_sizes<HP, SP, P>(op, init, sum_op, opt, small_sizes<P>(), seed);
}

// Shapes: a narrow tile that never runs as a cluster (many tiles: look-back across groups), an odd one
// (3 warps, 3 chunks, clusters of up to 8 tiles), the narrow one in clusters of up to 16 tiles, and the
// tuned one of the public entry points.
template <class T>
using narrow = carry::small_tile_policy<T, 64, 1, 1>;
template <class T>
using odd = carry::small_tile_policy<T, 96, 3, 8>;
template <class T>
using clustered = carry::small_tile_policy<T, 64, 1, 16>;
template <class T>
using tuned = carry::tuning::small_policy<T>;

} // namespace

TEST_CASE("small path: u32 sums, every shape", "[gpu][small]") {
  check_small<narrow<std::uint32_t>>(carry::sum{}, 0u, true);
  check_small<odd<std::uint32_t>>(carry::sum{}, 0u, true);
  check_small<clustered<std::uint32_t>>(carry::sum{}, 0u, true);
  check_small<tuned<std::uint32_t>>(carry::sum{}, 0u, true);
  check_small<tuned<std::uint32_t>>(carry::sum{}, 7u, true); // exclusive init not 0: CPU only
}

TEST_CASE("small path: u8, u64, double and float max", "[gpu][small]") {
  check_small<narrow<std::uint8_t>>(carry::sum{}, std::uint8_t{0}, true);
  check_small<tuned<std::uint8_t>>(carry::sum{}, std::uint8_t{0}, true);
  check_small<odd<std::uint64_t>>(carry::sum{}, std::uint64_t{0}, true);
  check_small<tuned<std::uint64_t>>(carry::sum{}, std::uint64_t{0}, true);
  check_small<clustered<std::uint64_t>>(carry::sum{}, std::uint64_t{0}, true);
  check_small<narrow<double>>(carry::sum{}, 0.0, true);
  check_small<tuned<float>>(carry::maximum{}, -1.0f, false);
}

TEST_CASE("small path: non-commutative operators (8-byte and 16-byte types)", "[gpu][small]") {
  check_small<narrow<affine>>(compose_affine{}, affine{3, 7}, false);
  check_small<odd<affine>>(compose_affine{}, affine{3, 7}, false);
  check_small<clustered<affine>>(compose_affine{}, affine{3, 7}, false);
  check_small<clustered<mat2>>(mat2_product{}, mat2{{1, 2, 3, 5}}, false);
  check_small<narrow<mat2>>(mat2_product{}, mat2{{1, 2, 3, 5}}, false);
  check_small<tuned<mat2>>(mat2_product{}, mat2{{1, 2, 3, 5}}, false);
}

TEST_CASE("small path: unaligned pointers take element accesses", "[gpu][small]") {
  using P = odd<std::uint32_t>;
  using HP = carry::tuning::hierarchical_policy<std::uint32_t>;
  using SP = carry::tuning::single_pass_policy<std::uint32_t>;
  for (const auto& opt : small_modes)
    for (std::int64_t n : small_sizes<P>()) check_unaligned_sum<carry::device_scan_with<HP, SP, P>>(n, opt);
}

TEST_CASE("small path: deterministic float sums repeat bit for bit", "[gpu][small]") {
  using P = narrow<float>;
  using HP = carry::tuning::hierarchical_policy<float>;
  using SP = carry::tuning::single_pass_policy<float>;
  using W = carry::device_scan_with<HP, SP, P>;
  const carry::scan_options det{carry::scan_algorithm::single_pass, true};
  for (std::int64_t n : {std::int64_t{3 * P::tile_items}, std::int64_t{65521}}) {
    const auto in = random_reals(n, n); // real values: a different grouping would change the bits
    device_buffer<float> d_in(n), d_out(n);
    d_in.upload(in);
    std::size_t bytes = 0;
    REQUIRE(W::inclusive_scan(nullptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, n, det) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    std::vector<float> first;
    for (int run = 0; run < 20; ++run) {
      d_out.poison();
      REQUIRE(W::inclusive_scan(tmp.ptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, n, det) == cudaSuccess);
      auto got = d_out.download(n);
      if (run == 0)
        first = got;
      else
        CHECK(std::memcmp(first.data(), got.data(), n * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("small path: deterministic float sums agree across launch modes", "[gpu][small]") {
  // One tile shape, every launch choice for the same input and n: one cluster (up to 16 tiles) and the
  // canonical look-back (narrow, and the clustered policy above 16 tiles), out of place and in place.
  // Deterministic mode promises the same bits from each; 75 tiles cross two group boundaries of 32.
  using HP = carry::tuning::hierarchical_policy<float>;
  using SP = carry::tuning::single_pass_policy<float>;
  const carry::scan_options det{carry::scan_algorithm::single_pass, true};
  constexpr std::int64_t tile = narrow<float>::tile_items;
  for (std::int64_t n : {3 * tile - 5, 16 * tile, 20 * tile + 7, 75 * tile}) {
    const auto in = random_reals(n, n + 5); // real values: a different grouping would change the bits
    device_buffer<float> d_in(n), d_out(n);
    d_in.upload(in);
    auto run = [&](auto tag, bool exclusive, bool in_place) {
      using W = carry::device_scan_with<HP, SP, decltype(tag)>;
      std::size_t bytes = 0;
      REQUIRE(W::inclusive_scan(nullptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, n, det) == cudaSuccess);
      device_buffer<unsigned char> tmp(bytes);
      tmp.poison();
      if (in_place)
        d_out.upload(in);
      else
        d_out.poison();
      const float* src = in_place ? d_out.ptr : d_in.ptr;
      if (exclusive)
        REQUIRE(W::exclusive_scan(tmp.ptr, bytes, src, d_out.ptr, carry::sum{}, 0.5f, n, det) == cudaSuccess);
      else
        REQUIRE(W::inclusive_scan(tmp.ptr, bytes, src, d_out.ptr, carry::sum{}, n, det) == cudaSuccess);
      return d_out.download(n);
    };
    for (int exclusive = 0; exclusive < 2; ++exclusive) {
      INFO("n = " << n << ", exclusive = " << exclusive);
      const auto a = run(narrow<float>{}, exclusive, false);
      for (int in_place = 0; in_place < 2; ++in_place) {
        INFO("in place = " << in_place);
        const auto b = run(clustered<float>{}, exclusive, in_place),
                   d = run(narrow<float>{}, exclusive, in_place);
        CHECK(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
        CHECK(std::memcmp(a.data(), d.data(), n * sizeof(float)) == 0);
      }
    }
  }
}
