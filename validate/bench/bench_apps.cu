// Benchmark: carry's histograms, bin_by_key and slot allocation against CUB (HistogramEven, an 8-bit
// SortPairs, a widening ExclusiveSum plus reading the total), a device copy and a read-only pass, in one
// run. Every timed call starts on a cold L2 (a 192 MB memset first) and is queued behind a spin kernel
// (GPU time alone); medians after warm-up. CUB runs its `int` and 64-bit num_items paths where it has
// both; the better counts. Each carry result is checked against CUB (or the CPU) once before timing.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <carry/apps/histogram.cuh>
#include <carry/apps/slots.cuh>

#include "bench/baselines/baselines.hpp"
#include "bench/baselines/baselines_apps.hpp"
#include "tests/common/apps_reference.hpp"
#include "bench/bench_args.hpp"
#include "tests/common/gpu.cuh"
#include "bench/timing.cuh"

using namespace carry_validate;

namespace {

struct row {
  std::string op, impl;
  std::int64_t n;
  double us, bytes;
};
std::vector<row> rows;

struct low8 {
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k & 255u; }
};

struct gpu {
  std::int64_t cap;
  device_buffer<std::uint32_t> a, b, c, d;
  device_buffer<std::uint64_t> o, t;
  device_buffer<int> h;
  std::unique_ptr<device_buffer<unsigned char>> tbuf;
  unsigned char* temp_ptr() { return tbuf ? tbuf->ptr : nullptr; }
  device_buffer<unsigned char> flush;
  device_buffer<unsigned> sink;
  explicit gpu(std::int64_t n)
      : cap(n), a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n)),
        c(static_cast<std::size_t>(n)), d(static_cast<std::size_t>(n)), o(static_cast<std::size_t>(n) + 4097),
        t(1), h(4096 + 1), flush(std::size_t{192} << 20), sink(1) {}
};

void need(gpu& g, std::size_t bytes) {
  if (!g.tbuf || bytes > g.tbuf->n) {
    g.tbuf.reset();
    g.tbuf = std::make_unique<device_buffer<unsigned char>>(bytes);
  }
}

double time_it(gpu& g, const std::function<void()>& call, std::int64_t n) {
  l2_flush f;
  f.buffer = g.flush.ptr;
  const int reps = n >= (std::int64_t{1} << 26) ? 15 : 41;
  return median_event_us_after(
      f, [&] { call(); }, reps, true);
}

void add(const std::string& op, const std::string& impl, std::int64_t n, double us, double bytes) {
  rows.push_back({op, impl, n, us, bytes});
}

/// The copy a call of `moved` bytes is held against: a -> b and c -> d, `each` bytes an item apiece.
void add_two_copies(gpu& g, const std::string& op, std::int64_t n, std::size_t each, double moved) {
  const std::size_t bytes = static_cast<std::size_t>(n) * each;
  add(op, "memcpy", n,
      time_it(
          g,
          [&] {
            cudaMemcpyAsync(g.b.ptr, g.a.ptr, bytes, cudaMemcpyDeviceToDevice);
            cudaMemcpyAsync(g.d.ptr, g.c.ptr, bytes, cudaMemcpyDeviceToDevice);
          },
          n),
      moved);
}

void fail(const char* what, std::int64_t n) {
  std::fprintf(stderr, "MISMATCH: %s at n = %lld\n", what, static_cast<long long>(n));
  std::exit(1);
}

void bench_histograms(gpu& g, std::int64_t n, bool one_bin) {
  const std::string data = one_bin ? "_onebin" : "";
  if (one_bin) CARRY_CUDA_OR_DIE(cudaMemset(g.a.ptr, 0x11, static_cast<std::size_t>(n) * 4));
  for (int bins : {256, 4096}) {
    if (one_bin && bins != 256) continue;
    const std::string op = "histogram_even_" + std::to_string(bins) + data;
    std::size_t bytes = 0, cb = 0;
    carry::histogram_even(nullptr, bytes, g.a.ptr, g.h.ptr, bins, 0u, 0xFFFFFFFFu, n);
    cub_histogram_even(nullptr, cb, g.a.ptr, g.h.ptr, bins, 0u, 0xFFFFFFFFu, n, 0);
    need(g, std::max(bytes, cb));
    // check once against CUB
    CARRY_CUDA_OR_DIE(cub_histogram_even(g.temp_ptr(), cb, g.a.ptr, g.h.ptr, bins, 0u, 0xFFFFFFFFu, n, 0));
    const auto want = g.h.download(static_cast<std::size_t>(bins));
    CARRY_CUDA_OR_DIE(carry::histogram_even(g.temp_ptr(), bytes, g.a.ptr, g.h.ptr, bins, 0u, 0xFFFFFFFFu, n));
    if (g.h.download(static_cast<std::size_t>(bins)) != want) fail(op.c_str(), n);
    add(op, "carry", n,
        time_it(
            g,
            [&] { carry::histogram_even(g.temp_ptr(), bytes, g.a.ptr, g.h.ptr, bins, 0u, 0xFFFFFFFFu, n); },
            n),
        4.0 * n);
    add(op, "cub", n,
        time_it(
            g, [&] { cub_histogram_even(g.temp_ptr(), cb, g.a.ptr, g.h.ptr, bins, 0u, 0xFFFFFFFFu, n, 0); },
            n),
        4.0 * n);
    add(op, "read", n,
        time_it(
            g,
            [&] {
              carry_validate::read_pass_kernel<<<132 * 8, 256>>>(reinterpret_cast<const uint4*>(g.a.ptr),
                                                                 n / 4, g.sink.ptr);
            },
            n),
        4.0 * n);
    add(op, "memcpy", n,
        time_it(
            g,
            [&] {
              cudaMemcpyAsync(g.b.ptr, g.a.ptr, static_cast<std::size_t>(n) * 2, cudaMemcpyDeviceToDevice);
            },
            n),
        4.0 * n);
    if (bins == 256 && !one_bin) {
      const std::string oop = "histogram_offsets_256";
      std::size_t ob = 0;
      carry::histogram_offsets(nullptr, ob, g.a.ptr, g.o.ptr, bins, 0u, 0xFFFFFFFFu, n);
      need(g, ob);
      CARRY_CUDA_OR_DIE(
          carry::histogram_offsets(g.temp_ptr(), ob, g.a.ptr, g.o.ptr, bins, 0u, 0xFFFFFFFFu, n));
      std::vector<std::uint64_t> w(want.begin(), want.end());
      if (g.o.download(static_cast<std::size_t>(bins) + 1) != reference_offsets(w)) fail(oop.c_str(), n);
      add(oop, "carry", n,
          time_it(
              g,
              [&] { carry::histogram_offsets(g.temp_ptr(), ob, g.a.ptr, g.o.ptr, bins, 0u, 0xFFFFFFFFu, n); },
              n),
          4.0 * n);
      add(oop, "carry-histogram_even", n, rows[rows.size() - 5].us, 4.0 * n);
    }
  }
}

void bench_bin(gpu& g, std::int64_t n) {
  const std::string op = "bin_by_key_256_pairs";
  const double moved = 16.0 * n; // read keys and values, write both
  std::size_t bytes = 0, c32 = 0, c64 = 0;
  carry::bin_by_key(nullptr, bytes, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr, static_cast<std::uint64_t*>(nullptr),
                    256, low8{}, n);
  cub_sort_pairs(nullptr, c32, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr, n, 0, 8, false, 0);
  cub_sort_pairs(nullptr, c64, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr, n, 0, 8, true, 0);
  need(g, std::max({bytes, c32, c64}));
  CARRY_CUDA_OR_DIE(cub_sort_pairs(g.temp_ptr(), c64, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr, n, 0, 8, true, 0));
  const auto wk = g.b.download(static_cast<std::size_t>(n)), wv = g.d.download(static_cast<std::size_t>(n));
  CARRY_CUDA_OR_DIE(carry::bin_by_key(g.temp_ptr(), bytes, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr,
                                      static_cast<std::uint64_t*>(nullptr), 256, low8{}, n));
  if (g.b.download(static_cast<std::size_t>(n)) != wk || g.d.download(static_cast<std::size_t>(n)) != wv)
    fail(op.c_str(), n);
  add(op, "carry", n,
      time_it(
          g,
          [&] {
            carry::bin_by_key(g.temp_ptr(), bytes, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr,
                              static_cast<std::uint64_t*>(nullptr), 256, low8{}, n);
          },
          n),
      moved);
  if (n <= INT_MAX)
    add(op, "cub-i32", n,
        time_it(
            g,
            [&] { cub_sort_pairs(g.temp_ptr(), c32, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr, n, 0, 8, false, 0); },
            n),
        moved);
  add(op, "cub-i64", n,
      time_it(
          g, [&] { cub_sort_pairs(g.temp_ptr(), c64, g.a.ptr, g.b.ptr, g.c.ptr, g.d.ptr, n, 0, 8, true, 0); },
          n),
      moved);
  add_two_copies(g, op, n, 4, moved); // 16 bytes an item moved: two copies of 4
}

void bench_slots(gpu& g, std::int64_t n) {
  const std::string op = "allocate_slots_u32_u64";
  const double moved = 12.0 * n;
  std::size_t bytes = 0, c32 = 0, c64 = 0;
  carry::allocate_slots(nullptr, bytes, g.a.ptr, g.o.ptr, g.t.ptr, n);
  cub_slots_u32_u64(nullptr, c32, g.a.ptr, g.o.ptr, g.t.ptr, n, false, 0);
  cub_slots_u32_u64(nullptr, c64, g.a.ptr, g.o.ptr, g.t.ptr, n, true, 0);
  need(g, std::max({bytes, c32, c64}));
  CARRY_CUDA_OR_DIE(cub_slots_u32_u64(g.temp_ptr(), c64, g.a.ptr, g.o.ptr, g.t.ptr, n, true, 0));
  const auto wo = g.o.download(static_cast<std::size_t>(n));
  const auto wt = g.t.download(1);
  CARRY_CUDA_OR_DIE(carry::allocate_slots(g.temp_ptr(), bytes, g.a.ptr, g.o.ptr, g.t.ptr, n));
  if (g.o.download(static_cast<std::size_t>(n)) != wo || g.t.download(1) != wt) fail(op.c_str(), n);
  add(op, "carry", n,
      time_it(
          g, [&] { carry::allocate_slots(g.temp_ptr(), bytes, g.a.ptr, g.o.ptr, g.t.ptr, n); }, n),
      moved);
  if (n <= INT_MAX)
    add(op, "cub-i32", n,
        time_it(
            g, [&] { cub_slots_u32_u64(g.temp_ptr(), c32, g.a.ptr, g.o.ptr, g.t.ptr, n, false, 0); }, n),
        moved);
  add(op, "cub-i64", n,
      time_it(
          g, [&] { cub_slots_u32_u64(g.temp_ptr(), c64, g.a.ptr, g.o.ptr, g.t.ptr, n, true, 0); }, n),
      moved);
  add_two_copies(g, op, n, 3, moved); // 12 bytes an item moved: two copies of 3
}

} // namespace

int main(int argc, char** argv) {
  bench_args args{16, 28, "bench_apps.csv", ""};
  if (const int rc = bench_start("carry_bench_apps",
                                 "[--min-log2 N] [--max-log2 N] [--op histogram|bin|slots] [--csv FILE]",
                                 argc, argv, args,
                                 [&](const std::string& a, int& i) {
                                   (void)a;
                                   (void)i;
                                   return false;
                                 });
      rc >= 0)
    return rc;
  const int min_log2 = args.min_log2, max_log2 = args.max_log2;
  const std::string csv = args.csv, only = args.only;
  gpu g(std::int64_t{1} << max_log2);
  for (int l = min_log2; l <= max_log2; l += 2) {
    const std::int64_t n = std::int64_t{1} << l;
    const auto x = random_bits<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(l));
    auto upload = [&] {
      CARRY_CUDA_OR_DIE(cudaMemcpy(g.a.ptr, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
      CARRY_CUDA_OR_DIE(cudaMemcpy(g.c.ptr, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
    };
    upload();
    if (only.empty() || only == "histogram") {
      bench_histograms(g, n, false);
      bench_histograms(g, n, true);
      upload();
    }
    if (only.empty() || only == "bin") bench_bin(g, n);
    if (only.empty() || only == "slots") {
      std::vector<std::uint32_t> r(x);
      for (auto& v : r) v %= 16; // slot requests 0..15
      CARRY_CUDA_OR_DIE(cudaMemcpy(g.a.ptr, r.data(), r.size() * 4, cudaMemcpyHostToDevice));
      bench_slots(g, n);
    }
    std::fprintf(stderr, "2^%d done\n", l);
  }
  // ---- the table: ratio to the best CUB path, fraction of copy (and of a read-only pass) ----
  FILE* f = std::fopen(csv.c_str(), "w");
  if (f) std::fprintf(f, "# %s\n", bench_banner(cccl_version()).c_str());
  if (f) std::fprintf(f, "op,impl,type,n,median_us,gbps,vs_cub,frac_copy,method\n");
  std::printf("%-26s %-22s %12s %10s %8s %8s %9s\n", "op", "impl", "n", "us", "GB/s", "vs cub", "of copy");
  for (const row& r : rows) {
    double cub = 1e30, copy = 0;
    for (const row& o : rows)
      if (o.op == r.op && o.n == r.n) {
        if (o.impl.rfind("cub", 0) == 0) cub = std::min(cub, o.us);
        if (o.impl == "memcpy") copy = o.us;
      }
    const double gbps = r.bytes / r.us / 1e3;
    const double vs_cub = cub < 1e29 ? cub / r.us : 0.0, frac = copy > 0 ? copy / r.us : 0;
    std::printf("%-26s %-22s %12lld %10.2f %8.1f %8.3f %9.3f\n", r.op.c_str(), r.impl.c_str(),
                static_cast<long long>(r.n), r.us, gbps, vs_cub, frac);
    if (f)
      std::fprintf(f, "%s,%s,u32,%lld,%.2f,%.1f,%.4f,%.4f,cold-blocked\n", r.op.c_str(), r.impl.c_str(),
                   static_cast<long long>(r.n), r.us, gbps, vs_cub, frac);
  }
  if (f) std::fclose(f);
  return 0;
}
