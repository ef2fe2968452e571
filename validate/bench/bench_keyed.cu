// Benchmark: carry's keyed family (scan by key, reduce by key, run-length encoding, unique by key) against
// CUB's same calls and a device copy, in one run, cold L2 before each call, median of many after warm-up.
// Keys: u32 in runs of exactly `run` items (a hash of i / run); values: u32 (f32 for the float scans).
// Every carry result timed is checked against CUB's once (bitwise; the float scans within rounding).
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_args.hpp"
#include "bench/compact_bench.cuh"
#include "bench/keyed_calls.cuh"

using namespace carry_validate;

namespace {

struct row {
  std::string op, impl;
  int run;
  std::int64_t n;
  double us, bytes;
  std::string method;
};
std::vector<row> rows;

__global__ void fill_run_keys(std::uint32_t* k, std::int64_t n, int run) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i / run + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    k[i] = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
}
__global__ void fill_values(std::uint32_t* v, float* f, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
    v[i] = h >> 22;
    f[i] = static_cast<float>(h >> 8) * (1.0f / 65536.0f);
  }
}
__global__ void count_far(const float* a, const float* b, std::int64_t n, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    local += !(fabsf(a[i] - b[i]) <= 1e-4f * fabsf(b[i]) + 1e-2f);
  if (local) atomicAdd(bad, local);
}

struct buffers {
  std::uint32_t *keys, *values, *a, *b, *ca, *cb;
  float *fvalues, *fout, *fcheck;
  std::int64_t *num, *cnum;
  gpu_state g; // temp, flush, bad
};

/// A call: (temp, bytes) -> status, on the default stream; `out` (a or ca) chosen by the caller.
using call_fn = std::function<cudaError_t(void*, std::size_t&)>;

std::size_t prepare(buffers& b, const call_fn& f) {
  std::size_t need = 0;
  CARRY_CUDA_OR_DIE(f(nullptr, need));
  b.g.ensure_temp(need);
  return need;
}

unsigned long long mismatches(buffers& b, const std::uint32_t* x, const std::uint32_t* y, std::int64_t n) {
  CARRY_CUDA_OR_DIE(cudaMemset(b.g.bad, 0, sizeof(unsigned long long)));
  if (n > 0) count_mismatches<<<1024, 256>>>(x, y, n, b.g.bad);
  unsigned long long bad = 0;
  CARRY_CUDA_OR_DIE(cudaMemcpy(&bad, b.g.bad, sizeof bad, cudaMemcpyDeviceToHost));
  return bad;
}

/// Times carry and CUB on one op (after checking carry's outputs against CUB's), plus a copy.
/// outs: the u32 outputs each writes (0: b, the scan's values; 2: a and b); counted: they are `num` long.
void bench_op(buffers& b, const std::string& op, int run, std::int64_t n, double bytes,
              const call_fn& carry_call, const call_fn& cub_call, int outs, bool counted,
              bool floats = false) {
  // ---- the check: carry's outputs against CUB's ----
  prepare(b, carry_call);
  prepare(b, cub_call);
  std::size_t t = b.g.temp_bytes;
  CARRY_CUDA_OR_DIE(cub_call(b.g.temp, t));
  CARRY_CUDA_OR_DIE(cudaMemset(b.g.temp, 0xFF, b.g.temp_bytes)); // dirty temp for carry
  CARRY_CUDA_OR_DIE(carry_call(b.g.temp, t));
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  std::int64_t m = n, cm = n;
  if (counted) {
    CARRY_CUDA_OR_DIE(cudaMemcpy(&m, b.num, sizeof m, cudaMemcpyDeviceToHost));
    CARRY_CUDA_OR_DIE(cudaMemcpy(&cm, b.cnum, sizeof cm, cudaMemcpyDeviceToHost));
  }
  unsigned long long bad = m != cm ? 1 : 0;
  if (!bad && floats) {
    CARRY_CUDA_OR_DIE(cudaMemset(b.g.bad, 0, sizeof(unsigned long long)));
    count_far<<<1024, 256>>>(b.fout, b.fcheck, n, b.g.bad);
    CARRY_CUDA_OR_DIE(cudaMemcpy(&bad, b.g.bad, sizeof bad, cudaMemcpyDeviceToHost));
  } else if (!bad) { // outs 0: the scan's values (b); 2: a and b
    bad = (outs > 0 ? mismatches(b, b.a, b.ca, m) : 0) + mismatches(b, b.b, b.cb, m);
  }
  if (bad) {
    std::fprintf(stderr, "MISMATCH: %s run %d n=%lld: count %lld (CUB %lld), %llu items differ\n", op.c_str(),
                 run, static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(cm), bad);
    std::exit(3);
  }
  auto record = [&](const std::string& impl, double moved, const std::function<void(int)>& call) {
    rows.push_back({op, impl, run, n, time_cold(b.g, call, 1, 25, false), moved, "cold"});
    rows.push_back({op, impl, run, n, time_cold(b.g, call, 1, 25, true), moved, "cold-blocked"});
  };
  record("memcpy", 8.0 * n,
         [&](int) { CARRY_CUDA_OR_DIE(cudaMemcpyAsync(b.a, b.keys, 4 * n, cudaMemcpyDeviceToDevice)); });
  record("cub", bytes, [&](int) {
    std::size_t tb = b.g.temp_bytes;
    CARRY_CUDA_OR_DIE(cub_call(b.g.temp, tb));
  });
  record("carry", bytes, [&](int) {
    std::size_t tb = b.g.temp_bytes;
    CARRY_CUDA_OR_DIE(carry_call(b.g.temp, tb));
  });
}

} // namespace

int main(int argc, char** argv) {
  bench_args args{22, 28, "bench_keyed.csv", ""};
  if (const int rc =
          bench_start("carry_bench_keyed", "[--min-log2 N] [--max-log2 N] [--op NAME] [--csv FILE]", argc,
                      argv, args, [](const std::string&, int&) { return false; });
      rc >= 0)
    return rc;
  const std::int64_t cap = std::int64_t{1} << args.max_log2;
  buffers b{};
  for (std::uint32_t** p : {&b.keys, &b.values, &b.a, &b.b, &b.ca, &b.cb})
    CARRY_CUDA_OR_DIE(cudaMalloc(p, 4 * cap));
  for (float** p : {&b.fvalues, &b.fout, &b.fcheck}) CARRY_CUDA_OR_DIE(cudaMalloc(p, 4 * cap));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.num, 8));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.cnum, 8));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.g.flush, flush_bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&b.g.bad, sizeof(unsigned long long)));
  fill_values<<<2048, 256>>>(b.values, b.fvalues, cap);
  auto wanted = [&](const std::string& op) { return args.only.empty() || op.rfind(args.only, 0) == 0; };
  carry::scan_options det;
  det.deterministic = true;
  struct keyed_case {
    const char* name;
    keyed_op op;
    int run; // the runs it is timed at: 8 for the scans, 4 and 64 for the rest (4 only: unique)
    double item_bytes, run_bytes; // bytes moved: per item, per run
  };
  const keyed_case cases[] = {{"inclusive_sum_by_key", keyed_op::scan_by_key, 8, 12, 0},
                              {"reduce_by_key", keyed_op::reduce_by_key, 0, 8, 8},
                              {"run_length_encode", keyed_op::encode, 0, 4, 8},
                              {"non_trivial_runs", keyed_op::non_trivial, 0, 4, 8},
                              {"select_unique_by_key", keyed_op::unique_by_key, 4, 8, 8}};
  for (int run : {4, 8, 64}) {
    fill_run_keys<<<2048, 256>>>(b.keys, cap, run);
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    for (int l = args.min_log2; l <= args.max_log2; l += 2) {
      const std::int64_t n = std::int64_t{1} << l;
      for (const keyed_case& c : cases) {
        if (!(c.run == run || (c.run == 0 && run != 8)) || !wanted(c.name)) continue;
        const double bytes = c.item_bytes * n + c.run_bytes * static_cast<double>(n) / run;
        bench_op(
            b, c.name, run, n, bytes,
            [&](void* t, std::size_t& s) {
              return carry_keyed(c.op, t, s, b.keys, b.values, b.a, b.b, b.num, n);
            },
            [&](void* t, std::size_t& s) {
              return cub_keyed(c.op, t, s, b.keys, b.values, b.ca, b.cb, b.cnum, n);
            },
            c.op == keyed_op::scan_by_key ? 0 : 2, c.op != keyed_op::scan_by_key);
        if (c.op != keyed_op::scan_by_key) continue;
        // floats: carry's non-deterministic and deterministic scans against CUB's
        for (bool d : {false, true})
          bench_op(
              b, d ? "inclusive_sum_by_key_f32_det" : "inclusive_sum_by_key_f32", run, n, bytes,
              [&](void* t, std::size_t& s) {
                return carry_keyed(c.op, t, s, b.keys, b.fvalues, b.a, b.fout, b.num, n,
                                   d ? det : carry::scan_options{});
              },
              [&](void* t, std::size_t& s) {
                return cub_keyed(c.op, t, s, b.keys, b.fvalues, b.ca, b.fcheck, b.cnum, n);
              },
              0, false, true);
      }
      std::fprintf(stderr, "run %d 2^%d done\n", run, l);
    }
  }
  // ---- table: carry and CUB per op, run, n, method; GB/s of the bytes the op must move ----
  FILE* f = std::fopen(args.csv.c_str(), "w");
  if (f) std::fprintf(f, "# %s\n", bench_banner(cccl_version()).c_str());
  if (f) std::fprintf(f, "op,impl,type,n,median_us,gbps,vs_cub,frac_copy,method\n");
  std::printf("%-28s %-8s %4s %12s %-13s %10s %8s %8s %9s\n", "op", "impl", "run", "n", "method", "us",
              "GB/s", "vs cub", "of copy");
  for (const auto& r : rows) {
    double cub = 0, copy = 0;
    for (const auto& o : rows)
      if (o.op == r.op && o.run == r.run && o.n == r.n && o.method == r.method) {
        if (o.impl == "cub") cub = o.us;
        if (o.impl == "memcpy") copy = o.us;
      }
    const double gbps = r.bytes / r.us / 1e3, copy_gbps = 8.0 * r.n / copy / 1e3;
    std::printf("%-28s %-8s %4d %12lld %-13s %10.2f %8.1f %8.3f %9.3f\n", r.op.c_str(), r.impl.c_str(), r.run,
                static_cast<long long>(r.n), r.method.c_str(), r.us, gbps, cub / r.us, gbps / copy_gbps);
    if (f)
      std::fprintf(f, "%s_run%d,%s,u32,%lld,%.2f,%.1f,%.4f,%.4f,%s\n", r.op.c_str(), r.run, r.impl.c_str(),
                   static_cast<long long>(r.n), r.us, gbps, cub / r.us, gbps / copy_gbps, r.method.c_str());
  }
  if (f) std::fclose(f);
  return 0;
}
