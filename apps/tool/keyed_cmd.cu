// `carry runs`: the keyed calls (reduce by key, run-length encoding, unique by key, scan by key) on u32 keys
// in runs, checked against CUB's same call, timed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/keyed_calls.cuh"
#include "bench/timing.cuh"
#include "tool.hpp"

namespace {

const char* help_text =
    "carry runs - the keyed calls on u32 keys in runs (u32 values), each checked against CUB's same call\n"
    "\n"
    "usage: carry runs [options]\n"
    "\n"
    "options:\n"
    "  --op OP          reduce_by_key (default: a key and the sum of its values per run),\n"
    "                   run_length_encode (a key and the length per run), non_trivial_runs (offset and\n"
    "                   length of each run longer than 1), select_unique_by_key (the first key and its\n"
    "                   value per run), inclusive_sum_by_key (the running sum of the values within each run)\n"
    "  --n N            number of generated keys (default 67108864 = 2^26; CUB's check takes up to 2^31 - 1)\n"
    "  --run M          the generated runs' mean length: lengths 1 .. 2M - 1 (default 4; 1: every key alone)\n"
    "  --input FILE     keys from a raw binary file of u32 values instead of generated ones\n"
    "  --algorithm A    auto (the only form: one single pass of the engine)\n"
    "  --deterministic  inclusive_sum_by_key, reduce_by_key: the same bits every run (floats; u32 unchanged)\n"
    "  --reps R         timed repetitions, median reported (default 30)\n"
    "  --csv            print the results as CSV (op,impl,n,median_us,gbps,frac_copy,vs_cub)\n"
    "  --help           this text\n"
    "\n"
    "Prints carry's time, CUB's and a device copy's (each the median of --reps calls with a cold L2 before\n"
    "each), the bandwidth of the bytes the call must move (keys, values, one output per item or per run),\n"
    "the fraction of copy bandwidth and the ratio to CUB.\n"
    "exit status: 0 checked and timed; 1 mismatch against CUB or CUDA error; 2 bad usage or no GPU\n";

struct config {
  std::string op = "reduce_by_key", input, algorithm = "auto";
  std::int64_t n = std::int64_t{1} << 26;
  int run = 4, reps = 30;
  bool csv = false, deterministic = false;
};

} // namespace

int carry_tool::keyed_main(int argc, char** argv) {
  config c;
  const int parsed = parse_options(
      "runs", help_text,
      {text("--op", c.op), count("--n", c.n, "items", 1, INT32_MAX), whole("--run", 1, 1 << 20, c.run),
       text("--input", c.input), text("--algorithm", c.algorithm), flag("--deterministic", c.deterministic),
       whole("--reps", 1, 1000000, c.reps), flag("--csv", c.csv)},
      argc, argv);
  if (parsed >= 0) return parsed;
  using carry_validate::keyed_op;
  const std::pair<const char*, keyed_op> ops[] = {{"reduce_by_key", keyed_op::reduce_by_key},
                                                  {"run_length_encode", keyed_op::encode},
                                                  {"non_trivial_runs", keyed_op::non_trivial},
                                                  {"select_unique_by_key", keyed_op::unique_by_key},
                                                  {"inclusive_sum_by_key", keyed_op::scan_by_key}};
  const auto found =
      std::find_if(std::begin(ops), std::end(ops), [&](const auto& o) { return c.op == o.first; });
  const char* refused = found == std::end(ops) ? "--op" : c.algorithm != "auto" ? "--algorithm" : nullptr;
  if (refused) {
    std::fprintf(stderr, "carry runs: %s does not take '%s' (see carry runs --help for its values)\n",
                 refused, refused[2] == 'o' ? c.op.c_str() : c.algorithm.c_str());
    return 2;
  }
  const keyed_op op = found->second;
  if (!print_gpu()) return 2;
  // ---- data: keys in runs (or a file), values hashed ----
  std::vector<std::uint32_t> keys;
  if (!c.input.empty()) {
    std::vector<char> raw;
    if (!read_raw("runs", c.input, 4, "u32", raw)) return 2;
    if (raw.size() / 4 > static_cast<std::size_t>(INT32_MAX)) {
      std::fprintf(stderr, "carry runs: --input holds more than 2^31 - 1 keys (CUB's check takes fewer)\n");
      return 2;
    }
    keys.resize(raw.size() / 4);
    std::memcpy(keys.data(), raw.data(), raw.size());
    c.n = static_cast<std::int64_t>(keys.size());
  } else {
    keys.resize(static_cast<std::size_t>(c.n));
    std::mt19937_64 g(20261126);
    std::uint32_t v = static_cast<std::uint32_t>(g());
    for (std::size_t i = 0; i < keys.size();) {
      const std::size_t len = 1 + g() % static_cast<std::uint64_t>(2 * c.run - 1);
      for (std::size_t k = 0; k < len && i < keys.size(); ++k) keys[i++] = v;
      v += 1 + static_cast<std::uint32_t>(g() % 5);
    }
  }
  const std::int64_t n = c.n;
  const std::size_t bytes_n = static_cast<std::size_t>(n) * 4;
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<std::uint32_t>(i * 2654435761u) >> 20;
  std::uint32_t *k, *v, *a, *b, *ca, *cb;
  std::int64_t *num, *cnum;
  for (std::uint32_t** p : {&k, &v, &a, &b, &ca, &cb}) CHECK_CUDA(cudaMalloc(p, bytes_n));
  CHECK_CUDA(cudaMalloc(&num, 8));
  CHECK_CUDA(cudaMalloc(&cnum, 8));
  CHECK_CUDA(cudaMemcpy(k, keys.data(), bytes_n, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(v, values.data(), bytes_n, cudaMemcpyHostToDevice));
  carry::scan_options opt;
  opt.deterministic = c.deterministic;
  auto carry_call = [&](void* t, std::size_t& s) {
    return carry_validate::carry_keyed(op, t, s, k, v, a, b, num, n, opt);
  };
  auto cub_call = [&](void* t, std::size_t& s) {
    return carry_validate::cub_keyed(op, t, s, k, v, ca, cb, cnum, n);
  };
  std::size_t need = 0, cub_need = 0;
  CHECK_CUDA(carry_call(nullptr, need));
  CHECK_CUDA(cub_call(nullptr, cub_need));
  const std::size_t temp_bytes = std::max(need, cub_need);
  void* temp;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
  // ---- check: the count and every output against CUB's ----
  std::size_t t = temp_bytes;
  CHECK_CUDA(cub_call(temp, t));
  CHECK_CUDA(cudaMemset(temp, 0xFF, temp_bytes)); // carry runs on dirty temp storage
  CHECK_CUDA(carry_call(temp, t));
  CHECK_CUDA(cudaDeviceSynchronize());
  const bool scan = op == keyed_op::scan_by_key;
  std::int64_t got = n, want = n;
  if (!scan) {
    CHECK_CUDA(cudaMemcpy(&got, num, 8, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&want, cnum, 8, cudaMemcpyDeviceToHost));
  }
  std::int64_t bad = 0;
  const std::size_t m = static_cast<std::size_t>(std::max<std::int64_t>(0, std::min(got, want)));
  for (auto [mine, theirs] : {std::pair{a, ca}, std::pair{b, cb}}) {
    if (scan && mine == a) continue; // the scan writes only the values
    std::vector<std::uint32_t> x(m), y(m);
    CHECK_CUDA(cudaMemcpy(x.data(), mine, m * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(y.data(), theirs, m * 4, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < m; ++i) bad += x[i] != y[i];
  }
  const bool ok = got == want && bad == 0;
  if (!c.csv)
    std::printf(
        "carry runs --op %s of %lld u32 keys (%s): %lld %s; check against CUB: %s (count %lld vs %lld, "
        "%lld items differ)\n",
        c.op.c_str(), static_cast<long long>(n), c.input.empty() ? "generated runs" : "file",
        static_cast<long long>(got), scan ? "values" : "runs", ok ? "ok" : "FAILED",
        static_cast<long long>(got), static_cast<long long>(want), static_cast<long long>(bad));
  // ---- time (cold L2) ----
  carry_validate::l2_flush flush;
  CHECK_CUDA(cudaMalloc(&flush.buffer, flush.bytes));
  auto time_cold = [&](auto&& call) {
    return carry_validate::median_event_us_after(flush, call, c.reps, true);
  };
  const double t_carry = time_cold([&] {
    std::size_t s = temp_bytes;
    CHECK_CUDA(carry_call(temp, s));
  });
  const double t_cub = time_cold([&] {
    std::size_t s = temp_bytes;
    CHECK_CUDA(cub_call(temp, s));
  });
  const double t_copy =
      time_cold([&] { CHECK_CUDA(cudaMemcpyAsync(a, k, bytes_n, cudaMemcpyDeviceToDevice)); });
  // bytes: the keys (and values but for the run-length calls), one value out per item (scan) or two words per run
  const bool with_values = op != keyed_op::encode && op != keyed_op::non_trivial;
  const double moved = static_cast<double>(bytes_n) * (with_values ? 2 : 1) +
                       (scan ? static_cast<double>(bytes_n) : 8.0 * static_cast<double>(got));
  const double copy_gbps = 2.0 * static_cast<double>(bytes_n) / (t_copy * 1e3);
  auto line = [&](const char* impl, double us, double bytes_moved) {
    const double gbps = bytes_moved / (us * 1e3);
    if (c.csv)
      std::printf("%s,%s,%lld,%.2f,%.1f,%.4f,%.4f\n", c.op.c_str(), impl, static_cast<long long>(n), us, gbps,
                  gbps / copy_gbps, t_cub / us);
    else
      std::printf("%-8s %12.1f %10.1f %10.3f %8.3f\n", impl, us, gbps, gbps / copy_gbps, t_cub / us);
  };
  if (!c.csv) std::printf("\n%-8s %12s %10s %10s %8s\n", "impl", "median_us", "GB/s", "of_copy", "x_cub");
  line("carry", t_carry, moved);
  line("cub", t_cub, moved);
  line("memcpy", t_copy, 2.0 * static_cast<double>(bytes_n));
  for (void* p : {static_cast<void*>(k), static_cast<void*>(v), static_cast<void*>(a), static_cast<void*>(b),
                  static_cast<void*>(ca), static_cast<void*>(cb), static_cast<void*>(num),
                  static_cast<void*>(cnum), temp, flush.buffer})
    cudaFree(p);
  return ok ? 0 : 1;
}
