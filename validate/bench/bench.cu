// Benchmark: carry's scans against CUB, Thrust and a device copy, in one run, on one GPU.
// Large n: CUDA events around each call, median of many after warm-up, rotating buffers while inputs
// fit in L2: "events" on an idle GPU (the host's launch latency falls inside), "blocked" with each call
// queued behind a spin kernel (GPU time alone, as nvbench's cold measurement). Small n: "queued" = a batch of
// calls queued behind a busy kernel, per call; "e2e" = host clock around one call plus a stream sync on an
// idle GPU (carry's default and CUB in alternating batches of 40 calls, 10 each, the lowest batch median: see
// timing.cuh). Graphs: one scan captured per rotated buffer pair and replayed (bench_graphs). Every carry
// result timed is checked once.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <carry/scan/device_scan.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "bench/baselines/baselines.hpp"
#include "tests/common/gpu.cuh"
#include "bench/timing.cuh"

using namespace carry_validate;

namespace {

struct options {
  int min_log2 = 10, max_log2 = 30;
  bool quick = false, variants = true;
  std::string csv = "bench.csv";
  std::string only_type;
  bool graphs_only = false;
  bool mixed_only = false; // only the scans of other inputs (bench_mixed)
};

struct row {
  std::string op, impl, type, method;
  std::int64_t n;
  double us;
};
std::vector<row> rows;

template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    if constexpr (std::is_floating_point<T>::value)
      p[i] = static_cast<T>((z >> 11) * (1.0 / 9007199254740992.0));
    else
      p[i] = static_cast<T>(z);
  }
}
template <class T>
__global__ void mismatch_kernel(const T* a, const T* b, std::int64_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const unsigned char* x = reinterpret_cast<const unsigned char*>(&a[i]);
    const unsigned char* y = reinterpret_cast<const unsigned char*>(&b[i]);
    bool differ = false;
    for (unsigned k = 0; k < sizeof(T); ++k) differ |= x[k] != y[k];
    local += differ;
  }
  if (local) atomicAdd(count, local);
}

/// A call on the `r`-th rotated buffer pair.
using call_fn = std::function<void(int r)>;

/// Median microseconds per call: batches queued behind a spin kernel for n <= 2^22 (GPU time per call
/// with work queued ahead), events around each call above (blocked: each call queued behind a spin
/// kernel, see median_event_us).
double time_events(const call_fn& call, std::int64_t n, int rotations, int reps, bool blocked = false) {
  if (n <= (std::int64_t{1} << 22)) return median_queued_us(call, rotations, reps);
  return median_rotating_event_us(call, rotations, reps, blocked);
}

template <class T>
const char* type_name() {
  if (std::is_same<T, std::uint32_t>::value) return "u32";
  if (std::is_same<T, float>::value) return "f32";
  if (std::is_same<T, std::uint64_t>::value) return "u64";
  if (std::is_same<T, std::uint8_t>::value) return "u8";
  return "?";
}

struct buffers {
  void* in = nullptr;
  void* out = nullptr;
  void* check = nullptr;
  void* temp = nullptr;
  std::size_t bytes = 0, temp_bytes = 0;
  unsigned long long* count = nullptr;
};

enum class scan_op { inclusive_sum, exclusive_sum, inclusive_max };
const char* op_name(scan_op o) {
  return o == scan_op::inclusive_sum   ? "inclusive_sum"
         : o == scan_op::exclusive_sum ? "exclusive_sum"
                                       : "inclusive_max";
}

/// A carry scan: through the public entry points for the tuned policies (they add the small-input
/// tile), through device_scan_with for the other block algorithms.
template <class HP, class SP, class T>
cudaError_t carry_call(scan_op o, void* tmp, std::size_t& bytes, const T* in, T* out, std::int64_t n,
                       carry::scan_options opt, cudaStream_t s = cudaStream_t{}) {
  if constexpr (std::is_same<HP, carry::tuning::hierarchical_policy<T>>::value) {
    switch (o) {
    case scan_op::inclusive_sum:
      return carry::inclusive_sum(tmp, bytes, in, out, n, opt, s);
    case scan_op::exclusive_sum:
      return carry::exclusive_sum(tmp, bytes, in, out, n, opt, s);
    default:
      return carry::inclusive_scan(tmp, bytes, in, out, carry::maximum{}, n, opt, s);
    }
  } else {
    using W = carry::device_scan_with<HP, SP>;
    switch (o) {
    case scan_op::inclusive_sum:
      return W::inclusive_scan(tmp, bytes, in, out, carry::sum{}, n, opt, s);
    case scan_op::exclusive_sum:
      return W::exclusive_scan(tmp, bytes, in, out, carry::sum{}, T{}, n, opt, s);
    default:
      return W::inclusive_scan(tmp, bytes, in, out, carry::maximum{}, n, opt, s);
    }
  }
}
template <class T>
cudaError_t cub_call(scan_op o, void* tmp, std::size_t& bytes, const T* in, T* out, std::int64_t n,
                     cudaStream_t s = cudaStream_t{}) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, std::uint32_t>::value)
    if (o == scan_op::inclusive_max) return cub_inclusive_max(tmp, bytes, in, out, n, s);
  return o == scan_op::exclusive_sum ? cub_exclusive_sum(tmp, bytes, in, out, n, s)
                                     : cub_inclusive_sum(tmp, bytes, in, out, n, s);
}

void ensure_temp(buffers& b, std::size_t need) {
  if (need <= b.temp_bytes) return;
  if (b.temp) CARRY_CUDA_OR_DIE(cudaFree(b.temp));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.temp, need));
  b.temp_bytes = need;
}

template <class T>
void bench_case(buffers& b, scan_op o, std::int64_t n, const options& opt) {
  const std::size_t item_bytes = n * sizeof(T);
  const int rotations =
      static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(8, b.bytes / item_bytes)));
  const int reps = n <= (1 << 16) ? 30 : n <= (1 << 22) ? 30 : n <= (1 << 26) ? 40 : n <= (1 << 28) ? 15 : 7;
  T* in = static_cast<T*>(b.in);
  T* out = static_cast<T*>(b.out);
  const char* tn = type_name<T>();
  const std::string on = op_name(o);
  auto record = [&](const std::string& impl, double us, const char* method) {
    rows.push_back(row{on, impl, tn, method, n, us});
  };

  // ---- the reference for checks: CUB's output ----
  std::size_t need = 0;
  CARRY_CUDA_OR_DIE(cub_call(o, nullptr, need, in, out, n));
  ensure_temp(b, need);
  CARRY_CUDA_OR_DIE(cub_call(o, b.temp, need, in, static_cast<T*>(b.check), n));
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  const bool exact = !std::is_floating_point<T>::value || o == scan_op::inclusive_max;

  auto timed = [&](const std::string& impl, const call_fn& call) {
    double us = time_events(call, n, rotations, reps);
    record(impl, us, n <= (std::int64_t{1} << 22) ? "queued" : "events");
    if (n > (std::int64_t{1} << 22)) // the same calls, each queued behind a spin kernel
      record(impl, time_events(call, n, rotations, reps, true), "blocked");
  };

  timed("memcpy", [&](int r) {
    CARRY_CUDA_OR_DIE(cudaMemcpyAsync(out + r * n, in + r * n, item_bytes, cudaMemcpyDeviceToDevice));
  });
  timed("cub", [&](int r) {
    std::size_t t = b.temp_bytes;
    CARRY_CUDA_OR_DIE(cub_call(o, b.temp, t, in + r * n, out + r * n, n));
  });
  if (o == scan_op::inclusive_sum)
    timed("thrust", [&](int r) { thrust_inclusive_sum(in + r * n, out + r * n, n, cudaStream_t{}); });

  using HP = carry::tuning::hierarchical_policy<T>;
  using SP = carry::tuning::single_pass_policy<T>;
  auto carry_impl = [&](const std::string& impl, auto hp, carry::scan_options so) {
    using H = decltype(hp);
    std::size_t bytes = 0;
    CARRY_CUDA_OR_DIE(carry_call<H, SP>(o, nullptr, bytes, in, out, n, so));
    ensure_temp(b, bytes);
    // check once, on poisoned output
    CARRY_CUDA_OR_DIE(cudaMemset(out, 0xA5, item_bytes));
    CARRY_CUDA_OR_DIE(carry_call<H, SP>(o, b.temp, bytes, in, out, n, so));
    if (exact) {
      CARRY_CUDA_OR_DIE(cudaMemset(b.count, 0, sizeof(unsigned long long)));
      mismatch_kernel<<<1024, 256>>>(out, static_cast<const T*>(b.check), n, b.count);
      unsigned long long bad = 0;
      CARRY_CUDA_OR_DIE(cudaMemcpy(&bad, b.count, sizeof bad, cudaMemcpyDeviceToHost));
      if (bad) {
        std::fprintf(stderr, "MISMATCH: %s %s %s n=%lld: %llu elements differ from CUB\n", impl.c_str(),
                     on.c_str(), tn, static_cast<long long>(n), bad);
        std::exit(3);
      }
    }
    timed(impl, [&](int r) {
      std::size_t t = b.temp_bytes;
      CARRY_CUDA_OR_DIE(carry_call<H, SP>(o, b.temp, t, in + r * n, out + r * n, n, so));
    });
  };
  const carry::scan_options hier{carry::scan_algorithm::hierarchical, false};
  carry_impl("carry-auto", HP{}, carry::scan_options{});
  carry_impl("carry-single_pass", HP{}, carry::scan_options{carry::scan_algorithm::single_pass, false});
  carry_impl("carry-single_pass-det", HP{}, carry::scan_options{carry::scan_algorithm::single_pass, true});
  carry_impl("carry-hier-coarsened", HP{}, hier);
  if (opt.variants && o == scan_op::inclusive_sum && std::is_same<T, std::uint32_t>::value) {
    using BA = carry::block_scan_algorithm;
    carry_impl("carry-hier-kogge_stone", carry::tuning::seed_policy<BA::kogge_stone>{}, hier);
    carry_impl("carry-hier-kogge_stone_db", carry::tuning::seed_policy<BA::kogge_stone_double_buffer>{},
               hier);
    carry_impl("carry-hier-brent_kung", carry::tuning::seed_policy<BA::brent_kung>{}, hier);
    carry_impl("carry-hier-blelloch", carry::tuning::seed_policy<BA::blelloch>{}, hier);
  }
  if (n <= (1 << 16)) { // end to end: carry's default and CUB, batches alternating
    std::size_t bytes = 0;
    CARRY_CUDA_OR_DIE(carry_call<HP, SP>(o, nullptr, bytes, in, out, n, carry::scan_options{}));
    ensure_temp(b, bytes);
    CARRY_CUDA_OR_DIE(cub_call(o, nullptr, bytes, in, out, n));
    ensure_temp(b, bytes);
    const auto e2e = end_to_end_us({[&](int r) {
                                      std::size_t t = b.temp_bytes;
                                      CARRY_CUDA_OR_DIE(carry_call<HP, SP>(
                                          o, b.temp, t, in + r * n, out + r * n, n, carry::scan_options{}));
                                    },
                                    [&](int r) {
                                      std::size_t t = b.temp_bytes;
                                      CARRY_CUDA_OR_DIE(cub_call(o, b.temp, t, in + r * n, out + r * n, n));
                                    }},
                                   rotations, 400, 10);
    record("carry-auto", e2e[0], "e2e");
    record("cub", e2e[1], "e2e");
  }
  std::fflush(stdout);
}

template <class T>
void bench_type(buffers& b, const options& opt, std::vector<scan_op> ops) {
  if (!opt.only_type.empty() && opt.only_type != type_name<T>()) return;
  const std::int64_t max_elems = static_cast<std::int64_t>(b.bytes / sizeof(T));
  fill_kernel<<<4096, 256>>>(static_cast<T*>(b.in), max_elems, 12345);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  for (scan_op o : ops)
    for (int lg = opt.min_log2; lg <= opt.max_log2; lg += opt.quick ? 4 : 2) {
      const std::int64_t n = std::int64_t{1} << lg;
      if (n > max_elems) break;
      bench_case<T>(b, o, n, opt);
      std::fprintf(stderr, "  %s %s 2^%d done\n", op_name(o), type_name<T>(), lg);
    }
}

/// Graph replays (issue 14): one scan captured into a graph per rotated buffer pair, then replayed.
/// "graph" = events around one cudaGraphLaunch on an idle GPU (median); "graph-e2e" = host clock around
/// one launch and its stream sync (median). carry's replays are checked against CUB's output, each
/// rotation once after its replays.
template <class T>
void bench_graphs(buffers& b, scan_op o, const options& opt) {
  if (!opt.only_type.empty() && opt.only_type != type_name<T>()) return;
  cudaStream_t s;
  CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CARRY_CUDA_OR_DIE(cudaEventCreate(&e0));
  CARRY_CUDA_OR_DIE(cudaEventCreate(&e1));
  T* in = static_cast<T*>(b.in);
  T* out = static_cast<T*>(b.out);
  const T* check = static_cast<const T*>(b.check);
  using HP = carry::tuning::hierarchical_policy<T>;
  using SP = carry::tuning::single_pass_policy<T>;
  for (int lg : {10, 16, 20, 24}) {
    const std::int64_t n = std::int64_t{1} << lg;
    const int rotations =
        static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(8, (std::int64_t{1} << 27) / n)));
    const int reps = 200;
    std::vector<T*> checks; // CUB's output for each rotation's input
    std::size_t need = 0;
    CARRY_CUDA_OR_DIE(cub_call(o, nullptr, need, in, out, n));
    ensure_temp(b, need);
    CARRY_CUDA_OR_DIE(carry_call<HP, SP>(o, nullptr, need, in, out, n, carry::scan_options{}));
    ensure_temp(b, need);
    for (int impl = 0; impl < 2; ++impl) {
      std::vector<cudaGraphExec_t> execs(rotations);
      for (int r = 0; r < rotations; ++r) {
        cudaGraph_t g;
        std::size_t t = b.temp_bytes;
        CARRY_CUDA_OR_DIE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        if (impl == 0)
          CARRY_CUDA_OR_DIE(
              carry_call<HP, SP>(o, b.temp, t, in + r * n, out + r * n, n, carry::scan_options{}, s));
        else
          CARRY_CUDA_OR_DIE(cub_call(o, b.temp, t, in + r * n, out + r * n, n, s));
        CARRY_CUDA_OR_DIE(cudaStreamEndCapture(s, &g));
        CARRY_CUDA_OR_DIE(cudaGraphInstantiate(&execs[r], g, 0));
        CARRY_CUDA_OR_DIE(cudaGraphDestroy(g));
      }
      for (int r = 0; r < rotations; ++r) CARRY_CUDA_OR_DIE(cudaGraphLaunch(execs[r], s)); // warm-up
      CARRY_CUDA_OR_DIE(cudaStreamSynchronize(s));
      std::vector<double> ev, host;
      for (int k = 0; k < reps; ++k) {
        CARRY_CUDA_OR_DIE(cudaEventRecord(e0, s));
        CARRY_CUDA_OR_DIE(cudaGraphLaunch(execs[k % rotations], s));
        CARRY_CUDA_OR_DIE(cudaEventRecord(e1, s));
        CARRY_CUDA_OR_DIE(cudaEventSynchronize(e1));
        float ms = 0;
        CARRY_CUDA_OR_DIE(cudaEventElapsedTime(&ms, e0, e1));
        ev.push_back(ms * 1e3);
        const auto t0 = std::chrono::steady_clock::now();
        CARRY_CUDA_OR_DIE(cudaGraphLaunch(execs[(k + 1) % rotations], s));
        CARRY_CUDA_OR_DIE(cudaStreamSynchronize(s));
        host.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      if (impl == 0) { // every rotation's output of the last replays against CUB's (computed now)
        for (int r = 0; r < rotations; ++r) {
          std::size_t t = b.temp_bytes;
          CARRY_CUDA_OR_DIE(cub_call(o, b.temp, t, in + r * n, static_cast<T*>(b.check), n));
          CARRY_CUDA_OR_DIE(cudaMemset(b.count, 0, sizeof(unsigned long long)));
          mismatch_kernel<<<1024, 256>>>(out + r * n, check, n, b.count);
          unsigned long long bad = 0;
          CARRY_CUDA_OR_DIE(cudaMemcpy(&bad, b.count, sizeof bad, cudaMemcpyDeviceToHost));
          if (bad && !std::is_floating_point<T>::value) {
            std::fprintf(stderr, "MISMATCH: graph replay %s %s n=%lld rotation %d: %llu elements differ\n",
                         op_name(o), type_name<T>(), static_cast<long long>(n), r, bad);
            std::exit(3);
          }
        }
      }
      for (auto& x : execs) CARRY_CUDA_OR_DIE(cudaGraphExecDestroy(x));
      std::sort(ev.begin(), ev.end());
      std::sort(host.begin(), host.end());
      const std::string impl_name = impl == 0 ? "carry-auto" : "cub";
      rows.push_back(row{op_name(o), impl_name, type_name<T>(), "graph", n, ev[ev.size() / 2]});
      rows.push_back(row{op_name(o), impl_name, type_name<T>(), "graph-e2e", n, host[host.size() / 2]});
    }
    std::fprintf(stderr, "  graph %s %s 2^%d done\n", op_name(o), type_name<T>(), lg);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(s);
}

const row* find(const std::string& op, const std::string& impl, const std::string& type, std::int64_t n,
                const std::string& method) {
  for (const auto& r : rows)
    if (r.op == op && r.impl == impl && r.type == type && r.n == n && r.method == method) return &r;
  return nullptr;
}

/// Scans of other inputs against the pointer scan of their output type (u32) and CUB's same call, each
/// checked against CUB once: u8 flags into u32 offsets (exclusive), a transform of a counting iterator
/// into u32 (inclusive). Bytes moved: 5n and 4n.
void bench_mixed(buffers& b, const options& opt) {
  auto* in8 = static_cast<std::uint8_t*>(b.in);
  auto* in32 = static_cast<std::uint32_t*>(b.in);
  auto* out = static_cast<std::uint32_t*>(b.out);
  auto* check = static_cast<std::uint32_t*>(b.check);
  const auto squares =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), square_mod_1000{});
  for (int l = std::max(opt.min_log2, 20); l <= std::min(opt.max_log2, 30); l += 2) {
    const std::int64_t n = std::int64_t{1} << l;
    const int rotations =
        static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(8, b.bytes / (4 * n))));
    const int reps = n <= (1 << 26) ? 40 : n <= (1 << 28) ? 15 : 7;
    fill_kernel<<<4096, 256>>>(in8, static_cast<std::int64_t>(b.bytes), 99);
    for (int which = 0; which < 2; ++which) {
      const std::string op = which == 0 ? "exclusive_sum_u8_to_u32" : "inclusive_sum_transform";
      const std::string type = which == 0 ? "u8/u32" : "idx/u32";
      auto carry_run = [&](void* t, std::size_t& bytes, int r) {
        return which == 0 ? carry::exclusive_sum(t, bytes, static_cast<const std::uint8_t*>(in8 + r * n),
                                                 out + r * n, n)
                          : carry::inclusive_sum(t, bytes, squares, out + r * n, n);
      };
      auto cub_run = [&](void* t, std::size_t& bytes, int r, std::uint32_t* dst) {
        return which == 0 ? cub_exclusive_sum_u8_u32(t, bytes, in8 + r * n, dst, n, cudaStream_t{})
                          : cub_inclusive_sum_squares(t, bytes, dst, n, cudaStream_t{});
      };
      auto pointer_run = [&](void* t, std::size_t& bytes, int r) { // the pointer scan of the output type
        return which == 0 ? carry::exclusive_sum(t, bytes, static_cast<const std::uint32_t*>(in32 + r * n),
                                                 out + r * n, n)
                          : carry::inclusive_sum(t, bytes, static_cast<const std::uint32_t*>(in32 + r * n),
                                                 out + r * n, n);
      };
      std::size_t need = 0, a = 0, c = 0;
      CARRY_CUDA_OR_DIE(carry_run(nullptr, a, 0));
      CARRY_CUDA_OR_DIE(cub_run(nullptr, c, 0, check));
      CARRY_CUDA_OR_DIE(pointer_run(nullptr, need, 0));
      ensure_temp(b, std::max({need, a, c}));
      // ---- the check: carry against CUB ----
      std::size_t t = b.temp_bytes;
      CARRY_CUDA_OR_DIE(cub_run(b.temp, t, 0, check));
      CARRY_CUDA_OR_DIE(carry_run(b.temp, t, 0));
      CARRY_CUDA_OR_DIE(cudaMemset(b.count, 0, sizeof(unsigned long long)));
      mismatch_kernel<<<1024, 256>>>(out, check, n, b.count);
      unsigned long long bad = 0;
      CARRY_CUDA_OR_DIE(cudaMemcpy(&bad, b.count, sizeof bad, cudaMemcpyDeviceToHost));
      if (bad != 0) {
        std::fprintf(stderr, "MISMATCH: %s n=2^%d: %llu items differ from CUB\n", op.c_str(), l, bad);
        std::exit(3);
      }
      auto timed = [&](const std::string& impl, const call_fn& call) {
        rows.push_back(row{op, impl, type, "events", n, time_events(call, n, rotations, reps)});
        rows.push_back(row{op, impl, type, "blocked", n, time_events(call, n, rotations, reps, true)});
      };
      timed("memcpy", [&](int r) {
        CARRY_CUDA_OR_DIE(cudaMemcpyAsync(out + r * n, in32 + r * n, 4 * n, cudaMemcpyDeviceToDevice));
      });
      timed("cub", [&](int r) {
        std::size_t tb = b.temp_bytes;
        CARRY_CUDA_OR_DIE(cub_run(b.temp, tb, r, out + r * n));
      });
      timed("carry", [&](int r) {
        std::size_t tb = b.temp_bytes;
        CARRY_CUDA_OR_DIE(carry_run(b.temp, tb, r));
      });
      timed("carry-u32-pointer", [&](int r) {
        std::size_t tb = b.temp_bytes;
        CARRY_CUDA_OR_DIE(pointer_run(b.temp, tb, r));
      });
    }
    std::fprintf(stderr, "mixed 2^%d done\n", l);
  }
}

} // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      opt.quick = true;
    else if (a == "--no-variants")
      opt.variants = false;
    else if (a == "--csv" && i + 1 < argc)
      opt.csv = argv[++i];
    else if (a == "--max-log2" && i + 1 < argc)
      opt.max_log2 = std::atoi(argv[++i]);
    else if (a == "--min-log2" && i + 1 < argc)
      opt.min_log2 = std::atoi(argv[++i]);
    else if (a == "--type" && i + 1 < argc)
      opt.only_type = argv[++i];
    else if (a == "--graphs-only")
      opt.graphs_only = true;
    else if (a == "--mixed-only")
      opt.mixed_only = true;
    else {
      std::printf("usage: carry_bench [--quick] [--no-variants] [--csv FILE] [--min-log2 N] [--max-log2 N] "
                  "[--type u32|f32|u64|u8] [--graphs-only] [--mixed-only]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (!gpu_present()) {
    std::printf("carry_bench: no CUDA-capable GPU found\n");
    return 2;
  }
  print_bench_banner(cccl_version());
  buffers b;
  b.bytes = std::size_t{1} << 33; // 8 GiB each: 2^30 items of every benchmarked type
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.in, b.bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.out, b.bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.check, b.bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.count, sizeof(unsigned long long)));
  if (!opt.graphs_only) bench_mixed(b, opt);
  if (!opt.graphs_only && !opt.mixed_only) {
    bench_type<std::uint32_t>(b, opt, {scan_op::inclusive_sum, scan_op::exclusive_sum});
    bench_type<float>(b, opt, {scan_op::inclusive_sum, scan_op::exclusive_sum, scan_op::inclusive_max});
    bench_type<std::uint64_t>(b, opt, {scan_op::inclusive_sum});
    bench_type<std::uint8_t>(b, opt, {scan_op::inclusive_sum});
  }
  if (!opt.mixed_only) {
    fill_kernel<<<4096, 256>>>(static_cast<std::uint32_t*>(b.in), std::int64_t{1} << 28, 777);
    bench_graphs<std::uint32_t>(b, scan_op::exclusive_sum, opt);
    bench_graphs<std::uint64_t>(b, scan_op::inclusive_sum, opt);
  }

  // ---- table: each row's throughput relative to CUB and to the copy of the same bytes ----
  FILE* csv = std::fopen(opt.csv.c_str(), "w");
  if (csv) std::fprintf(csv, "# %s\n", bench_banner(cccl_version()).c_str());
  if (csv) std::fprintf(csv, "op,impl,type,n,median_us,gbps,vs_cub,vs_memcpy,method\n");
  std::printf("\n%-14s %-4s %6s %-26s %-7s %11s %9s %7s %7s\n", "op", "type", "n", "impl", "method",
              "median_us", "GB/s", "x_cub", "x_copy");
  for (const auto& r : rows) {
    const std::size_t tbytes = r.type == "u8" ? 1 : r.type == "u64" ? 8 : 4;
    // bytes an item moves: read and write (u8 flags into u32 offsets: 1 + 4; a transform's output: 4)
    const double item_bytes = r.type == "u8/u32" ? 5.0 : r.type == "idx/u32" ? 4.0 : 2.0 * tbytes;
    const double gbps = (r.impl == "memcpy" ? 8.0 : item_bytes) * r.n / (r.us * 1e3);
    const row* cub = find(r.op, "cub", r.type, r.n, r.method);
    const bool whole = r.method == "e2e" || r.method == "graph" || r.method == "graph-e2e";
    const row* copy = find(r.op, "memcpy", r.type, r.n, whole ? "queued" : r.method);
    const double vs_cub = cub ? cub->us / r.us : 0, vs_copy = copy && !whole ? copy->us / r.us : 0;
    int lg = static_cast<int>(std::log2(static_cast<double>(r.n)));
    std::printf("%-14s %-4s 2^%-4d %-26s %-7s %11.1f %9.1f %7.3f %7.3f\n", r.op.c_str(), r.type.c_str(), lg,
                r.impl.c_str(), r.method.c_str(), r.us, gbps, vs_cub, vs_copy);
    if (csv)
      std::fprintf(csv, "%s,%s,%s,%lld,%.2f,%.1f,%.4f,%.4f,%s\n", r.op.c_str(), r.impl.c_str(),
                   r.type.c_str(), static_cast<long long>(r.n), r.us, gbps, vs_cub, vs_copy,
                   r.method.c_str());
  }
  if (csv) std::fclose(csv);
  return 0;
}
