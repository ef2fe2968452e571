// `carry histogram | bin | slots`: histograms, binning and slot allocation of a data set with carry,
// checked against CUB, timed against CUB, a device copy and (histograms) a read-only pass.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <carry/apps/histogram.cuh>
#include <carry/apps/slots.cuh>

#include "bench/baselines/baselines_apps.hpp"
#include "tests/common/apps_reference.hpp"
#include "bench/timing.cuh"
#include "tool.hpp"

namespace {

const char* usage_text(const std::string& prim) {
  if (prim == "histogram")
    return "carry histogram - count u32 samples into B even bins over [0, 2^32 - 1), and their offsets\n"
           "\n"
           "usage: carry histogram [options]\n"
           "  Runs histogram_even (checked against CUB's HistogramEven bin for bin) and histogram_offsets "
           "(the\n"
           "  histogram's exclusive scan, num_bins + 1 offsets; checked against the scanned CUB "
           "histogram).\n";
  if (prim == "bin")
    return "carry bin - counting sort: u32 keys with u32 values into B buckets (bin = key mod B), stably\n"
           "\n"
           "usage: carry bin [options]\n"
           "  B a power of two: checked bit for bit against CUB's SortPairs over the key's low log2(B) "
           "bits.\n";
  return "carry slots - item i asks for r[i] slots and gets the offset of its first: u32 requests, u64 "
         "offsets\n"
         "\n"
         "usage: carry slots [options]\n"
         "  Checked against CUB's ExclusiveSum into u64 plus reading the total; with --capacity, the "
         "bounded\n"
         "  allocator, checked against the CPU.\n";
}

const char* options_text =
    "\n"
    "options:\n"
    "  --n N               number of generated items (default 67108864 = 2^26; > 2^31 works)\n"
    "  --bins B            histogram: bins 1..16777216 (default 256); bin: buckets, a power of two (default "
    "256)\n"
    "  --data D            generated data: uniform (random bits; default), skewed (90 % one value),\n"
    "                      onebin (every item the same value); slots: requests 0..15, skewed: 90 % zero\n"
    "  --capacity C        slots: a buffer of C slots (allocate_slots_bounded)\n"
    "  --input FILE        items from a raw binary file of u32 values instead of generated data\n"
    "  --output FILE       bin: write the binned keys (carry's output) to FILE as raw u32 (for carry sort "
    "--input)\n"
    "  --algorithm A       auto (the library's choice; the only one these commands offer)\n"
    "  --reps R            timed repetitions, median reported (default 30)\n"
    "  --csv               print the results as CSV (primitive,impl,type,n,median_us,gbps,frac_copy,vs_cub)\n"
    "  --help              this text\n"
    "\n"
    "Prints carry's time, CUB's (the faster of its 32- and 64-bit size paths where it has both), a device\n"
    "copy's and (histogram) a read-only pass's, each the median of --reps calls with a cold L2 before each,\n"
    "the bandwidth of the bytes the primitive must move (histogram: read the samples; bin: read and write\n"
    "keys and values; slots: read the requests, write the offsets), the fraction of copy and the ratio to "
    "CUB.\n"
    "exit status: 0 checked and timed; 1 mismatch against CUB or CUDA error; 2 bad usage or no GPU\n";

struct config {
  std::string prim, data = "uniform", input, output, algorithm = "auto";
  std::int64_t n = std::int64_t{1} << 26, bins = 256, capacity = -1;
  int reps = 30;
  bool csv = false;
};

struct mask_bins {
  unsigned mask;
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k & mask; }
};

bool load(config& c, std::vector<std::uint32_t>& h) {
  if (!c.input.empty()) {
    std::vector<char> raw;
    if (!carry_tool::read_raw(c.prim, c.input, 4, "u32", raw)) return false;
    c.n = static_cast<std::int64_t>(raw.size() / 4);
    h.resize(static_cast<std::size_t>(c.n));
    std::memcpy(h.data(), raw.data(), raw.size());
    return true;
  }
  if (c.n >= (std::int64_t{1} << 26))
    std::fprintf(stderr, "carry: generating %lld items...\n", static_cast<long long>(c.n));
  h = carry_validate::random_bits<std::uint32_t>(static_cast<std::size_t>(c.n), 20261123);
  std::mt19937 g(11);
  if (c.prim == "slots") {
    for (auto& x : h)
      x = c.data == "skewed" ? (g() % 10 == 0 ? x % 151 : 0u) : c.data == "onebin" ? 7u : x % 16;
  } else if (c.data == "skewed") {
    for (auto& x : h)
      if (g() % 10 != 0) x = 0x12345678u;
  } else if (c.data == "onebin") {
    std::fill(h.begin(), h.end(), 0x12345678u);
  }
  return true;
}

int run(config& c) {
  std::vector<std::uint32_t> h;
  if (!load(c, h)) return 2;
  const std::int64_t n = c.n;
  const int bins = static_cast<int>(c.bins);
  std::uint32_t *in, *out, *vin, *vout;
  std::uint64_t *off, *ref, *total;
  int *hist, *cub_hist;
  std::int64_t* fitted;
  unsigned* sink;
  CHECK_CUDA(cudaMalloc(&in, n * 4));
  CHECK_CUDA(cudaMalloc(&out, n * 4));
  CHECK_CUDA(cudaMalloc(&vin, n * 4));
  CHECK_CUDA(cudaMalloc(&vout, n * 4));
  CHECK_CUDA(cudaMalloc(&off, (n + bins + 1) * 8));
  CHECK_CUDA(cudaMalloc(&ref, (n + bins + 1) * 8));
  CHECK_CUDA(cudaMalloc(&total, 16));
  CHECK_CUDA(cudaMalloc(&hist, (bins + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&cub_hist, (bins + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&fitted, 8));
  CHECK_CUDA(cudaMalloc(&sink, 4));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(vin, h.data(), n * 4, cudaMemcpyHostToDevice));
  const std::uint32_t lo = 0, hi = 0xFFFFFFFFu;
  const unsigned mask = static_cast<unsigned>(bins - 1);
  int end_bit = 0;
  while ((1 << end_bit) < bins) ++end_bit;
  const std::uint64_t cap = static_cast<std::uint64_t>(c.capacity);
  // ---- the calls ----
  auto carry_call = [&](void* t, std::size_t& b) -> cudaError_t {
    if (c.prim == "histogram")
      return carry::histogram_even(t, b, static_cast<const std::uint32_t*>(in), hist, bins, lo, hi, n);
    if (c.prim == "bin")
      return carry::bin_by_key(t, b, static_cast<const std::uint32_t*>(in), out,
                               static_cast<const std::uint32_t*>(vin), vout,
                               static_cast<std::uint64_t*>(nullptr), bins, mask_bins{mask}, n);
    if (c.capacity >= 0)
      return carry::allocate_slots_bounded(t, b, static_cast<const std::uint32_t*>(in), off, total, cap,
                                           fitted, n);
    return carry::allocate_slots(t, b, static_cast<const std::uint32_t*>(in), off, total, n);
  };
  auto offsets_call = [&](void* t, std::size_t& b) -> cudaError_t {
    return carry::histogram_offsets(t, b, static_cast<const std::uint32_t*>(in), off, bins, lo, hi, n);
  };
  auto cub_call = [&](void* t, std::size_t& b, bool wide) -> cudaError_t {
    if (c.prim == "histogram")
      return carry_validate::cub_histogram_even(t, b, static_cast<const std::uint32_t*>(in), cub_hist, bins,
                                                lo, hi, n, cudaStream_t{});
    if (c.prim == "bin")
      return carry_validate::cub_sort_pairs(t, b, static_cast<const std::uint32_t*>(in), out,
                                            static_cast<const std::uint32_t*>(vin), vout, n, 0, end_bit, wide,
                                            cudaStream_t{});
    return carry_validate::cub_slots_u32_u64(t, b, in, ref, total + 1, n, wide, cudaStream_t{});
  };
  std::size_t bytes = 0, ob = 0, c32 = 0, c64 = 0;
  CHECK_CUDA(carry_call(nullptr, bytes));
  if (c.prim == "histogram") CHECK_CUDA(offsets_call(nullptr, ob));
  if (n <= INT_MAX) CHECK_CUDA(cub_call(nullptr, c32, false));
  CHECK_CUDA(cub_call(nullptr, c64, true));
  const std::size_t temp_bytes = std::max({bytes, ob, c32, c64});
  void* temp;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  // ---- check ----
  std::size_t b = temp_bytes;
  bool ok = true;
  std::string what;
  if (c.prim == "histogram") {
    CHECK_CUDA(cub_call(temp, b, n > INT_MAX));
    b = temp_bytes;
    CHECK_CUDA(cudaMemset(temp, 0xFF, temp_bytes));
    CHECK_CUDA(carry_call(temp, b));
    std::vector<int> got(static_cast<std::size_t>(bins)), want(static_cast<std::size_t>(bins));
    CHECK_CUDA(cudaMemcpy(got.data(), hist, bins * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(want.data(), cub_hist, bins * sizeof(int), cudaMemcpyDeviceToHost));
    b = temp_bytes;
    CHECK_CUDA(offsets_call(temp, b));
    std::vector<std::uint64_t> go(static_cast<std::size_t>(bins) + 1), w64(want.begin(), want.end());
    CHECK_CUDA(cudaMemcpy(go.data(), off, go.size() * 8, cudaMemcpyDeviceToHost));
    ok = got == want && go == carry_validate::reference_offsets(w64);
    what = std::to_string(bins) + " bins; histogram and offsets against CUB";
  } else if (c.prim == "bin") {
    CHECK_CUDA(cub_call(temp, b, n > INT_MAX));
    std::vector<std::uint32_t> wk(static_cast<std::size_t>(n)), wv(static_cast<std::size_t>(n)),
        gk(wk.size()), gv(wk.size());
    CHECK_CUDA(cudaMemcpy(wk.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(wv.data(), vout, n * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemset(out, 0xA5, n * 4));
    CHECK_CUDA(cudaMemset(temp, 0xFF, temp_bytes));
    b = temp_bytes;
    CHECK_CUDA(carry_call(temp, b));
    CHECK_CUDA(cudaMemcpy(gk.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(gv.data(), vout, n * 4, cudaMemcpyDeviceToHost));
    ok = gk == wk && gv == wv;
    if (!c.output.empty()) {
      FILE* f = std::fopen(c.output.c_str(), "wb");
      if (f == nullptr || std::fwrite(gk.data(), 4, gk.size(), f) != gk.size()) {
        std::fprintf(stderr, "carry bin: --output cannot write '%s'\n", c.output.c_str());
        if (f) std::fclose(f);
        return 2;
      }
      std::fclose(f);
    }
    what = std::to_string(bins) + " buckets; keys and values against CUB SortPairs over bits [0, " +
           std::to_string(end_bit) + ")";
  } else {
    std::vector<std::uint64_t> go(static_cast<std::size_t>(n)), wo;
    std::uint64_t gt = 0, wt = 0;
    std::int64_t gf = 0, wf = 0;
    b = temp_bytes;
    CHECK_CUDA(cudaMemset(temp, 0xFF, temp_bytes));
    CHECK_CUDA(carry_call(temp, b));
    CHECK_CUDA(cudaMemcpy(go.data(), off, n * 8, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&gt, total, 8, cudaMemcpyDeviceToHost));
    if (c.capacity >= 0) {
      CHECK_CUDA(cudaMemcpy(&gf, fitted, 8, cudaMemcpyDeviceToHost));
      wo = carry_validate::reference_slots<std::uint32_t, std::uint64_t>(h, wt, true, cap, &wf);
      ok = go == wo && gt == wt && gf == wf;
      what = "bounded at " + std::to_string(cap) + " slots: " + std::to_string(gf) +
             " items fit; against the CPU";
    } else {
      b = temp_bytes;
      CHECK_CUDA(cub_call(temp, b, n > INT_MAX));
      wo.resize(static_cast<std::size_t>(n));
      CHECK_CUDA(cudaMemcpy(wo.data(), ref, n * 8, cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(&wt, total + 1, 8, cudaMemcpyDeviceToHost));
      ok = go == wo && gt == wt;
      what = "total " + std::to_string(gt) + " slots; against CUB";
    }
  }
  if (!c.csv)
    std::printf("carry %s of %lld u32 (%s data): %s: %s\n", c.prim.c_str(), static_cast<long long>(n),
                c.input.empty() ? c.data.c_str() : "file", what.c_str(), ok ? "ok" : "FAILED");
  // ---- time (cold L2) ----
  carry_validate::l2_flush flush;
  CHECK_CUDA(cudaMalloc(&flush.buffer, flush.bytes));
  auto time_cold = [&](auto&& call) {
    return carry_validate::median_event_us_after(flush, call, c.reps, true);
  };
  if (n >= (std::int64_t{1} << 26) || c.reps > 100)
    std::fprintf(stderr, "carry: timing carry, CUB and a copy...\n");
  const double moved = c.prim == "histogram" ? 4.0 * n : c.prim == "bin" ? 16.0 * n : 12.0 * n;
  const double t_carry = time_cold([&] {
    std::size_t t = temp_bytes;
    CHECK_CUDA(carry_call(temp, t));
  });
  double t_cub = 1e30;
  if (!(c.prim == "slots" && c.capacity >= 0))
    for (bool wide : {false, true}) {
      if (!wide && n > INT_MAX) continue;
      t_cub = std::min(t_cub, time_cold([&] {
                         std::size_t t = temp_bytes;
                         CHECK_CUDA(cub_call(temp, t, wide));
                       }));
    }
  const double t_copy = time_cold([&] { // the same bytes moved by copies: half read, half written
    CHECK_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(moved / 4), cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpyAsync(vout, vin, static_cast<std::size_t>(moved / 4), cudaMemcpyDeviceToDevice));
  });
  const double copy_gbps = moved / (t_copy * 1e3);
  auto line = [&](const char* impl, double us) {
    const double gbps = moved / (us * 1e3);
    const double x_cub = t_cub < 1e29 ? t_cub / us : 0.0;
    if (c.csv)
      std::printf("%s,%s,u32,%lld,%.2f,%.1f,%.4f,%.4f\n", c.prim.c_str(), impl, static_cast<long long>(n), us,
                  gbps, gbps / copy_gbps, x_cub);
    else
      std::printf("%-10s %12.1f %10.1f %10.3f %8.3f\n", impl, us, gbps, gbps / copy_gbps, x_cub);
  };
  if (!c.csv) std::printf("\n%-10s %12s %10s %10s %8s\n", "impl", "median_us", "GB/s", "of_copy", "x_cub");
  line("carry", t_carry);
  if (c.prim == "histogram") {
    line("offsets", time_cold([&] {
           std::size_t t = temp_bytes;
           CHECK_CUDA(offsets_call(temp, t));
         }));
    line("read", time_cold([&] {
           carry_validate::read_pass_kernel<<<132 * 8, 256>>>(reinterpret_cast<const uint4*>(in), n / 4,
                                                              sink);
         }));
  }
  if (t_cub < 1e29) line("cub", t_cub);
  line("memcpy", t_copy);
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(vin),
                  static_cast<void*>(vout), static_cast<void*>(off), static_cast<void*>(ref),
                  static_cast<void*>(total), static_cast<void*>(hist), static_cast<void*>(cub_hist),
                  static_cast<void*>(fitted), static_cast<void*>(sink), temp, flush.buffer})
    cudaFree(p);
  return ok ? 0 : 1;
}

} // namespace

int carry_tool::apps_main(const std::string& prim, int argc, char** argv) {
  config c;
  c.prim = prim;
  const int parsed =
      parse_options(prim, std::string(usage_text(prim)) + options_text,
                    {count("--n", c.n), count("--bins", c.bins, "bins", 1, std::int64_t{1} << 24),
                     count("--capacity", c.capacity, "slots", 0), text("--data", c.data),
                     text("--input", c.input), text("--output", c.output), text("--algorithm", c.algorithm),
                     whole("--reps", 1, 1000000, c.reps), flag("--csv", c.csv)},
                    argc, argv);
  if (parsed >= 0) return parsed;
  if (c.algorithm != "auto") {
    std::fprintf(stderr, "carry %s: --algorithm takes auto (the library's choice) only, not '%s'\n",
                 prim.c_str(), c.algorithm.c_str());
    return 2;
  }
  if (c.data != "uniform" && c.data != "skewed" && c.data != "onebin") {
    std::fprintf(stderr, "carry %s: --data does not take '%s' (uniform, skewed, onebin)\n", prim.c_str(),
                 c.data.c_str());
    return 2;
  }
  if (prim == "bin" && (c.bins & (c.bins - 1)) != 0) { // the range was checked as the option was read
    std::fprintf(stderr, "carry bin: --bins takes a power of two up to 16777216, not '%lld'\n",
                 static_cast<long long>(c.bins));
    return 2;
  }
  if (!c.output.empty() && prim != "bin") {
    std::fprintf(stderr, "carry %s: --output belongs to carry bin\n", prim.c_str());
    return 2;
  }
  if (c.capacity >= 0 && prim != "slots") {
    std::fprintf(stderr, "carry %s: --capacity belongs to carry slots\n", prim.c_str());
    return 2;
  }
  if (!print_gpu()) return 2;
  return run(c);
}
