// GPU tests: reduce_by_key, run_length_encode, non_trivial_runs and select_unique_by_key against the CPU
// reference and CUB: run lengths 1, 2, random (mean 4, 64), one run, runs across tile boundaries, 16-byte
// keys with a custom equality, a non-commutative operator, iterator inputs and outputs, float determinism
// across runs and streams, n = 0 and bad arguments, graph replay with dirty temp storage, past 2^31 and 2^32
// items.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cstring>
#include <random>

#include "tests/common/keyed_cases.cuh"
#include "tests/common/scan_harness.cuh"

#include <carry/compact/device_runs.cuh>
#include <carry/compact/device_select.cuh>

using namespace carry_validate;

namespace {

constexpr std::int64_t tile = carry::tuning::keyed_runs_policy<std::uint32_t, std::uint32_t>::tile_items;
/// The run-length calls' staged tile of u32 keys.
constexpr std::int64_t span_tile = carry::compact_tuning::run_length_policy<std::uint32_t>::tile_items;

std::vector<std::int64_t> sizes() {
  return capped_sizes({1, 2, 33, tile - 1, tile, tile + 1, 3 * tile + 7, span_tile - 1, span_tile + 1,
                       3 * span_tile + 7, 100003, 1000003});
}

/// Non-trivial runs of a reference: their offsets and lengths.
template <class R>
void non_trivial_of(const R& ref, std::vector<std::int64_t>& offsets, std::vector<std::int64_t>& lengths) {
  for (std::size_t r = 0; r < ref.keys.size(); ++r)
    if (ref.lengths[r] > 1) {
      offsets.push_back(ref.offsets[r]);
      lengths.push_back(ref.lengths[r]);
    }
}

/// The runs of keys under eq, folded: first key, fold of the values, offset, length.
template <class K, class V>
struct run_ref {
  std::vector<K> keys;
  std::vector<V> folds;
  std::vector<std::int64_t> offsets, lengths;
};
template <class K, class V, class Eq, class Op>
run_ref<K, V> runs_of(const std::vector<K>& keys, const std::vector<V>& values, Eq eq, Op op) {
  run_ref<K, V> r;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) {
      r.keys.push_back(keys[i]);
      r.folds.push_back(values[i]);
      r.offsets.push_back(static_cast<std::int64_t>(i));
      r.lengths.push_back(1);
    } else {
      r.folds.back() = op(r.folds.back(), values[i]);
      ++r.lengths.back();
    }
  }
  return r;
}

template <class T>
std::vector<T> as(const std::vector<std::int64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

/// keys[i] = i >> shift: runs of 2^shift items, for inputs past memory.
struct shifted {
  int shift;
  __host__ __device__ std::uint32_t operator()(std::int64_t i) const {
    return static_cast<std::uint32_t>(i >> shift);
  }
};
/// keys[i] = i / 3, values[i] = i % 7 (iterator inputs of the run calls).
struct third {
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return i / 3; }
};
struct mod7 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return i % 7; }
};

} // namespace

TEST_CASE(
    "reduce_by_key, run_length_encode, non_trivial_runs, select_unique_by_key u32: run lengths 1, 2, 4, 64, "
    "one run; against the CPU and CUB",
    "[runs]") {
  for (std::int64_t n : sizes()) {
    for (int mean : {0, 1, 2, 4, 64, -1}) {
      INFO("n = " << n << ", mean run " << mean);
      const auto keys =
          run_keys(n, mean, static_cast<std::uint64_t>(n) * 5 + static_cast<std::uint64_t>(mean + 2));
      std::vector<std::uint32_t> values(keys.size());
      std::mt19937 g(static_cast<unsigned>(n));
      for (auto& v : values) v = g() % 1000;
      const auto ref = runs_of(keys, values, carry::equal_to{}, carry::sum{});
      const std::size_t runs = ref.keys.size();
      std::vector<std::int64_t> nt_offsets, nt_lengths;
      non_trivial_of(ref, nt_offsets, nt_lengths);
      std::vector<std::uint32_t> firsts(runs);
      for (std::size_t r = 0; r < runs; ++r) firsts[r] = values[static_cast<std::size_t>(ref.offsets[r])];
      const std::size_t sz = keys.size();
      device_buffer<std::uint32_t> d_keys(sz), d_values(sz), d_a(sz, 16), d_b(sz, 16);
      device_buffer<std::int64_t> d_num(1, 1);
      d_keys.upload(keys);
      d_values.upload(values);
      const std::uint32_t* k = d_keys.ptr;
      const std::uint32_t* v = d_values.ptr;
      auto check = [&](const char* what, std::size_t count, const std::vector<std::uint32_t>& a,
                       const std::vector<std::uint32_t>& b) {
        INFO(what);
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(count));
        REQUIRE(d_a.download(count) == a);
        REQUIRE(d_b.download(count) == b);
        REQUIRE(d_a.guard_intact());
        REQUIRE(d_b.guard_intact());
        // nothing past the count: the rest of the outputs still hold the poison
        const auto rest = d_a.download(sz);
        for (std::size_t i = count; i < sz; ++i) REQUIRE(rest[i] == 0xA5A5A5A5u);
      };
      auto poison = [&] {
        d_a.poison();
        d_b.poison();
        d_num.poison();
      };
      poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::reduce_by_key(t, b, k, d_a.ptr, v, d_b.ptr, d_num.ptr, carry::sum{}, n);
      });
      check("reduce_by_key", runs, ref.keys, ref.folds);
      poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::run_length_encode(t, b, k, d_a.ptr, d_b.ptr, d_num.ptr, n);
      });
      check("run_length_encode", runs, ref.keys, as<std::uint32_t>(ref.lengths));
      poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::non_trivial_runs(t, b, k, d_a.ptr, d_b.ptr, d_num.ptr, n);
      });
      check("non_trivial_runs", nt_offsets.size(), as<std::uint32_t>(nt_offsets),
            as<std::uint32_t>(nt_lengths));
      poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::select_unique_by_key(t, b, k, v, d_a.ptr, d_b.ptr, d_num.ptr, n);
      });
      check("select_unique_by_key", runs, ref.keys, firsts);
      { // u64 keys (the staged run-length pass's 8-byte tile): the same runs, high bits set
        std::vector<std::uint64_t> wide(keys.size()), wide_firsts(runs);
        for (std::size_t i = 0; i < keys.size(); ++i) wide[i] = (std::uint64_t{keys[i]} << 32) | 0x5Au;
        for (std::size_t r = 0; r < runs; ++r) wide_firsts[r] = (std::uint64_t{ref.keys[r]} << 32) | 0x5Au;
        device_buffer<std::uint64_t> d_wide(sz), d_wide_out(sz, 16);
        d_wide.upload(wide);
        d_wide_out.poison();
        d_b.poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::run_length_encode(t, b, d_wide.ptr, d_wide_out.ptr, d_b.ptr, d_num.ptr, n);
        });
        INFO("run_length_encode, u64 keys");
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(runs));
        REQUIRE(d_wide_out.download(runs) == wide_firsts);
        REQUIRE(d_b.download(runs) == as<std::uint32_t>(ref.lengths));
        REQUIRE((d_wide_out.guard_intact() && d_b.guard_intact()));
        poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::non_trivial_runs(t, b, static_cast<const std::uint64_t*>(d_wide.ptr), d_a.ptr,
                                         d_b.ptr, d_num.ptr, n);
        });
        check("non_trivial_runs, u64 keys", nt_offsets.size(), as<std::uint32_t>(nt_offsets),
              as<std::uint32_t>(nt_lengths));
        d_wide_out.poison(); // reduce_by_key over 8-byte keys and 4-byte values
        d_b.poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::reduce_by_key(t, b, d_wide.ptr, d_wide_out.ptr, v, d_b.ptr, d_num.ptr, carry::sum{},
                                      n);
        });
        INFO("reduce_by_key, u64 keys");
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(runs));
        REQUIRE(d_wide_out.download(runs) == wide_firsts);
        REQUIRE(d_b.download(runs) == ref.folds);
        REQUIRE((d_wide_out.guard_intact() && d_b.guard_intact()));
      }
      if (n > 1) { // keys one item past a 16-byte boundary: the run-length calls' element-wise staging
        const std::vector<std::uint32_t> later(keys.begin() + 1, keys.end());
        const auto lref =
            runs_of(later, std::vector<std::uint32_t>(later.size()), carry::equal_to{}, carry::sum{});
        std::vector<std::int64_t> l_offsets, l_lengths;
        non_trivial_of(lref, l_offsets, l_lengths);
        poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::run_length_encode(t, b, k + 1, d_a.ptr, d_b.ptr, d_num.ptr, n - 1);
        });
        check("run_length_encode, keys misaligned", lref.keys.size(), lref.keys,
              as<std::uint32_t>(lref.lengths));
        poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::non_trivial_runs(t, b, k + 1, d_a.ptr, d_b.ptr, d_num.ptr, n - 1);
        });
        check("non_trivial_runs, keys misaligned", l_offsets.size(), as<std::uint32_t>(l_offsets),
              as<std::uint32_t>(l_lengths));
        const std::vector<std::uint32_t> later_values(values.begin() + 1, values.end());
        const auto vref = runs_of(later, later_values, carry::equal_to{}, carry::sum{});
        poison(); // reduce_by_key, keys and values loaded element by element
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::reduce_by_key(t, b, k + 1, d_a.ptr, v + 1, d_b.ptr, d_num.ptr, carry::sum{}, n - 1);
        });
        check("reduce_by_key, keys and values misaligned", vref.keys.size(), vref.keys, vref.folds);
        poison(); // aligned keys, misaligned values
        const std::vector<std::uint32_t> head(keys.begin(), keys.end() - 1);
        const auto href = runs_of(head, later_values, carry::equal_to{}, carry::sum{});
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::reduce_by_key(t, b, k, d_a.ptr, v + 1, d_b.ptr, d_num.ptr, carry::sum{}, n - 1);
        });
        check("reduce_by_key, values misaligned", href.keys.size(), href.keys, href.folds);
      }
      { // outputs one item past a 16-byte boundary: the staged outputs' element-wise flush
        device_buffer<std::uint32_t> d_a1(sz + 1, 16), d_b1(sz + 1, 16);
        d_a1.poison();
        d_b1.poison();
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::reduce_by_key(t, b, k, d_a1.ptr + 1, v, d_b1.ptr + 1, d_num.ptr, carry::sum{}, n);
        });
        INFO("reduce_by_key into misaligned outputs");
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(runs));
        const auto a1 = d_a1.download(runs + 1), b1 = d_b1.download(runs + 1);
        REQUIRE(std::vector<std::uint32_t>(a1.begin() + 1, a1.end()) == ref.keys);
        REQUIRE(std::vector<std::uint32_t>(b1.begin() + 1, b1.end()) == ref.folds);
        REQUIRE((a1[0] == 0xA5A5A5A5u && b1[0] == 0xA5A5A5A5u));
        REQUIRE((d_a1.guard_intact() && d_b1.guard_intact()));
      }
      for (carry::compact_algorithm a :
           {carry::compact_algorithm::three_kernel, carry::compact_algorithm::single_pass}) {
        poison(); // the compaction of (key, value) pairs, on request
        run_two_phase([&](void* t, std::size_t& b) {
          return carry::select_unique_by_key(t, b, k, v, d_a.ptr, d_b.ptr, d_num.ptr, n, carry::equal_to{},
                                             carry::compact_options{a}, cudaStream_t{});
        });
        check("select_unique_by_key, compaction", runs, ref.keys, firsts);
      }

      // ---- CUB's same calls on the same input agree with the reference (not under the sanitizers:
      // racecheck reports CUB's own NonTrivialRuns kernel) ----
      if (sanitize_mode()) continue;
      const int ni = static_cast<int>(n);
      auto cub_check = [&](const char* what, std::size_t count, const std::vector<std::uint32_t>& a,
                           const std::vector<std::uint32_t>& b, auto call) {
        INFO("CUB " << what);
        poison();
        std::size_t bytes = 0;
        REQUIRE(call(nullptr, bytes) == cudaSuccess);
        device_buffer<unsigned char> temp(bytes);
        REQUIRE(call(temp.ptr, bytes) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(count));
        REQUIRE(d_a.download(count) == a);
        REQUIRE(d_b.download(count) == b);
      };
      cub_check("ReduceByKey", runs, ref.keys, ref.folds, [&](void* t, std::size_t& b) {
        return cub::DeviceReduce::ReduceByKey(t, b, k, d_a.ptr, v, d_b.ptr, d_num.ptr, cuda::std::plus<>{},
                                              ni);
      });
      cub_check("Encode", runs, ref.keys, as<std::uint32_t>(ref.lengths), [&](void* t, std::size_t& b) {
        return cub::DeviceRunLengthEncode::Encode(t, b, k, d_a.ptr, d_b.ptr, d_num.ptr, ni);
      });
      cub_check("NonTrivialRuns", nt_offsets.size(), as<std::uint32_t>(nt_offsets),
                as<std::uint32_t>(nt_lengths), [&](void* t, std::size_t& b) {
                  return cub::DeviceRunLengthEncode::NonTrivialRuns(t, b, k, d_a.ptr, d_b.ptr, d_num.ptr, ni);
                });
      cub_check("UniqueByKey", runs, ref.keys, firsts, [&](void* t, std::size_t& b) {
        return cub::DeviceSelect::UniqueByKey(t, b, k, v, d_a.ptr, d_b.ptr, d_num.ptr, ni);
      });
    }
  }
}

TEST_CASE(
    "reduce_by_key: a non-commutative operator over 16-byte keys with a custom equality; run calls over "
    "iterators",
    "[runs]") {
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    std::vector<wide_key> keys;
    std::vector<byte_matrix> values;
    wide_keyed_input(n, static_cast<std::uint64_t>(n) + 3, keys, values);
    const auto ref = runs_of(keys, values, same_id{}, byte_product{});
    const std::size_t runs = ref.keys.size(), sz = keys.size();
    device_buffer<wide_key> d_keys(sz), d_unique(sz, 4);
    device_buffer<byte_matrix> d_values(sz), d_folds(sz, 4);
    device_buffer<std::uint32_t> d_num(1, 1), d_lengths(sz, 4);
    d_keys.upload(keys);
    d_values.upload(values);
    d_unique.poison();
    d_folds.poison();
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::reduce_by_key(t, b, d_keys.ptr, d_unique.ptr, d_values.ptr, d_folds.ptr, d_num.ptr,
                                  byte_product{}, n, same_id{});
    });
    REQUIRE(d_num.download(1)[0] == runs);
    const auto u = d_unique.download(runs);
    const auto f = d_folds.download(runs);
    for (std::size_t r = 0; r < runs; ++r) { // the first key of each run, noise included
      REQUIRE(std::memcmp(&u[r], &ref.keys[r], sizeof(wide_key)) == 0);
      REQUIRE(f[r] == ref.folds[r]);
    }
    REQUIRE(d_unique.guard_intact());
    REQUIRE(d_folds.guard_intact());
    // run_length_encode with the custom equality: the first key of each run and the lengths
    d_unique.poison();
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::run_length_encode(t, b, d_keys.ptr, d_unique.ptr, d_lengths.ptr, d_num.ptr, n, same_id{});
    });
    REQUIRE(d_num.download(1)[0] == runs);
    REQUIRE(d_lengths.download(runs) == as<std::uint32_t>(ref.lengths));
    REQUIRE(std::memcmp(d_unique.download(runs).data(), ref.keys.data(), runs * sizeof(wide_key)) == 0);

    // ---- iterator inputs: keys i / 3, values i % 7; outputs of other types (u64 folds, i64 lengths) ----
    const auto tk = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), third{});
    const auto tv = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), mod7{});
    std::vector<std::uint32_t> hk(sz), hv(sz);
    for (std::size_t i = 0; i < sz; ++i) {
      hk[i] = static_cast<std::uint32_t>(i / 3);
      hv[i] = static_cast<std::uint32_t>(i % 7);
    }
    const auto it_ref = runs_of(hk, hv, carry::equal_to{}, carry::sum{});
    const std::size_t it_runs = it_ref.keys.size();
    device_buffer<std::uint32_t> d_ukeys(sz, 4);
    device_buffer<std::uint64_t> d_sums(sz, 4);
    device_buffer<std::int64_t> d_lens(sz, 4), d_offs(sz, 4);
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::reduce_by_key<std::uint64_t>(t, b, tk, d_ukeys.ptr, tv, d_sums.ptr, d_num.ptr,
                                                 carry::sum{}, n);
    });
    REQUIRE(d_num.download(1)[0] == it_runs);
    REQUIRE(d_ukeys.download(it_runs) == it_ref.keys);
    REQUIRE(d_sums.download(it_runs) == std::vector<std::uint64_t>(it_ref.folds.begin(), it_ref.folds.end()));
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::non_trivial_runs(t, b, tk, d_offs.ptr, d_lens.ptr, d_num.ptr, n);
    });
    std::vector<std::int64_t> nt_off, nt_len;
    for (std::size_t r = 0; r < it_runs; ++r)
      if (it_ref.lengths[r] > 1) {
        nt_off.push_back(it_ref.offsets[r]);
        nt_len.push_back(it_ref.lengths[r]);
      }
    REQUIRE(d_num.download(1)[0] == nt_off.size());
    REQUIRE(d_offs.download(nt_off.size()) == nt_off);
    REQUIRE(d_lens.download(nt_off.size()) == nt_len);
    d_ukeys.poison();
    device_buffer<std::uint32_t> d_uvals(sz, 4);
    d_uvals.poison();
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::select_unique_by_key(t, b, tk, tv, d_ukeys.ptr, d_uvals.ptr, d_num.ptr, n);
    });
    REQUIRE(d_num.download(1)[0] == it_runs);
    REQUIRE(d_ukeys.download(it_runs) == it_ref.keys);
    std::vector<std::uint32_t> it_firsts(it_runs);
    for (std::size_t r = 0; r < it_runs; ++r) it_firsts[r] = hv[static_cast<std::size_t>(it_ref.offsets[r])];
    REQUIRE(d_uvals.download(it_runs) == it_firsts);
    REQUIRE(d_uvals.guard_intact());
  }
}

TEST_CASE(
    "output iterators: unique keys discarded, aggregates, lengths, offsets and values through a transform "
    "output",
    "[runs][iterator]") {
  for (std::int64_t n : capped_sizes({1, tile + 1, 3 * span_tile + 7, 1000003})) {
    for (int mean : {4, 64}) {
      INFO("n = " << n << ", mean run " << mean);
      const auto keys = run_keys(n, mean, static_cast<std::uint64_t>(n) + 11);
      std::vector<std::uint32_t> values(keys.size());
      for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<std::uint32_t>(i * 40503u) >> 22;
      const auto ref = runs_of(keys, values, carry::equal_to{}, carry::sum{});
      const std::size_t runs = ref.keys.size(), sz = keys.size();
      auto twice = [](const auto& v) {
        std::vector<std::int64_t> r;
        for (auto x : v) r.push_back(static_cast<std::int64_t>(x) * 2);
        return r;
      };
      device_buffer<std::uint32_t> d_keys(sz), d_values(sz);
      device_buffer<std::int64_t> d_out(sz, 16), d_num(1);
      d_keys.upload(keys);
      d_values.upload(values);
      const std::uint32_t* k = d_keys.ptr;
      const std::uint32_t* v = d_values.ptr;
      const auto out = thrust::make_transform_output_iterator(d_out.ptr, doubled{});
      const auto none = thrust::make_discard_iterator();
      d_out.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::reduce_by_key(t, b, k, none, v, out, d_num.ptr, carry::sum{}, n);
      });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(runs));
      REQUIRE(d_out.download(runs) == twice(ref.folds));
      REQUIRE(d_out.guard_intact());
      d_out.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::run_length_encode(t, b, k, none, out, d_num.ptr, n);
      });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(runs));
      REQUIRE(d_out.download(runs) == twice(ref.lengths));
      REQUIRE(d_out.guard_intact());
      std::vector<std::int64_t> nt_offsets, nt_lengths;
      non_trivial_of(ref, nt_offsets, nt_lengths);
      d_out.poison();
      run_two_phase(
          [&](void* t, std::size_t& b) { return carry::non_trivial_runs(t, b, k, out, none, d_num.ptr, n); });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(nt_offsets.size()));
      REQUIRE(d_out.download(nt_offsets.size()) == twice(nt_offsets));
      REQUIRE(d_out.guard_intact());
      std::vector<std::uint32_t> firsts(runs);
      for (std::size_t r = 0; r < runs; ++r) firsts[r] = values[static_cast<std::size_t>(ref.offsets[r])];
      d_out.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::select_unique_by_key(t, b, k, v, none, out, d_num.ptr, n);
      });
      REQUIRE(d_num.download(1)[0] == static_cast<std::int64_t>(runs));
      REQUIRE(d_out.download(runs) == twice(firsts));
      REQUIRE(d_out.guard_intact());
    }
  }
}

TEST_CASE("reduce_by_key of floats, deterministic: the same bits every run and on every stream; n = 0; bad "
          "arguments",
          "[runs]") {
  const std::int64_t n = sanitize_mode() ? 20000 : (1 << 22) + 3;
  const auto keys = run_keys(n, 64, 5);
  std::vector<float> values(keys.size());
  std::mt19937 g(6);
  for (auto& v : values) v = static_cast<float>(g() % 100000) / 7.0f;
  const auto ref =
      runs_of(keys, std::vector<double>(values.begin(), values.end()), carry::equal_to{}, carry::sum{});
  const std::size_t sz = keys.size(), runs = ref.keys.size();
  device_buffer<std::uint32_t> d_keys(sz), d_unique(sz);
  device_buffer<float> d_values(sz), d_out(sz);
  device_buffer<std::int32_t> d_num(1);
  d_keys.upload(keys);
  d_values.upload(values);
  carry::scan_options det;
  det.deterministic = true;
  std::size_t bytes = 0;
  REQUIRE(carry::reduce_by_key(nullptr, bytes, d_keys.ptr, d_unique.ptr, d_values.ptr, d_out.ptr, d_num.ptr,
                               carry::sum{}, n, carry::equal_to{}, det) == cudaSuccess);
  const std::vector<float> first = same_bits_every_run(
      bytes,
      [&](void* t, std::size_t b, cudaStream_t s) {
        return carry::reduce_by_key(t, b, d_keys.ptr, d_unique.ptr, d_values.ptr, d_out.ptr, d_num.ptr,
                                    carry::sum{}, n, carry::equal_to{}, det, s);
      },
      [&] {
        REQUIRE(d_num.download(1)[0] == static_cast<std::int32_t>(runs));
        return d_out.download(runs);
      });
  device_buffer<unsigned char> temp(bytes);
  for (std::size_t r = 0; r < runs; ++r)
    REQUIRE(std::fabs(first[r] - ref.folds[r]) <= 1e-4 * std::fabs(ref.folds[r]) + 1e-3);

  // ---- n = 0: the run count 0, nothing else; bad arguments: refused, nothing written ----
  device_buffer<std::uint32_t> d_none(4, 4);
  device_buffer<std::int32_t> d_count(1, 1);
  d_none.poison();
  d_count.poison();
  auto all_calls = [&](std::int64_t items, const std::uint32_t* keys_in, std::int32_t* num) {
    std::vector<cudaError_t> e;
    const std::uint32_t* vals = d_keys.ptr;
    e.push_back(carry::reduce_by_key(temp.ptr, bytes, keys_in, d_none.ptr, vals, d_none.ptr + 2, num,
                                     carry::sum{}, items));
    e.push_back(carry::run_length_encode(temp.ptr, bytes, keys_in, d_none.ptr, d_none.ptr + 2, num, items));
    e.push_back(carry::non_trivial_runs(temp.ptr, bytes, keys_in, d_none.ptr, d_none.ptr + 2, num, items));
    e.push_back(
        carry::select_unique_by_key(temp.ptr, bytes, keys_in, vals, d_none.ptr, d_none.ptr + 2, num, items));
    return e;
  };
  for (cudaError_t e : all_calls(0, d_keys.ptr, d_count.ptr)) REQUIRE(e == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(d_count.download(1)[0] == 0);
  d_count.poison();
  for (cudaError_t e : all_calls(2, nullptr, d_count.ptr)) REQUIRE(e == cudaErrorInvalidValue); // null keys
  for (cudaError_t e : all_calls(2, d_keys.ptr, nullptr)) REQUIRE(e == cudaErrorInvalidValue);  // null count
  for (cudaError_t e : all_calls(0, d_keys.ptr, nullptr)) REQUIRE(e == cudaErrorInvalidValue);
  for (cudaError_t e : all_calls(-1, d_keys.ptr, d_count.ptr)) REQUIRE(e == cudaErrorInvalidValue);
  // an output over the input, and too little temp storage
  REQUIRE(carry::run_length_encode(temp.ptr, bytes, d_keys.ptr, d_keys.ptr + 1, d_none.ptr, d_count.ptr, 4) ==
          cudaErrorInvalidValue);
  // more than one tile of every pass (the look-back state needs temp storage), one byte short: each call
  // (the keyed agent's and the staged run-length pass) refuses, nothing written
  const std::int64_t many = 3 * tile;
  device_buffer<std::uint32_t> d_second(static_cast<std::size_t>(many));
  d_unique.poison();
  d_second.poison();
  auto short_call = [&](int which, void* t, std::size_t& b) {
    switch (which) {
    case 0:
      return carry::reduce_by_key(t, b, d_keys.ptr, d_unique.ptr, d_keys.ptr, d_second.ptr, d_count.ptr,
                                  carry::sum{}, many);
    case 1:
      return carry::run_length_encode(t, b, d_keys.ptr, d_unique.ptr, d_second.ptr, d_count.ptr, many);
    case 2:
      return carry::non_trivial_runs(t, b, d_keys.ptr, d_unique.ptr, d_second.ptr, d_count.ptr, many);
    default:
      return carry::select_unique_by_key(t, b, d_keys.ptr, d_keys.ptr, d_unique.ptr, d_second.ptr,
                                         d_count.ptr, many);
    }
  };
  for (int which = 0; which < 4; ++which) {
    INFO("short temp storage, call " << which);
    std::size_t need = 0;
    REQUIRE(short_call(which, nullptr, need) == cudaSuccess);
    REQUIRE(need > 0);
    std::size_t small = need - 1;
    REQUIRE(short_call(which, temp.ptr, small) == cudaErrorInvalidValue);
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (std::uint32_t x : d_unique.download(static_cast<std::size_t>(many))) REQUIRE(x == 0xA5A5A5A5u);
  for (std::uint32_t x : d_second.download(static_cast<std::size_t>(many))) REQUIRE(x == 0xA5A5A5A5u);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto none = d_none.download(4);
  for (std::uint32_t x : none) REQUIRE(x == 0xA5A5A5A5u);
  REQUIRE(d_none.guard_intact());
  REQUIRE(d_count.download(1)[0] == static_cast<std::int32_t>(0xA5A5A5A5u));
}

TEST_CASE("run calls under graph replay: changing keys and values, dirty temp storage", "[runs][graph]") {
  const std::int64_t n = sanitize_mode() ? 20000 : 9 * tile + 5;
  const std::size_t sz = static_cast<std::size_t>(n);
  device_buffer<std::uint32_t> d_keys(sz), d_values(sz), d_u(sz), d_agg(sz), d_off(sz), d_len(sz), d_uk(sz),
      d_uv(sz), d_rk(sz), d_rl(sz);
  device_buffer<std::uint64_t> d_num(4);
  const std::uint32_t* k = d_keys.ptr;
  const std::uint32_t* v = d_values.ptr;
  std::size_t b[4] = {};
  REQUIRE(carry::reduce_by_key(nullptr, b[0], k, d_u.ptr, v, d_agg.ptr, d_num.ptr, carry::sum{}, n) ==
          cudaSuccess);
  REQUIRE(carry::run_length_encode(nullptr, b[1], k, d_rk.ptr, d_rl.ptr, d_num.ptr + 1, n) == cudaSuccess);
  REQUIRE(carry::non_trivial_runs(nullptr, b[2], k, d_off.ptr, d_len.ptr, d_num.ptr + 2, n) == cudaSuccess);
  REQUIRE(carry::select_unique_by_key(nullptr, b[3], k, v, d_uk.ptr, d_uv.ptr, d_num.ptr + 3, n) ==
          cudaSuccess);
  const std::size_t bytes = *std::max_element(b, b + 4);
  device_buffer<unsigned char> temp(bytes);
  captured_call graph([&](cudaStream_t s) {
    std::size_t t = bytes;
    cudaError_t e = carry::reduce_by_key(temp.ptr, t, k, d_u.ptr, v, d_agg.ptr, d_num.ptr, carry::sum{}, n,
                                         carry::equal_to{}, s);
    if (e == cudaSuccess)
      e = carry::run_length_encode(temp.ptr, t, k, d_rk.ptr, d_rl.ptr, d_num.ptr + 1, n, carry::equal_to{},
                                   s);
    if (e == cudaSuccess)
      e = carry::non_trivial_runs(temp.ptr, t, k, d_off.ptr, d_len.ptr, d_num.ptr + 2, n, carry::equal_to{},
                                  s);
    if (e == cudaSuccess)
      e = carry::select_unique_by_key(temp.ptr, t, k, v, d_uk.ptr, d_uv.ptr, d_num.ptr + 3, n, s);
    return e;
  });
  REQUIRE(graph.status == cudaSuccess);
  for (int rep = 0; rep < test_reps(8, 4); ++rep) {
    const auto keys = run_keys(n, rep % 2 == 0 ? 3 : 40, static_cast<std::uint64_t>(rep) + 200);
    std::vector<std::uint32_t> values(sz);
    std::mt19937 g(static_cast<unsigned>(rep));
    for (auto& x : values) x = g() % 1000;
    const auto ref = runs_of(keys, values, carry::equal_to{}, carry::sum{});
    const std::size_t runs = ref.keys.size();
    std::vector<std::uint32_t> nt_off, nt_len, firsts(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      firsts[r] = values[static_cast<std::size_t>(ref.offsets[r])];
      if (ref.lengths[r] > 1) {
        nt_off.push_back(static_cast<std::uint32_t>(ref.offsets[r]));
        nt_len.push_back(static_cast<std::uint32_t>(ref.lengths[r]));
      }
    }
    d_keys.upload(keys);
    d_values.upload(values);
    dirty_temp(temp.ptr, bytes, rep);
    REQUIRE(graph.replay(rep) == cudaSuccess);
    const auto num = d_num.download(4);
    REQUIRE(num[0] == runs);
    REQUIRE(num[1] == runs);
    REQUIRE(num[2] == nt_off.size());
    REQUIRE(num[3] == runs);
    REQUIRE(d_u.download(runs) == ref.keys);
    REQUIRE(d_agg.download(runs) == ref.folds);
    REQUIRE(d_rk.download(runs) == ref.keys);
    REQUIRE(d_rl.download(runs) == as<std::uint32_t>(ref.lengths));
    REQUIRE(d_off.download(nt_off.size()) == nt_off);
    REQUIRE(d_len.download(nt_off.size()) == nt_len);
    REQUIRE(d_uk.download(runs) == ref.keys);
    REQUIRE(d_uv.download(runs) == firsts);
  }
}

TEST_CASE("run calls past 2^31 and 2^32 items (keys from a counting iterator, runs of 2^20)",
          "[runs][large]") {
  if (sanitize_mode()) return; // the sanitizer mode skips the sizes past 2^31
  const int shift = 20;
  for (std::int64_t n : {(std::int64_t{1} << 31) + 7, (std::int64_t{1} << 32) + 5}) {
    INFO("n = " << n);
    const auto keys =
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), shifted{shift});
    const thrust::constant_iterator<std::uint32_t> ones(1);
    const std::int64_t runs = (n + (std::int64_t{1} << shift) - 1) >> shift;
    const std::size_t rs = static_cast<std::size_t>(runs);
    std::vector<std::uint32_t> want_keys(rs), want_len(rs, 1u << shift), want_off(rs);
    for (std::size_t r = 0; r < rs; ++r) {
      want_keys[r] = static_cast<std::uint32_t>(r);
      want_off[r] = static_cast<std::uint32_t>(r << shift);
    }
    want_len.back() = static_cast<std::uint32_t>(n - ((runs - 1) << shift));
    device_buffer<std::uint32_t> d_u(rs, 4), d_a(rs, 4);
    device_buffer<std::int64_t> d_num(1);
    d_u.poison();
    d_a.poison();
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::reduce_by_key(t, b, keys, d_u.ptr, ones, d_a.ptr, d_num.ptr, carry::sum{}, n);
    });
    REQUIRE(d_num.download(1)[0] == runs);
    REQUIRE(d_u.download(rs) == want_keys);
    REQUIRE(d_a.download(rs) == want_len);
    REQUIRE(d_a.guard_intact());
    d_a.poison();
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::run_length_encode(t, b, keys, d_u.ptr, d_a.ptr, d_num.ptr, n);
    });
    REQUIRE(d_num.download(1)[0] == runs);
    REQUIRE(d_a.download(rs) == want_len);
    device_buffer<std::int64_t> d_off(rs, 4);
    run_two_phase([&](void* t, std::size_t& b) {
      return carry::non_trivial_runs(t, b, keys, d_off.ptr, d_a.ptr, d_num.ptr, n);
    });
    REQUIRE(d_num.download(1)[0] == runs); // every run is longer than 1
    const auto off = d_off.download(rs);
    for (std::size_t r = 0; r < rs; ++r) REQUIRE(off[r] == static_cast<std::int64_t>(r) << shift);
    REQUIRE(d_a.download(rs) == want_len);
  }
}
