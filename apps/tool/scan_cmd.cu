// `carry scan`: scans a data set with carry's engine, checks the result against CUB, prints throughput.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <carry/scan/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bench/baselines/baselines.hpp"
#include "bench/timing.cuh"
#include "tool.hpp"

namespace {

const char* usage =
    "carry scan - prefix sums on the GPU, checked against CUB\n"
    "\n"
    "usage: carry scan [options]\n"
    "  Scans a data set with carry's engine, checks every element against CUB (cub::DeviceScan),\n"
    "  and prints the throughput of carry, CUB and a device-to-device copy of the same bytes.\n"
    "  With no options: 2^26 random u32, inclusive sum, automatic algorithm.\n"
    "\n"
    "options:\n"
    "  --n N               number of items (default 67108864 = 2^26; 64-bit, so > 2^31 works)\n"
    "  --type T            u32 (default), f32, u64, u8\n"
    "  --op OP             inclusive_sum (default), exclusive_sum\n"
    "  --algorithm A       auto (default), single_pass (decoupled look-back, one launch),\n"
    "                      hierarchical (upsweep + spine + downsweep). Up to 2^18 items the single\n"
    "                      pass runs on small warp-striped tiles: one tile in one block, up to 16\n"
    "                      tiles as one thread-block cluster (one launch, temp storage unread),\n"
    "                      more with the look-back (try --n 8192, --n 65536 or --n 262144). Larger\n"
    "                      inputs of 1-, 4- and 8-byte types run on tiles staged in shared memory\n"
    "                      (cp.async), 6 blocks per SM (try --n 16777216). Every look-back launch\n"
    "                      is preceded by a small kernel that clears its state, so results are\n"
    "                      exact on any temp storage and under CUDA-graph replay\n"
    "  --variant V         block scan inside the hierarchical pass (u32 only for the others):\n"
    "                      coarsened (default), kogge_stone, kogge_stone_db, brent_kung, blelloch\n"
    "  --deterministic     bitwise-reproducible floating-point results (see README)\n"
    "  --from F            another input into u32 sums: u8 (random bytes, as flags into offsets) or\n"
    "                      squares ((i * i) % 1000 for i = 0, 1, 2, ...: a transform of a counting\n"
    "                      iterator, nothing read); --type u32 only\n"
    "  --input FILE        raw binary items of --type instead of the generated data (n from its size)\n"
    "  --reps R            timed repetitions, median reported (default 30)\n"
    "  --csv               print the timings as CSV (primitive,impl,type,n,median_us,gbps,frac_copy,vs_cub)\n"
    "  --graph             also capture carry's scan and CUB's into CUDA graphs (temp storage filled\n"
    "                      with 0xFF first), replay each --reps times, time the replays and check\n"
    "                      carry's output against CUB after them\n"
    "  --help              this text\n"
    "\n"
    "exit status: 0 checked and timed; 1 mismatch against CUB or CUDA error; 2 bad usage or no GPU\n";

struct config {
  std::int64_t n = std::int64_t{1} << 26;
  std::string type = "u32", op = "inclusive_sum", algorithm = "auto", variant = "coarsened", input, from;
  bool deterministic = false, graph = false, csv = false;
  int reps = 30;
};

template <class T>
std::vector<T> default_data(std::int64_t n) {
  std::vector<T> h(n);
  std::mt19937_64 g(20261121);
  for (auto& x : h) {
    if constexpr (std::is_floating_point<T>::value)
      x = static_cast<T>(g() % 1000) / 1000;
    else
      x = static_cast<T>(g());
  }
  return h;
}

template <class HP, class T>
cudaError_t run_carry(const config& c, void* tmp, std::size_t& bytes, const T* in, T* out,
                      cudaStream_t s = cudaStream_t{}) {
  carry::scan_options o;
  o.algorithm = c.algorithm == "single_pass"    ? carry::scan_algorithm::single_pass
                : c.algorithm == "hierarchical" ? carry::scan_algorithm::hierarchical
                                                : carry::scan_algorithm::automatic;
  o.deterministic = c.deterministic;
  if constexpr (std::is_same<HP, carry::tuning::hierarchical_policy<T>>::value) { // the public entry points
    if (c.op == "exclusive_sum") return carry::exclusive_sum(tmp, bytes, in, out, c.n, o, s);
    return carry::inclusive_sum(tmp, bytes, in, out, c.n, o, s);
  } else { // another block algorithm inside the hierarchical pass
    using W = carry::device_scan_with<HP, carry::tuning::single_pass_policy<T>>;
    if (c.op == "exclusive_sum") return W::exclusive_scan(tmp, bytes, in, out, carry::sum{}, T{}, c.n, o, s);
    return W::inclusive_scan(tmp, bytes, in, out, carry::sum{}, c.n, o, s);
  }
}

template <class HP, class T>
int run(const config& given) {
  config c = given; // c.n: the items read from --input, when given
  std::vector<T> h_in;
  if (!c.input.empty()) { // raw binary items of --type
    std::vector<char> raw;
    if (!carry_tool::read_raw("scan", c.input, sizeof(T), c.type.c_str(), raw)) return 2;
    h_in.resize(raw.size() / sizeof(T));
    std::memcpy(h_in.data(), raw.data(), raw.size());
  } else {
    h_in = default_data<T>(c.n);
  }
  const std::int64_t n = static_cast<std::int64_t>(h_in.size());
  c.n = n;
  std::printf("carry: %s of %lld %s, algorithm %s, block scan %s%s\n", c.op.c_str(),
              static_cast<long long>(n), c.type.c_str(), c.algorithm.c_str(), c.variant.c_str(),
              c.deterministic ? ", deterministic" : "");
  T *in, *out, *ref;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&ref, n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(in, h_in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  std::size_t carry_bytes = 0, cub_bytes = 0;
  CHECK_CUDA(run_carry<HP>(c, nullptr, carry_bytes, in, out));
  const bool excl = c.op == "exclusive_sum";
  auto cub = [&](void* tmp, std::size_t& b, T* dst, cudaStream_t s = cudaStream_t{}) {
    return excl ? carry_validate::cub_exclusive_sum(tmp, b, in, dst, n, s)
                : carry_validate::cub_inclusive_sum(tmp, b, in, dst, n, s);
  };
  CHECK_CUDA(cub(nullptr, cub_bytes, ref));
  void* tmp;
  const std::size_t tmp_bytes = std::max(carry_bytes, cub_bytes);
  CHECK_CUDA(cudaMalloc(&tmp, tmp_bytes));
  // ---- check: every element against CUB ----
  CHECK_CUDA(cudaMemset(out, 0xA5, n * sizeof(T)));
  std::size_t b = tmp_bytes;
  CHECK_CUDA(run_carry<HP>(c, tmp, b, in, out));
  b = tmp_bytes;
  CHECK_CUDA(cub(tmp, b, ref));
  std::vector<T> h_out(n), h_ref(n);
  CHECK_CUDA(cudaMemcpy(h_out.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(h_ref.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
  auto count_bad = [&] {
    std::int64_t k = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point<T>::value) {
        // float sums grouped differently round differently: relative tolerance
        k += !(std::fabs(static_cast<double>(h_out[i]) - h_ref[i]) <=
               1e-4 * std::fabs(static_cast<double>(h_ref[i])) + 1e-3);
      } else {
        k += std::memcmp(&h_out[i], &h_ref[i], sizeof(T)) != 0;
      }
    }
    return k;
  };
  std::int64_t bad = count_bad();
  std::printf("check against CUB: %s (%lld of %lld elements differ%s)\n", bad ? "FAILED" : "ok",
              static_cast<long long>(bad), static_cast<long long>(n),
              std::is_floating_point<T>::value ? ", relative tolerance 1e-4" : ", bitwise");
  // ---- time ----
  const double t_carry = carry_validate::median_event_us(
      [&] {
        std::size_t t = tmp_bytes;
        CHECK_CUDA(run_carry<HP>(c, tmp, t, in, out));
      },
      c.reps);
  const double t_cub = carry_validate::median_event_us(
      [&] {
        std::size_t t = tmp_bytes;
        CHECK_CUDA(cub(tmp, t, out));
      },
      c.reps);
  const double t_copy = carry_validate::median_event_us(
      [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); }, c.reps);
  const double bytes = 2.0 * n * sizeof(T);
  if (c.csv)
    std::printf("primitive,impl,type,n,median_us,gbps,frac_copy,vs_cub\n");
  else
    std::printf("\n%-8s %12s %10s %12s %8s\n", "impl", "median_us", "GB/s", "Gitems/s", "x_cub");
  auto line = [&](const char* name, double us) {
    if (c.csv)
      std::printf("%s,%s,%s,%lld,%.2f,%.1f,%.4f,%.4f\n", c.op.c_str(), name, c.type.c_str(),
                  static_cast<long long>(n), us, bytes / (us * 1e3), t_copy / us, t_cub / us);
    else
      std::printf("%-8s %12.1f %10.1f %12.2f %8.3f\n", name, us, bytes / (us * 1e3), n / (us * 1e3),
                  t_cub / us);
  };
  line("carry", t_carry);
  line("cub", t_cub);
  line("memcpy", t_copy);
  std::printf("\ncarry reaches %.2f of the copy bandwidth; %.2fx CUB's throughput\n", t_copy / t_carry,
              t_cub / t_carry);
  if (c.graph) { // ---- graphs: capture once, replay; temp storage starts dirty ----
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMemset(tmp, 0xFF, tmp_bytes));
    CHECK_CUDA(cudaMemset(out, 0xA5, n * sizeof(T)));
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaGraphExec_t exec[2];
    for (int g = 0; g < 2; ++g) {
      cudaGraph_t graph;
      std::size_t t = tmp_bytes;
      CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      CHECK_CUDA(g == 0 ? run_carry<HP>(c, tmp, t, in, out, s) : cub(tmp, t, ref, s));
      CHECK_CUDA(cudaStreamEndCapture(s, &graph));
      CHECK_CUDA(cudaGraphInstantiate(&exec[g], graph, 0));
      CHECK_CUDA(cudaGraphDestroy(graph));
    }
    double us[2];
    for (int g = 0; g < 2; ++g) {
      us[g] =
          carry_validate::median_event_us([&] { CHECK_CUDA(cudaGraphLaunch(exec[g], s)); }, c.reps, false, s);
      CHECK_CUDA(cudaStreamSynchronize(s));
    }
    CHECK_CUDA(cudaMemcpy(h_out.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(h_ref.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
    const std::int64_t graph_bad = count_bad();
    std::printf(
        "\ngraph replays (%d each after a warm-up): carry %.1f us, cub %.1f us (%.3fx); carry's output "
        "after them against CUB's: %s (%lld differ)\n",
        c.reps, us[0], us[1], us[1] / us[0], graph_bad ? "FAILED" : "ok", static_cast<long long>(graph_bad));
    bad += graph_bad;
    for (auto& x : exec) CHECK_CUDA(cudaGraphExecDestroy(x));
    CHECK_CUDA(cudaStreamDestroy(s));
  }
  cudaFree(tmp);
  cudaFree(in);
  cudaFree(out);
  cudaFree(ref);
  return bad ? 1 : 0;
}

/// A sum of another input into u32 (--from): u8 bytes, or a transform of a counting iterator; checked
/// against CUB's same call, timed against it and a copy of the output's bytes.
int run_from(const config& c) {
  const std::int64_t n = c.n;
  const bool excl = c.op == "exclusive_sum", bytes_in = c.from == "u8";
  std::printf("carry: %s of %lld %s into u32, single pass%s\n", c.op.c_str(), static_cast<long long>(n),
              bytes_in ? "u8" : "squares of a counting iterator", c.deterministic ? ", deterministic" : "");
  std::uint8_t* in = nullptr;
  std::uint32_t *out, *ref;
  CHECK_CUDA(cudaMalloc(&out, n * 4));
  CHECK_CUDA(cudaMalloc(&ref, n * 4));
  if (bytes_in) {
    const auto h = default_data<std::uint8_t>(n);
    CHECK_CUDA(cudaMalloc(&in, static_cast<std::size_t>(n)));
    CHECK_CUDA(cudaMemcpy(in, h.data(), static_cast<std::size_t>(n), cudaMemcpyHostToDevice));
  }
  const auto squares = carry::make_transform_input(thrust::counting_iterator<std::uint32_t>(0),
                                                   carry_validate::square_mod_1000{});
  carry::scan_options o; // other inputs always take the single pass: only `deterministic` applies
  o.deterministic = c.deterministic;
  const std::uint8_t* cin = in;
  auto carry_call = [&](void* t, std::size_t& b) -> cudaError_t {
    if (bytes_in)
      return excl ? carry::exclusive_sum(t, b, cin, out, n, o) : carry::inclusive_sum(t, b, cin, out, n, o);
    return excl ? carry::exclusive_sum(t, b, squares, out, n, o)
                : carry::inclusive_sum(t, b, squares, out, n, o);
  };
  auto cub_call = [&](void* t, std::size_t& b, std::uint32_t* dst) -> cudaError_t {
    const cudaStream_t s{};
    if (bytes_in)
      return excl ? carry_validate::cub_exclusive_sum_u8_u32(t, b, cin, dst, n, s)
                  : carry_validate::cub_inclusive_sum_u8_u32(t, b, cin, dst, n, s);
    return excl ? carry_validate::cub_exclusive_sum_squares(t, b, dst, n, s)
                : carry_validate::cub_inclusive_sum_squares(t, b, dst, n, s);
  };
  std::size_t a = 0, b = 0;
  CHECK_CUDA(carry_call(nullptr, a));
  CHECK_CUDA(cub_call(nullptr, b, ref));
  const std::size_t tmp_bytes = std::max(a, b);
  void* tmp;
  CHECK_CUDA(cudaMalloc(&tmp, tmp_bytes));
  CHECK_CUDA(cudaMemset(tmp, 0xFF, tmp_bytes));
  CHECK_CUDA(cudaMemset(out, 0xA5, n * 4));
  std::size_t t = tmp_bytes;
  CHECK_CUDA(carry_call(tmp, t));
  t = tmp_bytes;
  CHECK_CUDA(cub_call(tmp, t, ref));
  std::vector<std::uint32_t> h_out(n), h_ref(n);
  CHECK_CUDA(cudaMemcpy(h_out.data(), out, n * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(h_ref.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad += h_out[i] != h_ref[i];
  std::printf("check against CUB: %s (%lld of %lld elements differ, bitwise)\n", bad ? "FAILED" : "ok",
              static_cast<long long>(bad), static_cast<long long>(n));
  const double t_carry = carry_validate::median_event_us(
      [&] {
        std::size_t u = tmp_bytes;
        CHECK_CUDA(carry_call(tmp, u));
      },
      c.reps);
  const double t_cub = carry_validate::median_event_us(
      [&] {
        std::size_t u = tmp_bytes;
        CHECK_CUDA(cub_call(tmp, u, out));
      },
      c.reps);
  const double t_copy = carry_validate::median_event_us(
      [&] { CHECK_CUDA(cudaMemcpyAsync(ref, out, n * 4, cudaMemcpyDeviceToDevice)); }, c.reps);
  const double moved = (bytes_in ? 5.0 : 4.0) * n; // what the sum must read and write
  if (c.csv)
    std::printf("primitive,impl,type,n,median_us,gbps,frac_copy,vs_cub\n");
  else
    std::printf("\n%-8s %12s %10s %8s\n", "impl", "median_us", "GB/s", "x_cub");
  auto line = [&](const char* name, double us, double by) {
    if (c.csv)
      std::printf("%s,%s,%s,%lld,%.2f,%.1f,%.4f,%.4f\n", c.op.c_str(), name, bytes_in ? "u8/u32" : "idx/u32",
                  static_cast<long long>(n), us, by / (us * 1e3), t_copy / us, t_cub / us);
    else
      std::printf("%-8s %12.1f %10.1f %8.3f\n", name, us, by / (us * 1e3), t_cub / us);
  };
  line("carry", t_carry, moved);
  line("cub", t_cub, moved);
  line("memcpy", t_copy, 8.0 * n);
  cudaFree(tmp);
  if (in) cudaFree(in);
  cudaFree(out);
  cudaFree(ref);
  return bad ? 1 : 0;
}

template <class T>
int run_default_variant(const config& c) {
  return run<carry::tuning::hierarchical_policy<T>, T>(c);
}

} // namespace

int carry_tool::scan_main(int argc, char** argv) {
  config c;
  const int parsed = parse_options("scan", usage,
                                   {count("--n", c.n), text("--type", c.type), text("--op", c.op),
                                    text("--algorithm", c.algorithm), text("--variant", c.variant),
                                    flag("--deterministic", c.deterministic), flag("--graph", c.graph),
                                    whole("--reps", 1, 1000000, c.reps), text("--input", c.input),
                                    flag("--csv", c.csv), text("--from", c.from)},
                                   argc, argv);
  if (parsed >= 0) return parsed;
  const bool ok_type = c.type == "u32" || c.type == "f32" || c.type == "u64" || c.type == "u8";
  const bool ok_op = c.op == "inclusive_sum" || c.op == "exclusive_sum";
  const bool ok_alg = c.algorithm == "auto" || c.algorithm == "single_pass" || c.algorithm == "hierarchical";
  const bool ok_var = c.variant == "coarsened" || c.variant == "kogge_stone" ||
                      c.variant == "kogge_stone_db" || c.variant == "brent_kung" || c.variant == "blelloch";
  const char* refused = !ok_type  ? "--type"
                        : !ok_op  ? "--op"
                        : !ok_alg ? "--algorithm"
                        : !ok_var ? "--variant"
                                  : nullptr;
  if (refused) {
    const std::string& v = !ok_type ? c.type : !ok_op ? c.op : !ok_alg ? c.algorithm : c.variant;
    std::fprintf(stderr, "carry: %s does not take '%s' (see --help for its values)\n", refused, v.c_str());
    return 2;
  }
  if (c.variant != "coarsened" && c.type != "u32") {
    std::fprintf(stderr, "carry: --variant %s runs on --type u32 only, not %s\n", c.variant.c_str(),
                 c.type.c_str());
    return 2;
  }
  if (c.variant != "coarsened" && c.algorithm == "auto") c.algorithm = "hierarchical"; // where variants live
  if (!c.from.empty()) {
    const char* conflict = c.from != "u8" && c.from != "squares" ? "--from takes u8 or squares"
                           : c.type != "u32"                     ? "--from sums into --type u32 only"
                           : !c.input.empty()                    ? "--from reads no --input"
                           : c.graph || c.variant != "coarsened" || c.algorithm != "auto"
                               ? "--from runs the single pass, without --graph, --variant or --algorithm"
                               : nullptr;
    if (conflict) {
      std::fprintf(stderr, "carry scan: %s\n", conflict);
      return 2;
    }
    if (!carry_tool::print_gpu()) return 2;
    return run_from(c);
  }
  if (!carry_tool::print_gpu()) return 2;
  using BA = carry::block_scan_algorithm;
  if (c.type == "u32") {
    if (c.variant == "kogge_stone") return run<carry::tuning::seed_policy<BA::kogge_stone>, std::uint32_t>(c);
    if (c.variant == "kogge_stone_db")
      return run<carry::tuning::seed_policy<BA::kogge_stone_double_buffer>, std::uint32_t>(c);
    if (c.variant == "brent_kung") return run<carry::tuning::seed_policy<BA::brent_kung>, std::uint32_t>(c);
    if (c.variant == "blelloch") return run<carry::tuning::seed_policy<BA::blelloch>, std::uint32_t>(c);
    return run_default_variant<std::uint32_t>(c);
  }
  if (c.type == "f32") return run_default_variant<float>(c);
  if (c.type == "u64") return run_default_variant<std::uint64_t>(c);
  return run_default_variant<std::uint8_t>(c);
}
