// Keyed-agent probe: run_length_encode, reduce_by_key and inclusive_sum_by_key on u32 keys in runs of 4
// (u32 values; the f32 scans by key over their bits) through the engine's keyed pass with the shipped and
// other tile policies (prefetch modes, register caps, look-back polling; the f32 scan also deterministic,
// with and without the look-back's stop at a run start), median of cold-L2 event times each, beside a copy.
//   usage: carry_probe_keyed [log2 n] [reps] [mean run] [spans | flush | warps: the run-length calls'
//   passes alone, the keyed agent's run calls with each output flush, or with each warp scan]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <carry/compact/device_runs.cuh>
#include <carry/scan/device_scan_by_key.cuh>

#include "bench/compact_bench.cuh"
#include "tests/common/keyed_cases.cuh"

using namespace carry_validate;

namespace {

__global__ void fill(std::uint32_t* k, std::uint32_t* v, std::int64_t n, int run) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    k[i] = static_cast<std::uint32_t>((i / run) * 2654435761u);
    v[i] = static_cast<std::uint32_t>(i * 40503u) >> 20;
  }
}

struct bufs {
  std::uint32_t *k, *v, *a, *b;
  std::int64_t* num;
  gpu_state g;
  std::int64_t n;
  int reps;
};

/// run_length_encode's behaviour without its per-run writes (the count only): what the scattered writes cost.
template <class K, class I>
struct rle_count_only
    : carry::compact_detail::span_behaviour<false, K, I, carry::equal_to, K*, K*, std::int64_t*> {
  using base = carry::compact_detail::span_behaviour<false, K, I, carry::equal_to, K*, K*, std::int64_t*>;
  template <int ITEMS, class Sink>
  CARRY_HD void emit(const carry::detail::keyed_thread<K, carry::compact_detail::no_value, ITEMS>& t,
                     const carry::tile_prefix<typename base::aggregate>& carry,
                     carry::compact_detail::no_value (&)[ITEMS], Sink&) const {
    I count = carry.valid ? carry.value.count : I{0};
    count += static_cast<I>(__popc(t.heads));
    if (t.last >= t.first && t.last < t.first + ITEMS) *this->num_runs = count;
  }
};

/// A two-phase call run(temp, bytes) timed (median of cold-L2 event times) and printed as one row.
template <class Run>
void time_row(bufs& d, const char* op, const char* name, Run run) {
  std::size_t need = 0;
  CARRY_CUDA_OR_DIE(run(nullptr, need));
  d.g.ensure_temp(need);
  const double us = time_cold(
      d.g,
      [&](int) {
        std::size_t s = d.g.temp_bytes;
        CARRY_CUDA_OR_DIE(run(d.g.temp, s));
      },
      1, d.reps, true);
  std::printf("%-22s %-24s %10.2f us\n", op, name, us);
}

/// P with its look-back warp sleeping DELAY ns between polls of predecessors not yet published.
template <class P, int DELAY>
struct with_delay : P {
  static constexpr int lookback_delay_ns = DELAY;
};

template <class P>
void probe(bufs& d, const char* name) {
  using namespace carry;
  using K = std::uint32_t;
  using rle_b = compact_detail::span_behaviour<false, K, std::uint32_t, equal_to, K*, K*, std::int64_t*>;
  using rbk_b =
      compact_detail::reduce_by_key_behaviour<K, K, std::uint32_t, sum, equal_to, K*, K*, std::int64_t*>;
  using sbk_b = detail::scan_by_key_behaviour<false, K, K, sum, equal_to, K*>;
  using sbk_f = detail::scan_by_key_behaviour<false, K, float, sum, equal_to, float*>;
  scan_options det;
  det.deterministic = true;
  const std::int64_t n = d.n;
  using rlec_b = rle_count_only<K, std::uint32_t>;
  auto run = [&](int which, void* t, std::size_t& s) -> cudaError_t {
    if (which == 3)
      return compact_detail::run_pass<P>(t, s, static_cast<const K*>(d.k),
                                         static_cast<const compact_detail::no_value*>(nullptr),
                                         rlec_b{{equal_to{}, d.a, d.b, d.num}}, n, d.num, scan_options{}, 0);
    if (which == 0)
      return compact_detail::run_pass<P>(t, s, static_cast<const K*>(d.k),
                                         static_cast<const compact_detail::no_value*>(nullptr),
                                         rle_b{equal_to{}, d.a, d.b, d.num}, n, d.num, scan_options{}, 0);
    if (which == 1)
      return compact_detail::run_pass<P>(t, s, static_cast<const K*>(d.k), static_cast<const K*>(d.v),
                                         rbk_b{equal_to{}, sum{}, d.a, d.b, d.num}, n, d.num, scan_options{},
                                         0);
    if (which >= 6) // the look-back not stopping at a run start (6: deterministic, 7: not)
      return detail::dispatch_keyed<P>(t, s, static_cast<const K*>(d.k), reinterpret_cast<const float*>(d.v),
                                       uncut<sbk_f>{{equal_to{}, sum{}, 0.0f, reinterpret_cast<float*>(d.b)}},
                                       n, which == 6 ? det : scan_options{}, true, 0);
    if (which >= 4) // f32 values (the u32 values' bits: small denormals, full speed on the GPU)
      return detail::dispatch_keyed<P>(t, s, static_cast<const K*>(d.k), reinterpret_cast<const float*>(d.v),
                                       sbk_f{equal_to{}, sum{}, 0.0f, reinterpret_cast<float*>(d.b)}, n,
                                       which == 5 ? det : scan_options{}, true, 0);
    return detail::dispatch_keyed<P>(t, s, static_cast<const K*>(d.k), static_cast<const K*>(d.v),
                                     sbk_b{equal_to{}, sum{}, 0u, d.b}, n, scan_options{}, true, 0);
  };
  const char* names[] = {"run_length_encode",        "reduce_by_key",       "inclusive_sum_by_key",
                         "rle_count_only",           "sum_by_key_f32",      "sum_by_key_f32_det",
                         "sum_by_key_f32_det_uncut", "sum_by_key_f32_uncut"};
  for (int which = 0; which < 8; ++which) {
    time_row(d, names[which], name, [&](void* t, std::size_t& bytes) { return run(which, t, bytes); });
  }
}

/// The run-length calls through the pass of Agent (the staged one, or the keyed agent) with policy P.
template <class P, template <class, bool, class> class Agent = carry::compact_detail::staged_span_agent>
void probe_spans(bufs& d, const char* name) {
  using namespace carry;
  using K = std::uint32_t;
  for (int which = 0; which < 2; ++which) {
    auto run = [&](void* t, std::size_t& s) -> cudaError_t {
      const auto* none = static_cast<const compact_detail::no_value*>(nullptr);
      if (which == 0)
        return compact_detail::run_pass<P, Agent>(
            t, s, static_cast<const K*>(d.k), none,
            compact_detail::span_behaviour<false, K, std::uint32_t, equal_to, K*, K*, std::int64_t*>{
                equal_to{}, d.a, d.b, d.num},
            d.n, d.num, scan_options{}, 0);
      return compact_detail::run_pass<P, Agent>(
          t, s, static_cast<const K*>(d.k), none,
          compact_detail::span_behaviour<true, K, std::uint32_t, equal_to, K*, K*, std::int64_t*>{
              equal_to{}, d.a, d.b, d.num},
          d.n, d.num, scan_options{}, 0);
    };
    time_row(d, which == 0 ? "run_length_encode" : "non_trivial_runs", name, run);
  }
}
/// The keyed agent's run calls with values (reduce_by_key, select_unique_by_key) and its run_length_encode
/// with policy P.
template <class P, class E>
void probe_run_calls(bufs& d, const char* name) {
  using namespace carry;
  using K = std::uint32_t;
  using rbk_b =
      compact_detail::reduce_by_key_behaviour<K, K, std::uint32_t, sum, equal_to, K*, K*, std::int64_t*>;
  using unique_b = compact_detail::unique_behaviour<K, K, std::uint32_t, equal_to, K*, K*, std::int64_t*>;
  using rle_b = compact_detail::span_behaviour<false, K, std::uint32_t, equal_to, K*, K*, std::int64_t*>;
  const K* keys = d.k;
  time_row(d, "reduce_by_key", name, [&](void* t, std::size_t& s) {
    return compact_detail::run_pass<P>(t, s, keys, static_cast<const K*>(d.v),
                                       rbk_b{equal_to{}, sum{}, d.a, d.b, d.num}, d.n, d.num, scan_options{},
                                       0);
  });
  time_row(d, "select_unique_by_key", name, [&](void* t, std::size_t& s) {
    return compact_detail::run_pass<P>(t, s, keys, static_cast<const K*>(d.v),
                                       unique_b{equal_to{}, d.a, d.b, d.num}, d.n, d.num, scan_options{}, 0);
  });
  time_row(d, "run_length_encode", name, [&](void* t, std::size_t& s) {
    return compact_detail::run_pass<E>(t, s, keys, static_cast<const compact_detail::no_value*>(nullptr),
                                       rle_b{equal_to{}, d.a, d.b, d.num}, d.n, d.num, scan_options{}, 0);
  });
}

/// inclusive_sum_by_key over u32 (and f32, deterministic) values through the keyed agent with policy P.
template <class P>
void probe_scan_by_key(bufs& d, const char* name) {
  using namespace carry;
  using K = std::uint32_t;
  using sbk_b = detail::scan_by_key_behaviour<false, K, K, sum, equal_to, K*>;
  using sbk_f = detail::scan_by_key_behaviour<false, K, float, sum, equal_to, float*>;
  scan_options det;
  det.deterministic = true;
  time_row(d, "inclusive_sum_by_key", name, [&](void* t, std::size_t& s) {
    return detail::dispatch_keyed<P>(t, s, static_cast<const K*>(d.k), static_cast<const K*>(d.v),
                                     sbk_b{equal_to{}, sum{}, 0u, d.b}, d.n, scan_options{}, true, 0);
  });
  time_row(d, "sum_by_key_f32_det", name, [&](void* t, std::size_t& s) {
    return detail::dispatch_keyed<P>(t, s, static_cast<const K*>(d.k), reinterpret_cast<const float*>(d.v),
                                     sbk_f{equal_to{}, sum{}, 0.0f, reinterpret_cast<float*>(d.b)}, d.n, det,
                                     true, 0);
  });
}

/// The keyed agent's run-length calls (the shipped encode policy), beside the staged ones.
void probe_keyed_spans(bufs& d) {
  probe_spans<carry::tuning::keyed_encode_policy<std::uint32_t, std::uint32_t>, carry::detail::keyed_agent>(
      d, "keyed agent");
}

} // namespace

int main(int argc, char** argv) {
  bufs d{};
  d.n = std::int64_t{1} << (argc > 1 ? std::atoi(argv[1]) : 26);
  d.reps = argc > 2 ? std::atoi(argv[2]) : 20;
  const int run = argc > 3 ? std::atoi(argv[3]) : 4;
  const bool spans_only = argc > 4 && std::string(argv[4]) == "spans";
  const bool flush_only = argc > 4 && std::string(argv[4]) == "flush";
  for (std::uint32_t** p : {&d.k, &d.v, &d.a, &d.b}) CARRY_CUDA_OR_DIE(cudaMalloc(p, 4 * d.n));
  CARRY_CUDA_OR_DIE(cudaMalloc(&d.num, 8));
  CARRY_CUDA_OR_DIE(cudaMalloc(&d.g.flush, flush_bytes));
  fill<<<2048, 256>>>(d.k, d.v, d.n, run);
  const double copy = time_cold(
      d.g, [&](int) { CARRY_CUDA_OR_DIE(cudaMemcpyAsync(d.a, d.k, 4 * d.n, cudaMemcpyDeviceToDevice)); }, 1,
      d.reps, true);
  std::printf("copy of the keys: %.2f us (n = %lld)\n", copy, static_cast<long long>(d.n));
  using carry::staged_tile_policy;
  using carry::compact_tuning::compact_policy;
  std::printf("runs of %d\n", run);
  // the keyed agent's run calls on the 5-block tile (encode: 6 blocks, the guess alone) in four shapes
  using runs_tile = carry::tuning::keyed_policy<std::uint32_t, std::uint32_t, 5, 4>;
  using encode_tile = carry::tuning::keyed_policy<std::uint32_t, std::uint32_t, 6, 2>;
  using carry::tuning::kogge_stone_warps;
  using carry::tuning::warp_flushed;
  if (argc > 4 && std::string(argv[4]) == "warps") { // the block scan's warp scan: Brent-Kung or Kogge-Stone
    for (int round = 0; round < 2; ++round) {
      probe_run_calls<runs_tile, encode_tile>(d, "Brent-Kung, block flush");
      probe_run_calls<warp_flushed<runs_tile>, warp_flushed<encode_tile>>(d, "Brent-Kung, warp flush");
      probe_run_calls<kogge_stone_warps<runs_tile>, kogge_stone_warps<encode_tile>>(
          d, "Kogge-Stone, block flush");
      probe_run_calls<kogge_stone_warps<warp_flushed<runs_tile>>,
                      kogge_stone_warps<warp_flushed<encode_tile>>>(d, "Kogge-Stone, warp flush");
      using scans = carry::tuning::keyed_scan_policy<std::uint32_t, std::uint32_t>;
      probe_scan_by_key<scans>(d, "Brent-Kung (shipped)");
      probe_scan_by_key<kogge_stone_warps<scans>>(d, "Kogge-Stone");
    }
    return 0;
  }
  if (argc > 4 && std::string(argv[4]) == "ahead") { // the staged run-length pass asking for a tile ahead
    using BA = carry::block_scan_algorithm;
    for (int round = 0; round < 2; ++round) {
      probe_spans<compact_policy<256, 32, 5, false, 0, BA::coarsened, true, 0>>(d, "staged, the guess alone");
      probe_spans<carry::compact_tuning::run_length_policy<std::uint32_t>>(
          d, "staged, 6 blocks, 1 SM ahead (shipped)");
      probe_spans<compact_policy<256, 32, 5, false, 0, BA::coarsened, true, 2>>(d, "staged, 2 SMs ahead");
      if (argc > 5)
        probe_spans<compact_policy<256, 32, 5, false, 0, BA::coarsened, true, 1>>(
            d, "staged, 5 blocks, 1 SM ahead");
    }
    return 0;
  }
  if (flush_only) { // the keyed agent's run outputs: the block's flush after a barrier, or each warp's own
    for (int round = 0; round < 2; ++round) {
      probe_run_calls<runs_tile, encode_tile>(d, "block flush");
      probe_run_calls<warp_flushed<runs_tile>, warp_flushed<encode_tile>>(d, "warp flush");
    }
    return 0;
  }
  probe_keyed_spans(d);
  probe_spans<carry::compact_tuning::run_length_policy<std::uint32_t>>(d, "staged, shipped");
  probe_spans<carry::tuning::kogge_stone_warps<carry::compact_tuning::run_length_policy<std::uint32_t>>>(
      d, "staged, Kogge-Stone");
  probe_spans<compact_policy<256, 32, 5, false>>(d, "staged 256x32 5, plain");
  probe_spans<compact_policy<256, 32, 5, true, 0, carry::block_scan_algorithm::coarsened, false>>(
      d, "staged 256x32 5, no guess");
  probe_spans<compact_policy<128, 32, 10, true>>(d, "staged 128x32 10");
  probe_keyed_spans(d);
  if (spans_only) return 0;
  probe<carry::tuning::keyed_runs_policy<std::uint32_t, std::uint32_t>>(d, "shipped runs");
  probe<carry::tuning::keyed_scan_policy<std::uint32_t, std::uint32_t>>(d, "shipped scans");
  probe<carry::tuning::keyed_encode_policy<std::uint32_t, std::uint32_t>>(d, "shipped encode");
  probe<staged_tile_policy<256, 16, 4, false, 2>>(d, "min4, guess only");
  probe<staged_tile_policy<256, 16, 5, false, 2>>(d, "min5, guess only");
  probe<staged_tile_policy<256, 16, 6, false, 4>>(d, "min6, 1 a SM ahead");
  probe<staged_tile_policy<256, 16, 4, false, 5>>(d, "min4, 2 a SM ahead");
  probe<staged_tile_policy<256, 16, 5, false, 5>>(d, "min5, 2 a SM ahead");
  using scans = carry::tuning::keyed_scan_policy<std::uint32_t, std::uint32_t>;
  probe<with_delay<scans, 100>>(d, "scans, poll every 100 ns");
  probe<with_delay<scans, 400>>(d, "scans, poll every 400 ns");
  probe<with_delay<scans, 1000>>(d, "scans, poll every 1 us");

  return 0;
}
