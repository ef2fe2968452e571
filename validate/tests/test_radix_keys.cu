// GPU tests of sort_keys / sort_keys_descending: every key type, edge sizes around the tile and the
// cluster limit, all three pass structures, distributions, partial bit ranges, float specials; each
// against std::stable_sort on the CPU and bitwise against CUB.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "tests/common/radix_harness.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;
using A = carry::radix_sort_algorithm;

namespace {
constexpr A all_algorithms[] = {A::automatic, A::onesweep, A::three_kernel};

// Which large onesweep tiles take dynamic shared memory (radix_detail::dynamic_tile_storage), so that
// these tests know they run them: 8-byte keys placed at 384 x 15 (71 KB) and the wide tile of 4-byte
// keys (384 x 24 placed, 63.5 KB; from 2^25 keys); the 256-thread 4-byte tile (43 KB) and
// the mid tiles stay static
namespace rd = carry::radix_detail;
template <class K>
using large_storage = rd::onesweep_storage<rd::tile_shape<K, rd::null_value>::items, false, K, rd::null_value,
                                           rd::radix_digit<K>>;
static_assert(rd::dynamic_tile_storage<large_storage<std::uint64_t>> ==
              (8 <= carry::radix_tuning::default_policy::placed_key_bytes));
static_assert(rd::dynamic_tile_storage<large_storage<double>> ==
              (8 <= carry::radix_tuning::default_policy::placed_key_bytes));
static_assert(!rd::dynamic_tile_storage<large_storage<std::uint32_t>>);
static_assert(rd::dynamic_tile_storage<rd::onesweep_storage<
                  rd::tile_shape<std::uint32_t, rd::null_value>::items, false, std::uint32_t, rd::null_value,
                  rd::radix_digit<std::uint32_t>,
                  carry::radix_tuning::wide_threads<carry::radix_tuning::default_policy, false, 4>>>);
static_assert(!rd::dynamic_tile_storage<
              rd::onesweep_storage<carry::radix_tuning::mid_items<carry::radix_tuning::default_policy, 8>(),
                                   false, std::uint64_t, rd::null_value, rd::radix_digit<std::uint64_t>>>);

/// Every structure at edge sizes: the cluster path's limit (16 of its largest tiles), the onesweep's
/// mid-size and large tiles (onesweep_edge_sizes: always run, whatever max_n, so that every key type
/// meets both tiles), 16 large tiles, up to max_n.
template <class K>
void sizes_case(std::int64_t max_n, bool every_form = true) {
  using nv = carry::radix_detail::null_value;
  const std::int64_t tile = carry::radix_detail::tile_shape<K, nv>::tile_items;
  const std::int64_t ctile = carry::radix_detail::cluster_shape<K, nv>::tile_items;
  auto sizes = edge_sizes(tile);
  for (std::int64_t extra : {16 * ctile - 1, 16 * ctile, 16 * ctile + 1, 16 * tile - 1, 16 * tile,
                             16 * tile + 1, std::int64_t{(1 << 20) + 3}})
    sizes.push_back(extra);
  const int bits = 8 * static_cast<int>(sizeof(K));
  for (std::int64_t n : sort_sizes<K, nv>(sizes, max_n)) {
    const auto keys =
        make_keys<K>(static_cast<std::size_t>(n), key_dist::uniform, static_cast<std::uint64_t>(n));
    for (A a : sort_forms(every_form))
      for (bool desc : test_directions()) check_keys(keys, 0, bits, desc, with_algorithm(a));
  }
}
} // namespace

TEST_CASE("sort_keys u32 and f32: edge sizes, every pass structure, both directions", "[radix]") {
  sizes_case<std::uint32_t>(std::int64_t{1} << 21);
  sizes_case<float>(std::int64_t{1} << 21);
}

TEST_CASE("sort_keys u32: the wide tile from its threshold (whole and partial last tiles), both directions",
          "[radix]") {
  namespace rt = carry::radix_tuning;
  using dp = rt::default_policy;
  constexpr std::int64_t wtile =
      std::int64_t{rt::wide_threads<dp, false, 4>} * rd::tile_shape<std::uint32_t, rd::null_value>::items;
  const std::int64_t wbig = (rt::wide_min_n<dp> + wtile - 1) / wtile * wtile;
  for (std::int64_t n :
       capped_sizes({rt::wide_min_n<dp> - 1, wbig + 1})) { // the tile below, then the wide one
    const auto keys = make_keys<std::uint32_t>(static_cast<std::size_t>(n), key_dist::uniform,
                                               static_cast<std::uint64_t>(n));
    check_keys(keys, 0, 32, false, with_algorithm(A::automatic));
    check_keys(keys, 0, 32, true, with_algorithm(A::onesweep));
  }
}

TEST_CASE("sort_keys: every other key type at edge sizes", "[radix]") {
  const std::int64_t cap = 70000;
  sizes_case<std::uint8_t>(cap);
  sizes_case<std::uint16_t>(cap);
  sizes_case<std::uint64_t>(cap);
  sizes_case<std::int8_t>(cap, false); // the sanitizer mode: the automatic form alone from here on
  sizes_case<std::int16_t>(cap, false);
  sizes_case<std::int32_t>(cap, false);
  sizes_case<std::int64_t>(cap, false);
  sizes_case<double>(cap, false);
  sizes_case<__half>(cap, false);
  sizes_case<__nv_bfloat16>(cap, false);
}

TEST_CASE("sort_keys: distributions (the adaptive paths: sorted, equal, two values, constant digits)",
          "[radix]") {
  for (std::int64_t n : capped_sizes({1000, 100003, (1 << 20) + 3, (1 << 23) + 5})) {
    for (key_dist d : {key_dist::uniform, key_dist::sorted, key_dist::reversed, key_dist::all_equal,
                       key_dist::two_values, key_dist::low_entropy}) {
      INFO(dist_name(d));
      const auto k32 = make_keys<std::uint32_t>(static_cast<std::size_t>(n), d, 11);
      for (A a : sort_forms(d == key_dist::uniform))
        for (bool desc : test_directions()) check_keys(k32, 0, 32, desc, with_algorithm(a));
      check_keys(k32, 0, 32, false, with_algorithm(A::onesweep, false)); // adaptivity off
      if (n <= (1 << 20) + 3) {
        const auto k64 = make_keys<std::uint64_t>(static_cast<std::size_t>(n), d, 12);
        check_keys(k64, 0, 64, false, with_algorithm(A::automatic));
        check_keys(k64, 0, 64, true, with_algorithm(A::onesweep));
        const auto f = make_keys<float>(static_cast<std::size_t>(n), d, 13);
        check_keys(f, 0, 32, false, with_algorithm(A::automatic));
      }
    }
  }
}

TEST_CASE("sort_keys: all keys equal (the finish is a fill) and the cases that must stay a copy", "[radix]") {
  for (std::int64_t n : capped_sizes({5000, 19999, 100003, (1 << 20) + 3})) { // one tile, four, many
    const auto un = static_cast<std::size_t>(n);
    // a fill: every key the same over all its bits (integers, floats not zero)
    check_keys(std::vector<std::uint32_t>(un, 0xDEADBEEFu), 0, 32, false, with_algorithm(A::automatic));
    check_keys(std::vector<std::uint64_t>(un, 0x0123456789ABCDEFull), 0, 64, true,
               with_algorithm(A::onesweep));
    check_keys(std::vector<std::int8_t>(un, std::int8_t{-3}), 0, 8, false, with_algorithm(A::onesweep));
    check_keys(std::vector<float>(un, -2.5f), 0, 32, false, with_algorithm(A::onesweep));
    // a copy: +0.0 and -0.0 have one image; the input's mix must come back in input order
    std::vector<float> zf(un);
    std::vector<double> zd(un);
    const auto bits = random_bits<std::uint32_t>(un, 41);
    for (std::size_t i = 0; i < un; ++i)
      zf[i] = (bits[i] & 1u) ? -0.0f : 0.0f, zd[i] = (bits[i] & 2u) ? -0.0 : 0.0;
    for (bool desc : test_directions()) {
      check_keys(zf, 0, 32, desc, with_algorithm(A::onesweep));
      check_keys(zd, 0, 64, desc, with_algorithm(A::automatic));
    }
    // a copy: the sorted bits equal, the others not (bits [0, 16) constant, [16, 32) random)
    std::vector<std::uint32_t> low(un);
    for (std::size_t i = 0; i < un; ++i) low[i] = bits[i] << 16 | 0x1234u;
    check_keys(low, 0, 16, false, with_algorithm(A::onesweep));
    check_keys(low, 8, 16, true, with_algorithm(A::onesweep));
  }
}

TEST_CASE("sort_keys past clear-once: alternating look-back sets, passes skipped, leftovers of other calls",
          "[radix]") {
  // 2^24 + 5 u32 keys: 3277 tiles, 4 passes' words (13 MB) past clear_once_bytes_max: two sets alternate,
  // executed pass j taking set j % 2. Constant bytes skip passes so that j and the pass index differ; one
  // temp buffer (0xFF at first) serves every call, so each starts on the previous call's leftovers.
  const std::int64_t n = (std::int64_t{1} << 24) + 5;
  if (capped_sizes({n}).empty()) return;
  const auto un = static_cast<std::size_t>(n);
  const auto r = random_bits<std::uint32_t>(un, 51);
  device_buffer<std::uint32_t> in(un), out(un, 16);
  std::size_t bytes = 0;
  REQUIRE(carry::sort_keys(nullptr, bytes, in.ptr, out.ptr, n) == cudaSuccess);
  {
    const auto l = carry::radix_detail::make_sort_layout(
        carry::radix_detail::sort_path::onesweep, n, 4,
        carry::radix_detail::tile_shape<std::uint32_t, carry::radix_detail::null_value>::tile_items, 4, 0,
        false, 0, 0);
    REQUIRE(l.alternate);
  }
  auto temp = dirty_temp(bytes, 0xFF, 1);
  const std::uint32_t keep[] = {0xFFFFFFFFu, 0xFFFFFF00u, 0xFFFF00FFu, 0xFF00FF00u,
                                0x00FFFF00u, 0x000000FFu, 0xFFFFFFFFu};
  for (std::uint32_t mask : keep)
    for (bool desc : test_directions()) {
      INFO("random bits " << std::hex << mask << (desc ? " descending" : ""));
      std::vector<std::uint32_t> keys(un);
      for (std::size_t i = 0; i < un; ++i) keys[i] = (r[i] & mask) | (0xA5C3E187u & ~mask);
      in.upload(keys);
      out.poison();
      for (int rep = 0; rep < 2; ++rep) {
        REQUIRE((desc ? carry::sort_keys_descending(temp.ptr, bytes, in.ptr, out.ptr, n)
                      : carry::sort_keys(temp.ptr, bytes, in.ptr, out.ptr, n)) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(out.download(un) == reference_sorted_keys(keys, desc));
        REQUIRE(out.guard_intact());
      }
    }
}

namespace {
/// Ascending keys 0 .. n-1 with keys i and i + 1 swapped (the only pair out of order), sorted on the
/// onesweep path (whose histogram looks for that pair) from `offset` keys into the input buffer
/// (offset 1: not 16-byte aligned); against std::sort.
template <class K>
void one_inversion(std::int64_t n, std::int64_t i, int offset) {
  INFO("n " << n << ", swapped at " << i << ", offset " << offset << ", key bytes " << sizeof(K));
  const auto un = static_cast<std::size_t>(n);
  std::vector<K> keys(un);
  for (std::size_t j = 0; j < un; ++j) keys[j] = static_cast<K>(j);
  std::swap(keys[static_cast<std::size_t>(i)], keys[static_cast<std::size_t>(i) + 1]);
  std::vector<K> want = keys;
  std::sort(want.begin(), want.end());
  std::vector<K> padded(static_cast<std::size_t>(offset), K{0});
  padded.insert(padded.end(), keys.begin(), keys.end());
  device_buffer<K> in(padded.size()), out(un, 16);
  in.upload(padded);
  out.poison();
  const carry::radix_sort_options opt{A::onesweep, true};
  const int bits = 8 * static_cast<int>(sizeof(K));
  std::size_t bytes = 0;
  REQUIRE(carry::sort_keys(nullptr, bytes, in.ptr + offset, out.ptr, n, 0, bits, opt) == cudaSuccess);
  auto temp = dirty_temp(bytes, 0xFF, 1);
  REQUIRE(carry::sort_keys(temp.ptr, bytes, in.ptr + offset, out.ptr, n, 0, bits, opt) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(out.download(un) == want);
  REQUIRE(out.guard_intact());
}
} // namespace

TEST_CASE("sort_keys: one pair out of order at each boundary of the histogram's reads, aligned or not",
          "[radix]") {
  // 16-byte vectors of 2 (u64), 8 (u16), 4 (u32) keys; lanes; rounds; warp segments; blocks
  for (int offset : {0, 1})
    for (std::int64_t i : {0,   1,   2,   3,   4,   7,    8,    15,   16,   31,   32,   127,   128,
                           129, 255, 256, 511, 512, 1023, 1024, 2047, 2048, 4095, 8191, 16383, 19998}) {
      one_inversion<std::uint32_t>(20000, i, offset);
      one_inversion<std::uint64_t>(20000, i, offset);
      one_inversion<std::uint16_t>(20000, i, offset);
    }
  for (int offset : {0, 1, 3})
    for (std::int64_t i : {0, 15, 16, 31, 32, 100, 248}) one_inversion<std::uint8_t>(250, i, offset);
}

TEST_CASE("sort_keys: partial bit ranges", "[radix]") {
  for (std::int64_t n : capped_sizes({5000, 100003})) {
    const auto k = make_keys<std::uint32_t>(static_cast<std::size_t>(n), key_dist::uniform, 21);
    const auto s = make_keys<std::int64_t>(static_cast<std::size_t>(n), key_dist::low_entropy, 22);
    for (A a : all_algorithms)
      for (bool desc : test_directions()) {
        for (auto [b, e] : {std::pair{4, 20}, std::pair{0, 1}, std::pair{31, 32}, std::pair{7, 7},
                            std::pair{0, 13}, std::pair{16, 32}})
          check_keys(k, b, e, desc, with_algorithm(a));
        for (auto [b, e] : {std::pair{40, 64}, std::pair{63, 64}, std::pair{0, 17}})
          check_keys(s, b, e, desc, with_algorithm(a));
      }
  }
}

TEST_CASE("sort_keys: mid sizes by buckets where the top digit allows it, by the passes where it does not",
          "[radix]") {
  namespace rt = carry::radix_tuning;
  STATIC_REQUIRE(rt::bucket_max_n<carry::radix_tuning::default_policy> ==
                 (std::int64_t{1} << 18)); // the sizes below lie inside it
  // which way the histogram must send each input (sort_control::bucket_top: the MSD pass + 1, 0 = the
  // passes): uniform keys make buckets of n / 256 (MSD pass 3); keys below 2^24 have a constant top digit
  // (skipped), so pass 2 splits them; bits 4..20 run two passes (MSD pass 1); the AND of three random
  // words puts about 34 % of the keys in bucket 0, more than a block holds, so the passes sort them
  struct input {
    key_dist dist;
    std::uint32_t mask;
    int begin, end;
    unsigned top;
  };
  const input inputs[] = {{key_dist::uniform, ~0u, 0, 32, 4},
                          {key_dist::uniform, 0x00FFFFFFu, 0, 32, 3},
                          {key_dist::uniform, ~0u, 4, 20, 2},
                          {key_dist::low_entropy, ~0u, 0, 32, 0},
                          {key_dist::two_values, ~0u, 0, 32, 0}};
  for (std::int64_t n : capped_sizes({65537, 100003, std::int64_t{1} << 18})) {
    for (const input& in : inputs) {
      auto keys =
          make_keys<std::uint32_t>(static_cast<std::size_t>(n), in.dist, static_cast<std::uint64_t>(n) + 5);
      for (auto& k : keys) k &= in.mask;
      const int passes = carry::radix_detail::radix_passes(in.begin, in.end, rt::digit_bits);
      for (bool desc : test_directions()) {
        INFO(dist_name(in.dist) << " mask " << std::hex << in.mask << std::dec << " bits " << in.begin << ".."
                                << in.end);
        unsigned top = 99;
        check_sort<false>(keys, std::vector<carry::radix_detail::null_value>{}, in.begin, in.end, desc,
                          with_algorithm(A::automatic), true, [&](const unsigned char* t) {
                            top = mid_control_after<std::uint32_t>(t, n, passes).bucket_top;
                          });
        REQUIRE(top == (bucket_tiles(n) ? in.top : 0u));
      }
    }
    // 2-byte keys: the high byte splits, the low byte sorts each bucket; 8-byte keys: eight passes
    check_keys(make_keys<std::uint16_t>(static_cast<std::size_t>(n), key_dist::uniform, 7), 0, 16, false,
               with_algorithm(A::automatic));
    check_keys(make_keys<double>(static_cast<std::size_t>(n), key_dist::specials, 8), 0, 64, true,
               with_algorithm(A::automatic));
  }
}

TEST_CASE("sort_keys: cluster sizes by the local form, and by the passes where a range would not fit",
          "[radix]") {
  // the cluster path (radix_tuning::cluster_local): uniform top digits make ranges that fit a block (the
  // top digit's pass, then each block alone); a constant top digit (keys below 2^24) or a skewed one
  // (low entropy) sends the call to the LSD passes after that exchange, the constant one without the
  // top pass; two passes (bits 4..20, u16), one pass (u8: no local form), 8-byte keys (pairs: test_radix_pairs).
  // Past 8 tiles of the smallest shape the tiles are the largest, ranked by wide blocks (radix_tuning::cluster_wide)
  using nv = carry::radix_detail::null_value;
  const std::int64_t ctile = carry::radix_detail::cluster_shape<std::uint32_t, nv>::tile_items;
  struct input {
    key_dist dist;
    std::uint32_t mask;
    int begin, end;
  };
  const input inputs[] = {{key_dist::uniform, ~0u, 0, 32},     {key_dist::uniform, 0x00FFFFFFu, 0, 32},
                          {key_dist::low_entropy, ~0u, 0, 32}, {key_dist::two_values, ~0u, 0, 32},
                          {key_dist::uniform, ~0u, 4, 20},     {key_dist::uniform, ~0u, 0, 13}};
  for (std::int64_t n :
       capped_sizes({1, 2, 255, 1000, 4097, 16384, 30001, 40000, 16 * ctile - 1, 16 * ctile})) {
    for (const input& in : inputs) {
      auto keys =
          make_keys<std::uint32_t>(static_cast<std::size_t>(n), in.dist, static_cast<std::uint64_t>(n) + 11);
      for (auto& k : keys) k &= in.mask;
      for (bool desc : test_directions()) {
        INFO(dist_name(in.dist) << " mask " << std::hex << in.mask << std::dec << " bits " << in.begin << ".."
                                << in.end);
        check_keys(keys, in.begin, in.end, desc, with_algorithm(A::automatic));
      }
    }
    check_keys(make_keys<std::uint16_t>(static_cast<std::size_t>(n), key_dist::uniform, 3), 0, 16, false,
               with_algorithm(A::automatic));
    check_keys(make_keys<std::uint8_t>(static_cast<std::size_t>(n), key_dist::uniform, 4), 0, 8, true,
               with_algorithm(A::automatic));
    check_keys(make_keys<std::uint64_t>(static_cast<std::size_t>(n), key_dist::uniform, 5), 0, 64, false,
               with_algorithm(A::automatic));
  }
}

TEST_CASE("sort_keys: keys grouped by their low byte (a first pass of uniform warps and tiles)", "[radix]") {
  for (std::int64_t n : capped_sizes({1000, 100003, (1 << 20) + 3})) {
    const auto k32 =
        grouped_by_low_byte(make_keys<std::uint32_t>(static_cast<std::size_t>(n), key_dist::uniform, 31));
    for (A a : sort_forms(false))
      for (bool desc : test_directions()) check_keys(k32, 0, 32, desc, with_algorithm(a));
    const auto k64 =
        grouped_by_low_byte(make_keys<std::uint64_t>(static_cast<std::size_t>(n), key_dist::uniform, 32));
    check_keys(k64, 0, 64, false, with_algorithm(A::automatic));
  }
}

TEST_CASE("sort_keys: floats with +-0.0, +-inf, NaNs of both signs and denormals", "[radix]") {
  for (std::int64_t n : capped_sizes({100, 4097, 100003})) {
    for (A a : sort_forms(n <= 100)) // the sanitizer mode: every form at the smallest size only
      for (bool desc : test_directions()) {
        check_keys(make_keys<float>(static_cast<std::size_t>(n), key_dist::specials, 31), 0, 32, desc,
                   with_algorithm(a));
        check_keys(make_keys<double>(static_cast<std::size_t>(n), key_dist::specials, 32), 0, 64, desc,
                   with_algorithm(a));
        check_keys(make_keys<__half>(static_cast<std::size_t>(n), key_dist::specials, 33), 0, 16, desc,
                   with_algorithm(a));
        check_keys(make_keys<std::int32_t>(static_cast<std::size_t>(n), key_dist::specials, 34), 0, 32, desc,
                   with_algorithm(a));
      }
  }
}

TEST_CASE("sort_keys: n = 0 writes nothing; bad arguments are refused and write nothing", "[radix][empty]") {
  device_buffer<std::uint32_t> in(100), out(100);
  in.upload(make_keys<std::uint32_t>(100, key_dist::uniform, 1));
  out.poison();
  std::size_t bytes = 0;
  REQUIRE(carry::sort_keys(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                           static_cast<std::uint32_t*>(nullptr), 0) == cudaSuccess);
  device_buffer<unsigned char> t0(bytes);
  REQUIRE(carry::sort_keys(t0.ptr, bytes, in.ptr, out.ptr, 0) == cudaSuccess);
  REQUIRE(carry::sort_keys(nullptr, bytes, in.ptr, out.ptr, 100) == cudaSuccess);
  device_buffer<unsigned char> t(bytes);
  std::size_t b = bytes;
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, out.ptr, -1) == cudaErrorInvalidValue);
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, out.ptr, 100, 0, 33) == cudaErrorInvalidValue);
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, out.ptr, 100, -1, 8) == cudaErrorInvalidValue);
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, out.ptr, 100, 9, 8) == cudaErrorInvalidValue);
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, out.ptr, 0, 9, 8) ==
          cudaErrorInvalidValue); // bits checked at n = 0 too
  REQUIRE(carry::sort_keys(t.ptr, b, static_cast<const std::uint32_t*>(nullptr), out.ptr, 100) ==
          cudaErrorInvalidValue);
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, static_cast<std::uint32_t*>(nullptr), 100) ==
          cudaErrorInvalidValue);
  std::size_t small = bytes - 1;
  REQUIRE(carry::sort_keys(t.ptr, small, in.ptr, out.ptr, 100) == cudaErrorInvalidValue);
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, in.ptr + 50, 100) == cudaErrorInvalidValue); // overlap
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, in.ptr, 100) == cudaErrorInvalidValue);      // in place
  device_buffer<std::uint32_t> v(100);
  REQUIRE(carry::sort_pairs(t.ptr, b, in.ptr, out.ptr, static_cast<const std::uint32_t*>(nullptr), v.ptr,
                            100) == cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(out.download(100) == std::vector<std::uint32_t>(100, 0xA5A5A5A5u));
  // an empty bit range: the input order (a copy)
  REQUIRE(carry::sort_keys(t.ptr, b, in.ptr, out.ptr, 100, 5, 5) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(out.download(100) == in.download(100));
}
