// GPU tests: the public API's contract (errors, empty input, worked examples, reduce, streams) and the
// single pass under stress (back-to-back launches, many streams, more tiles than fit, determinism).
#include <algorithm>

#include "tests/common/scan_harness.cuh"

#include <carry/scan/device_reduce.cuh>
#include <carry/scan/device_scan_by_key.cuh>

using namespace carry_validate;

namespace {
const carry::scan_options hier{carry::scan_algorithm::hierarchical, false};
const carry::scan_options single{carry::scan_algorithm::single_pass, false};
const carry::scan_options single_det{carry::scan_algorithm::single_pass, true};
const carry::scan_options all_modes[4] = {carry::scan_options{}, hier, single, single_det};
} // namespace

TEST_CASE("worked examples: seeds and sandwich", "[gpu][api]") {
  for (const auto& opt : all_modes) {
    const std::vector<int> x{3, 1, 7, 0, 4, 1, 6, 3};
    device_buffer<int> d_in(8), d_out(8);
    d_in.upload(x);
    std::size_t bytes = 0;
    REQUIRE(carry::inclusive_sum(nullptr, bytes, d_in.ptr, d_out.ptr, 8, opt) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    REQUIRE(carry::inclusive_sum(tmp.ptr, bytes, d_in.ptr, d_out.ptr, 8, opt) == cudaSuccess);
    CHECK(d_out.download(8) == std::vector<int>{3, 4, 11, 11, 15, 16, 22, 25});
    REQUIRE(carry::exclusive_sum(tmp.ptr, bytes, d_in.ptr, d_out.ptr, 8, opt) == cudaSuccess);
    CHECK(d_out.download(8) == std::vector<int>{0, 3, 4, 11, 11, 15, 16, 22});

    const std::vector<int> sandwich{3, 5, 2, 7, 28, 4, 3, 0, 8, 1};
    device_buffer<int> s_in(10), s_out(10);
    s_in.upload(sandwich);
    REQUIRE(carry::inclusive_sum(nullptr, bytes, s_in.ptr, s_out.ptr, 10, opt) == cudaSuccess);
    device_buffer<unsigned char> tmp2(bytes);
    REQUIRE(carry::inclusive_sum(tmp2.ptr, bytes, s_in.ptr, s_out.ptr, 10, opt) == cudaSuccess);
    auto cuts = s_out.download(10);
    CHECK(cuts == std::vector<int>{3, 8, 10, 17, 45, 49, 52, 52, 60, 61});
    CHECK(100 - cuts.back() == 39);
  }
}

template <class T, class Op>
void check_public_entry(Op op, T init) {
  using S = carry::tuning::small_policy<T>;
  using P = carry::tuning::single_pass_policy<T>;
  std::uint64_t seed = 500;
  for (const auto& opt : all_modes)
    for (std::int64_t n :
         capped_sizes({1, S::tile_items - 1, S::tile_items, S::tile_items + 1, 3 * S::tile_items + 5,
                       carry::tuning::small_n_max - 1, carry::tuning::small_n_max,
                       carry::tuning::small_n_max + 1, P::tile_items + 1, 5 * P::tile_items + 3}))
      for (int exclusive = 0; exclusive < 2; ++exclusive) {
        const auto in = random_values<T>(n, seed++);
        const auto ref = exclusive ? reference_exclusive(in, init, op) : reference_inclusive(in, op);
        auto run = [&](void* tmp, std::size_t& bytes, const T* d_in, T* d_out, std::int64_t m) {
          return exclusive ? carry::exclusive_scan(tmp, bytes, d_in, d_out, op, init, m, opt)
                           : carry::inclusive_scan(tmp, bytes, d_in, d_out, op, m, opt);
        };
        INFO("mode " << static_cast<int>(opt.algorithm) << (opt.deterministic ? " det" : "") << ", "
                     << (exclusive ? "exclusive" : "inclusive"));
        run_and_check(run, in, ref, (n + exclusive) % 2 == 1);
      }
}

TEST_CASE("public entry points around the small-input and single-pass tile edges", "[gpu][api]") {
  check_public_entry<std::uint32_t>(carry::sum{}, 5u);
  check_public_entry<affine>(compose_affine{}, affine{3, 7});
  check_public_entry<double>(carry::sum{}, 0.0);
}

TEST_CASE("bad arguments: cudaErrorInvalidValue and no output written", "[gpu][api]") {
  const std::int64_t n = 100000;
  for (const auto& opt : all_modes) {
    device_buffer<std::uint32_t> d_in(n), d_out(n);
    d_in.upload(random_values<std::uint32_t>(n, 5));
    d_out.poison();
    std::size_t bytes = 0;
    REQUIRE(carry::inclusive_sum(nullptr, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    std::size_t b = bytes;
    CHECK(carry::inclusive_sum(tmp.ptr, b, d_in.ptr, d_out.ptr, -1, opt) == cudaErrorInvalidValue);
    CHECK(carry::inclusive_sum(nullptr, b, d_in.ptr, d_out.ptr, -5, opt) == cudaErrorInvalidValue);
    CHECK(carry::inclusive_sum(tmp.ptr, b, static_cast<const std::uint32_t*>(nullptr), d_out.ptr, n, opt) ==
          cudaErrorInvalidValue);
    CHECK(carry::inclusive_sum(tmp.ptr, b, d_in.ptr, static_cast<std::uint32_t*>(nullptr), n, opt) ==
          cudaErrorInvalidValue);
    std::size_t small = bytes - 1;
    CHECK(carry::exclusive_sum(tmp.ptr, small, d_in.ptr, d_out.ptr, n, opt) == cudaErrorInvalidValue);
    CHECK(carry::exclusive_scan(tmp.ptr, small, d_in.ptr, d_out.ptr, carry::sum{}, 1u, n, opt) ==
          cudaErrorInvalidValue);
    // n == 0: success, nothing written, null pointers fine
    CHECK(carry::inclusive_sum(tmp.ptr, b, d_in.ptr, d_out.ptr, 0, opt) == cudaSuccess);
    CHECK(carry::inclusive_sum(tmp.ptr, b, static_cast<const std::uint32_t*>(nullptr),
                               static_cast<std::uint32_t*>(nullptr), 0, opt) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto out = d_out.download(n);
    std::uint32_t poison;
    std::memset(&poison, poison_byte, sizeof(poison));
    CHECK(std::all_of(out.begin(), out.end(), [&](std::uint32_t v) { return v == poison; }));
    CHECK(d_out.guard_intact());
  }
}

TEST_CASE("temp storage at any alignment", "[gpu][api]") {
  const std::int64_t n = 300001;
  const auto in = random_values<std::uint32_t>(n, 9);
  const auto ref = reference_inclusive(in, carry::sum{});
  for (const auto& opt : all_modes)
    for (int offset : {1, 4, 100}) {
      device_buffer<std::uint32_t> d_in(n), d_out(n);
      d_in.upload(in);
      std::size_t bytes = 0;
      REQUIRE(carry::inclusive_sum(nullptr, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
      device_buffer<unsigned char> tmp(bytes + offset);
      tmp.poison();
      REQUIRE(carry::inclusive_sum(tmp.ptr + offset, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
      CHECK(d_out.download(n) == ref);
    }
}

TEST_CASE("unaligned input and output pointers take the element-wise path", "[gpu][api]") {
  const std::int64_t n = 100003;
  const auto in = random_values<std::uint32_t>(n + 1, 10);
  for (const auto& opt : all_modes) {
    device_buffer<std::uint32_t> d_in(n + 1), d_out(n + 3);
    d_in.upload(in);
    std::vector<std::uint32_t> shifted(in.begin() + 1, in.end());
    const auto ref = reference_inclusive(shifted, carry::sum{});
    std::size_t bytes = 0;
    REQUIRE(carry::inclusive_sum(nullptr, bytes, d_in.ptr + 1, d_out.ptr + 3, n, opt) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    REQUIRE(carry::inclusive_sum(tmp.ptr, bytes, d_in.ptr + 1, d_out.ptr + 3, n, opt) == cudaSuccess);
    auto out = d_out.download(n + 3);
    CHECK(std::vector<std::uint32_t>(out.begin() + 3, out.end()) == ref);
  }
}

TEST_CASE("reduce: in order, non-commutative, against the CPU (CUB's reduce assumes commutativity)",
          "[gpu][api][reduce]") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{4096}, std::int64_t{4097},
                         std::int64_t{1} << 20, (std::int64_t{1} << 22) + 3}) {
    const auto in = random_values<affine>(n, n);
    const affine init{5, 9};
    const affine ref = reference_reduce(in, init, compose_affine{});
    device_buffer<affine> d_in(n), d_out(1, 4);
    d_in.upload(in);
    d_out.poison();
    std::size_t bytes = 0;
    REQUIRE(carry::reduce(nullptr, bytes, d_in.ptr, d_out.ptr, compose_affine{}, init, n) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    tmp.poison();
    REQUIRE(carry::reduce(tmp.ptr, bytes, d_in.ptr, d_out.ptr, compose_affine{}, init, n) == cudaSuccess);
    INFO("n = " << n);
    CHECK(d_out.download(1)[0] == ref);
    CHECK(d_out.guard_intact());
    // u32 sums agree with CUB
    const auto vi = random_values<std::uint32_t>(n, n + 1);
    device_buffer<std::uint32_t> i_in(n), i_out(2);
    i_in.upload(vi);
    REQUIRE(carry::reduce(nullptr, bytes, i_in.ptr, i_out.ptr, carry::sum{}, 0u, n) == cudaSuccess);
    device_buffer<unsigned char> t2(bytes);
    REQUIRE(carry::reduce(t2.ptr, bytes, i_in.ptr, i_out.ptr, carry::sum{}, 0u, n) == cudaSuccess);
    std::size_t cb = 0;
    REQUIRE(cub_reduce_sum(nullptr, cb, i_in.ptr, i_out.ptr + 1, n, cudaStream_t{}) == cudaSuccess);
    device_buffer<unsigned char> t3(cb);
    REQUIRE(cub_reduce_sum(t3.ptr, cb, i_in.ptr, i_out.ptr + 1, n, cudaStream_t{}) == cudaSuccess);
    auto both = i_out.download(2);
    CHECK(both[0] == reference_reduce(vi, 0u, carry::sum{}));
    CHECK(both[0] == both[1]);
  }
  device_buffer<std::uint32_t> d_in(4), d_out(1);
  std::size_t bytes = 0;
  CHECK(carry::reduce(nullptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, 0u, -1) == cudaErrorInvalidValue);
  REQUIRE(carry::reduce(nullptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, 0u, 4) == cudaSuccess);
  device_buffer<unsigned char> tmp(bytes);
  CHECK(carry::reduce(tmp.ptr, bytes, d_in.ptr, static_cast<std::uint32_t*>(nullptr), carry::sum{}, 0u, 4) ==
        cudaErrorInvalidValue);
  // n == 0 describes the whole (empty) input: *d_out = init, as CUB; d_in may be null; d_out may not
  d_out.poison();
  std::size_t zero_bytes = 0;
  REQUIRE(carry::reduce(nullptr, zero_bytes, d_in.ptr, d_out.ptr, carry::sum{}, 0u, 0) == cudaSuccess);
  device_buffer<unsigned char> tmp0(zero_bytes);
  tmp0.poison();
  REQUIRE(carry::reduce(tmp0.ptr, zero_bytes, static_cast<const std::uint32_t*>(nullptr), d_out.ptr,
                        carry::sum{}, 77u, 0) == cudaSuccess);
  CHECK(d_out.download(1)[0] == 77u);
  device_buffer<affine> a_out(1);
  a_out.poison();
  REQUIRE(carry::reduce(tmp0.ptr, zero_bytes, static_cast<const affine*>(nullptr), a_out.ptr,
                        compose_affine{}, affine{3, 7}, 0) == cudaSuccess);
  CHECK(a_out.download(1)[0] == affine{3, 7});
  CHECK(carry::reduce(tmp0.ptr, zero_bytes, d_in.ptr, static_cast<std::uint32_t*>(nullptr), carry::sum{}, 0u,
                      0) == cudaErrorInvalidValue);
}

TEST_CASE("single pass: many back-to-back launches on one stream reusing temp storage",
          "[gpu][single_pass]") {
  const std::int64_t n = sanitize_mode() ? 30000 : (1 << 20) + 333;
  const int launches = test_reps(200, 6);
  const auto in = random_values<std::uint32_t>(n, 77);
  const auto ref = reference_inclusive(in, carry::sum{});
  for (const auto& opt : {single, single_det}) {
    device_buffer<std::uint32_t> d_in(n), d_out(n);
    d_in.upload(in);
    std::size_t bytes = 0;
    REQUIRE(carry::inclusive_sum(nullptr, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    tmp.poison();
    for (int i = 0; i < launches; ++i) {
      // alternate sizes so that stale words of longer and shorter calls meet each other
      const std::int64_t m = i % 3 == 0 ? n : n - 4096 * (i % 7);
      REQUIRE(carry::inclusive_sum(tmp.ptr, bytes, d_in.ptr, d_out.ptr, m, opt) == cudaSuccess);
    }
    REQUIRE(carry::inclusive_sum(tmp.ptr, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
    CHECK(d_out.download(n) == ref);
  }
}

TEST_CASE("temp storage reused call after call: every call checked, other calls in between",
          "[gpu][single_pass]") {
  // Each call's prepare step clears what the call before left. Calls on buffer A alternate passes and
  // sizes; every third call also runs on buffer B first. Every output is checked, not only the last.
  const std::int64_t n = sanitize_mode() ? 20000 : (1 << 20) + 333;
  const std::int64_t step = sanitize_mode() ? 3001 : 70001; // the calls' sizes differ by steps of this
  const auto in = random_values<std::uint32_t>(n, 81);
  const auto ref = reference_inclusive(in, carry::sum{});
  device_buffer<std::uint32_t> d_in(n), d_out(n), d_other(n);
  d_in.upload(in);
  std::size_t bytes = 0, need = 0;
  for (const auto& opt : all_modes) {
    REQUIRE(carry::inclusive_sum(nullptr, need, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
    bytes = std::max(bytes, need);
  }
  device_buffer<unsigned char> tmp_a(bytes), tmp_b(bytes);
  tmp_a.poison();
  tmp_b.poison();
  for (int i = 0; i < test_reps(48, 6); ++i) {
    const auto& opt = all_modes[(i / 2) % 4];
    const std::int64_t m = i % 2 ? n : n - step * (i % 5) - 3;
    if (i % 3 == 2)
      REQUIRE(carry::inclusive_sum(tmp_b.ptr, bytes, d_in.ptr, d_other.ptr, n - 5, all_modes[i % 4]) ==
              cudaSuccess);
    d_out.poison();
    REQUIRE(carry::inclusive_sum(tmp_a.ptr, bytes, d_in.ptr, d_out.ptr, m, opt) == cudaSuccess);
    const auto got = d_out.download(m);
    INFO("call " << i << ", n = " << m);
    CHECK(std::equal(got.begin(), got.end(), ref.begin()));
  }
  CHECK(d_other.download(n - 5) == std::vector<std::uint32_t>(ref.begin(), ref.end() - 5));
}

TEST_CASE("single pass: concurrent streams with separate temp storage", "[gpu][single_pass]") {
  const int streams = test_reps(8, 2);
  const std::int64_t n = sanitize_mode() ? 20005 : (1 << 22) + 5;
  const auto in = random_values<std::uint32_t>(n, 78);
  const auto ref = reference_exclusive(in, 0u, carry::sum{});
  std::vector<cudaStream_t> s(streams);
  std::vector<device_buffer<std::uint32_t>> outs;
  std::vector<device_buffer<unsigned char>> temps;
  device_buffer<std::uint32_t> d_in(n);
  d_in.upload(in);
  std::size_t bytes = 0;
  REQUIRE(carry::exclusive_sum(nullptr, bytes, d_in.ptr, d_in.ptr, n, single) == cudaSuccess);
  for (int i = 0; i < streams; ++i) {
    REQUIRE(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking) == cudaSuccess);
    outs.emplace_back(n);
    outs.back().poison();
    temps.emplace_back(bytes);
    temps.back().poison();
  }
  // the poison (cudaMemset, legacy stream) done before the non-blocking streams start: else it can land
  // on a temp buffer after the call's prepare step zeroed it (a ticket counter of 0xA5A5A5A5: an illegal
  // address, seen once in 13 runs of the whole binary with other GPU processes running)
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  for (int rep = 0; rep < test_reps(5, 1); ++rep)
    for (int i = 0; i < streams; ++i)
      REQUIRE(carry::exclusive_sum(temps[i].ptr, bytes, d_in.ptr, outs[i].ptr, n, i % 2 ? single : single_det,
                                   s[i]) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < streams; ++i) {
    CHECK(outs[i].download(n) == ref);
    cudaStreamDestroy(s[i]);
  }
}

TEST_CASE("single pass: far more tiles than can be resident at once", "[gpu][single_pass]") {
  // 2^27 u32 = 32768 tiles of 4096 against ~1000 resident blocks on an H100.
  const std::int64_t n = sanitize_mode() ? 20011 : (std::int64_t{1} << 27) + 11;
  const auto in = random_values<std::uint32_t>(n, 79);
  const auto ref = reference_inclusive(in, carry::sum{});
  for (const auto& opt : {single, single_det}) {
    auto run = [&](void* tmp, std::size_t& bytes, const std::uint32_t* d_in, std::uint32_t* d_out,
                   std::int64_t m) { return carry::inclusive_sum(tmp, bytes, d_in, d_out, m, opt); };
    run_and_check(run, in, ref, false);
  }
}

TEST_CASE("deterministic mode: bitwise-equal float output over 50 runs", "[gpu][single_pass][determinism]") {
  // Real-valued inputs (not whole numbers), so the grouping of the fold shows in the last bits.
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const std::int64_t n = (sanitize_mode() ? 20000 : std::int64_t{1} << 24) + 7 * seed;
    const auto in = random_reals(n, seed);
    device_buffer<float> d_in(n), d_out(n), d_noise(n);
    d_in.upload(in);
    for (const auto& opt : {single_det, hier}) {
      std::size_t bytes = 0, noise_bytes = 0;
      REQUIRE(carry::inclusive_sum(nullptr, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
      REQUIRE(carry::inclusive_sum(nullptr, noise_bytes, d_in.ptr, d_noise.ptr, n, single) == cudaSuccess);
      device_buffer<unsigned char> tmp(bytes), tmp_noise(noise_bytes);
      std::vector<float> first;
      cudaStream_t noise;
      REQUIRE(cudaStreamCreateWithFlags(&noise, cudaStreamNonBlocking) == cudaSuccess);
      for (int run = 0; run < test_reps(50, 3); ++run) {
        // concurrent work on another stream perturbs the timing of the look-back
        if (run % 2)
          REQUIRE(carry::inclusive_sum(tmp_noise.ptr, noise_bytes, d_in.ptr, d_noise.ptr, n, single, noise) ==
                  cudaSuccess);
        d_out.poison();
        REQUIRE(carry::inclusive_sum(tmp.ptr, bytes, d_in.ptr, d_out.ptr, n, opt) == cudaSuccess);
        auto out = d_out.download(n);
        if (run == 0) {
          first = out;
          // sanity: close to the double-precision reference
          double acc = 0, worst = 0;
          for (std::int64_t i = 0; i < n; ++i) {
            acc += in[i];
            worst = std::max(worst, std::abs(out[i] - acc));
          }
          CHECK(worst < 0.05);
        } else {
          REQUIRE(std::memcmp(out.data(), first.data(), n * sizeof(float)) == 0);
        }
      }
      cudaStreamSynchronize(noise);
      cudaStreamDestroy(noise);
    }
  }
}

/// A non-associative operator: every grouping of a fold gives other bits ((a o b) o c = 9a + 3b + c,
/// a o (b o c) = 3a + 3b + c), so any path of the canonical look-back that grouped otherwise would show.
struct thrice_plus {
  CARRY_HD std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return 3u * a + b; }
};

TEST_CASE("deterministic mode: one grouping on every look-back path, shown by a non-associative operator",
          "[gpu][single_pass][determinism]") {
  // 2^24 items: thousands of tiles, so runs differ in which boundaries are published when a tile looks
  // back (near ones, far ones, none) while another scan shares the GPU.
  const std::int64_t n = (sanitize_mode() ? 40000 : std::int64_t{1} << 24) + 5;
  const auto in = random_values<std::uint32_t>(static_cast<std::size_t>(n), 9);
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  const std::int64_t run_length = 50000; // runs across a dozen tiles: their carry-ins come from the look-back
  for (std::int64_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(i / run_length);
  device_buffer<std::uint32_t> d_in(n), d_keys(n), d_out(n), d_noise(n);
  d_in.upload(in);
  d_keys.upload(keys);
  auto scan = [&](void* t, std::size_t& b, cudaStream_t s) {
    return carry::inclusive_scan(t, b, d_in.ptr, d_out.ptr, thrice_plus{}, n, single_det, s);
  };
  auto by_key = [&](void* t, std::size_t& b, cudaStream_t s) {
    return carry::inclusive_scan_by_key(t, b, d_keys.ptr, d_in.ptr, d_out.ptr, thrice_plus{}, n,
                                        carry::equal_to{}, single_det, s);
  };
  auto check = [&](auto call, bool keyed) {
    std::size_t bytes = 0, noise_bytes = 0;
    REQUIRE(call(nullptr, bytes, cudaStream_t{}) == cudaSuccess);
    REQUIRE(carry::inclusive_sum(nullptr, noise_bytes, d_in.ptr, d_noise.ptr, n, single) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes), tmp_noise(noise_bytes);
    cudaStream_t noise;
    REQUIRE(cudaStreamCreateWithFlags(&noise, cudaStreamNonBlocking) == cudaSuccess);
    std::vector<std::uint32_t> first;
    for (int run = 0; run < test_reps(20, 3); ++run) {
      if (run % 2)
        REQUIRE(carry::inclusive_sum(tmp_noise.ptr, noise_bytes, d_in.ptr, d_noise.ptr, n, single, noise) ==
                cudaSuccess);
      CARRY_CUDA_OR_DIE(cudaMemset(tmp.ptr, run * 37, bytes));
      d_out.poison();
      REQUIRE(call(tmp.ptr, bytes, cudaStream_t{}) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      auto out = d_out.download(n);
      if (run == 0) {
        first = out;
        // sanity: each run (the whole input, or each key's) starts afresh
        for (std::int64_t i = 0; i + 1 < n; i += keyed ? run_length : n) {
          REQUIRE(out[i] == in[i]);
          REQUIRE(out[i + 1] == thrice_plus{}(in[i], in[i + 1]));
        }
      } else {
        REQUIRE(std::memcmp(out.data(), first.data(), static_cast<std::size_t>(n) * 4) == 0);
      }
    }
    cudaStreamDestroy(noise);
  };
  SECTION("inclusive_scan") {
    check(scan, false);
  }
  SECTION("inclusive_scan_by_key") {
    check(by_key, true);
  }
}
