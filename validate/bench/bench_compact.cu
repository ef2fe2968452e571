// Benchmark: carry's compactions (select_if, select_flagged, select_unique, partition) against CUB and a
// device copy, in one run, on one GPU. Each timed call starts on a cold L2 (a 192 MB memset first);
// "cold" = events around the call on an idle GPU (host launch latency inside), "cold-blocked" = the call
// queued behind a ~0.1 ms spin kernel (GPU time alone). Medians after warm-up; rotating buffers. CUB
// runs both its `int` and 64-bit num_items paths; the better is "cub-best". Every carry form timed is
// checked once against CUB (count and items).
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <carry/compact/device_partition.cuh>
#include <carry/compact/device_select.cuh>
#include <carry/scan/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bench/baselines/baselines.hpp"
#include "bench/baselines/baselines_compact.hpp"
#include "tests/common/compact_ops.hpp"
#include "bench/bench_args.hpp"
#include "tests/common/gpu.cuh"
#include "bench/compact_bench.cuh"
#include "bench/timing.cuh"

using namespace carry_validate;

namespace {

struct row {
  std::string op, impl;
  std::int64_t n;
  double us, bytes;
  std::string method;
};
std::vector<row> rows;

enum class prim { select_if, select_flagged, select_unique, partition, partition_flagged };
/// Whether p writes every item (the rejected after the selected).
bool partitions(prim p) {
  return p == prim::partition || p == prim::partition_flagged;
}
/// The flags of select_flagged: u8 (0/1), bool, u32 or i32 (the same values, widened).
enum class flag_type { u8, b8, u32, i32 };

struct compact_case {
  std::string name;
  prim p;
  int percent;       // selectivity (select_if, flagged, partition)
  bool iota = false; // items: a counting iterator of u32 (select_if, partition: hashed_less on the index)
  flag_type flags = flag_type::u8;
};

int flag_bytes(flag_type f) {
  return f == flag_type::u32 || f == flag_type::i32 ? 4 : 1;
}

/// A carry call of case c on rotation r (inputs and outputs offset by r * n).
cudaError_t carry_run(const compact_case& c, gpu_state& g, void* temp, std::size_t& bytes, std::int64_t n,
                      int r, carry::compact_options opt) {
  const std::uint32_t* in = g.in + r * n;
  std::uint32_t* out = g.out + r * n;
  const std::uint32_t bound = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * c.percent / 100);
  const less_than<std::uint32_t> pred{bound};
  const thrust::counting_iterator<std::uint32_t> iota(0);
  const std::uint8_t* f8 = g.flags + r * n;
  const std::uint32_t* f32 = g.flags32 + r * n;
  if (c.iota) {
    switch (c.p) {
    case prim::select_if:
      return carry::select_if(temp, bytes, iota, out, g.num, n, hashed_less{bound}, opt);
    case prim::partition:
      return carry::partition(temp, bytes, iota, out, g.num, n, hashed_less{bound}, opt);
    default: {
      auto by_flags = [&](const auto* flags) {
        return c.p == prim::partition_flagged
                   ? carry::partition_flagged(temp, bytes, iota, flags, out, g.num, n, opt)
                   : carry::select_flagged(temp, bytes, iota, flags, out, g.num, n, opt);
      };
      switch (c.flags) {
      case flag_type::u8:
        return by_flags(f8);
      case flag_type::b8:
        return by_flags(reinterpret_cast<const bool*>(f8));
      case flag_type::u32:
        return by_flags(f32);
      default:
        return by_flags(reinterpret_cast<const int*>(f32));
      }
    }
    }
  }
  switch (c.p) {
  case prim::select_if:
    return carry::select_if(temp, bytes, in, out, g.num, n, pred, opt);
  case prim::select_flagged:
    if (c.flags == flag_type::u32) return carry::select_flagged(temp, bytes, in, f32, out, g.num, n, opt);
    return carry::select_flagged(temp, bytes, in, f8, out, g.num, n, opt);
  case prim::select_unique:
    return carry::select_unique(temp, bytes, in, out, g.num, n, carry::equal_to{}, opt);
  case prim::partition_flagged:
    if (c.flags == flag_type::u32) return carry::partition_flagged(temp, bytes, in, f32, out, g.num, n, opt);
    return carry::partition_flagged(temp, bytes, in, f8, out, g.num, n, opt);
  default:
    return carry::partition(temp, bytes, in, out, g.num, n, pred, opt);
  }
}
cudaError_t cub_run(const compact_case& c, gpu_state& g, void* temp, std::size_t& bytes, std::int64_t n,
                    int r, bool offset64, std::uint32_t* out_override = nullptr) {
  const std::uint32_t* in = g.in + r * n;
  std::uint32_t* out = out_override ? out_override : g.out + r * n;
  const auto bound = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * c.percent / 100);
  const std::uint8_t* f8 = g.flags + r * n;
  const std::uint32_t* f32 = g.flags32 + r * n;
  const cudaStream_t s{};
  if (c.iota) {
    switch (c.p) {
    case prim::select_if:
      return cub_select_if_iota(temp, bytes, out, g.num, n, bound, offset64, s);
    case prim::partition:
      return cub_partition_iota(temp, bytes, out, g.num, n, bound, offset64, s);
    default: {
      const bool part = c.p == prim::partition_flagged;
      switch (c.flags) {
      case flag_type::u8:
        return cub_flagged<std::uint32_t>(temp, bytes, nullptr, f8, out, g.num, n, part, offset64, s);
      case flag_type::b8:
        return cub_flagged<std::uint32_t>(temp, bytes, nullptr, reinterpret_cast<const bool*>(f8), out, g.num,
                                          n, part, offset64, s);
      case flag_type::u32:
        return cub_flagged<std::uint32_t>(temp, bytes, nullptr, f32, out, g.num, n, part, offset64, s);
      default:
        return cub_flagged<std::uint32_t>(temp, bytes, nullptr, reinterpret_cast<const int*>(f32), out, g.num,
                                          n, part, offset64, s);
      }
    }
    }
  }
  switch (c.p) {
  case prim::select_if:
    return cub_select_if_less(temp, bytes, in, out, g.num, n, bound, offset64, s);
  case prim::select_flagged:
    if (c.flags == flag_type::u32)
      return cub_flagged(temp, bytes, in, f32, out, g.num, n, false, offset64, s);
    return cub_flagged(temp, bytes, in, f8, out, g.num, n, false, offset64, s);
  case prim::select_unique:
    return cub_select_unique(temp, bytes, in, out, g.num, n, offset64, s);
  case prim::partition_flagged:
    if (c.flags == flag_type::u32) return cub_flagged(temp, bytes, in, f32, out, g.num, n, true, offset64, s);
    return cub_flagged(temp, bytes, in, f8, out, g.num, n, true, offset64, s);
  default:
    return cub_partition_less(temp, bytes, in, out, g.num, n, bound, offset64, s);
  }
}

/// Bytes a compaction must move at least: read the items (none from a counting iterator) and flags,
/// write what it keeps.
double bytes_moved(const compact_case& c, std::int64_t n, std::int64_t selected) {
  const double in = c.iota ? 0.0 : 4.0 * n, kept = 4.0 * (partitions(c.p) ? n : selected);
  const bool flagged = c.p == prim::select_flagged || c.p == prim::partition_flagged;
  return in + kept + (flagged ? 1.0 * flag_bytes(c.flags) * n : 0.0);
}

void bench(const compact_case& c, gpu_state& g, std::int64_t n, bool forms) {
  const int rotations = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(4, g.capacity / n)));
  const int reps = n <= (1 << 22) ? 61 : n <= (1 << 26) ? 31 : n <= (1 << 28) ? 15 : 7;
  // ---- CUB's answer (the check), the count ----
  std::size_t need = 0;
  CARRY_CUDA_OR_DIE(cub_run(c, g, nullptr, need, n, 0, false, g.check));
  g.ensure_temp(need);
  CARRY_CUDA_OR_DIE(cub_run(c, g, g.temp, need, n, 0, false, g.check));
  std::int64_t selected = 0;
  CARRY_CUDA_OR_DIE(cudaMemcpy(&selected, g.num, sizeof selected, cudaMemcpyDeviceToHost));
  if (partitions(c.p)) reverse_tail<<<1024, 256>>>(g.check, selected, n); // CUB's rejected: reversed
  const double bytes = bytes_moved(c, n, selected);
  auto record = [&](const std::string& impl, const std::function<void(int)>& call) {
    // a copy of the items reads and writes 4n bytes; a memset writes 4n
    const double moved = impl == "memcpy" ? 8.0 * n : impl == "memset" ? 4.0 * n : bytes;
    rows.push_back({c.name, impl, n, time_cold(g, call, rotations, reps, false), moved, "cold"});
    rows.push_back({c.name, impl, n, time_cold(g, call, rotations, reps, true), moved, "cold-blocked"});
  };
  record("memcpy", [&](int r) {
    CARRY_CUDA_OR_DIE(cudaMemcpyAsync(g.out + r * n, g.in + r * n, 4 * n, cudaMemcpyDeviceToDevice));
  });
  if (c.iota) // what writing every output alone costs: the bound of a counting-iterator compaction
    record("memset", [&](int r) { CARRY_CUDA_OR_DIE(cudaMemsetAsync(g.out + r * n, 0, 4 * n)); });
  for (bool wide : {false, true}) {
    if (!wide && n > INT_MAX) continue;
    need = 0;
    CARRY_CUDA_OR_DIE(cub_run(c, g, nullptr, need, n, 0, wide));
    g.ensure_temp(need);
    record(wide ? "cub-i64" : "cub-i32", [&](int r) {
      std::size_t t = g.temp_bytes;
      CARRY_CUDA_OR_DIE(cub_run(c, g, g.temp, t, n, r, wide));
    });
  }
  // a reversed partition (CUB's layout) is checked against CUB's output as it is
  auto turn_check = [&] { reverse_tail<<<1024, 256>>>(g.check, selected, n); };
  auto carry_form = [&](const std::string& impl, carry::compact_options opt) {
    const bool reversed = partitions(c.p) && opt.rejected == carry::partition_order::reversed;
    if (reversed) turn_check();
    need = 0;
    CARRY_CUDA_OR_DIE(carry_run(c, g, nullptr, need, n, 0, opt));
    g.ensure_temp(need);
    CARRY_CUDA_OR_DIE(cudaMemset(g.out, 0xA5, 4 * n));
    CARRY_CUDA_OR_DIE(cudaMemset(g.temp, 0xFF, need));
    CARRY_CUDA_OR_DIE(carry_run(c, g, g.temp, need, n, 0, opt));
    std::int64_t got = -1;
    CARRY_CUDA_OR_DIE(cudaMemcpy(&got, g.num, sizeof got, cudaMemcpyDeviceToHost));
    CARRY_CUDA_OR_DIE(cudaMemset(g.bad, 0, sizeof(unsigned long long)));
    count_mismatches<<<1024, 256>>>(g.out, g.check, partitions(c.p) ? n : selected, g.bad);
    unsigned long long bad = 0;
    CARRY_CUDA_OR_DIE(cudaMemcpy(&bad, g.bad, sizeof bad, cudaMemcpyDeviceToHost));
    if (got != selected || bad) {
      std::fprintf(stderr, "MISMATCH: %s %s n=%lld: count %lld (CUB %lld), %llu items differ\n", impl.c_str(),
                   c.name.c_str(), static_cast<long long>(n), static_cast<long long>(got),
                   static_cast<long long>(selected), bad);
      std::exit(3);
    }
    if (reversed) turn_check();
    record(impl, [&](int r) {
      std::size_t t = g.temp_bytes;
      CARRY_CUDA_OR_DIE(carry_run(c, g, g.temp, t, n, r, opt));
    });
  };
  carry_form("carry", {});
  if (partitions(c.p)) {
    carry::compact_options rev;
    rev.rejected = carry::partition_order::reversed;
    carry_form("carry-reversed", rev);
  }
  if (forms) {
    carry_form("carry-three_kernel", {carry::compact_algorithm::three_kernel});
    if (!partitions(c.p)) carry_form("carry-single_pass", {carry::compact_algorithm::single_pass});
  }
}

} // namespace

int main(int argc, char** argv) {
  bench_args args{16, 30, "bench_compact.csv", ""};
  bool forms = true;
  if (const int rc =
          bench_start("carry_bench_compact",
                      "[--min-log2 N] [--max-log2 N] [--op NAME] [--no-forms] [--csv FILE]", argc, argv, args,
                      [&](const std::string& a, int& i) {
                        if (a != "--no-forms") return false;
                        forms = false;
                        (void)i;
                        return true;
                      });
      rc >= 0)
    return rc;
  const int min_log2 = args.min_log2, max_log2 = args.max_log2;
  const std::string csv = args.csv, only = args.only;
  gpu_state g;
  g.capacity = std::size_t{1} << std::max(max_log2, 24);
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.in, 4 * g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.out, 4 * g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.check, 4 * g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.flags, g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.flush, flush_bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.num, sizeof(std::int64_t)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.bad, sizeof(unsigned long long)));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.flags32, 4 * g.capacity));
  std::vector<compact_case> cases{
      {"select_if_1", prim::select_if, 1},
      {"select_if_50", prim::select_if, 50},
      {"select_if_99", prim::select_if, 99},
      {"select_flagged_50", prim::select_flagged, 50},
      {"partition_50", prim::partition, 50},
      {"select_unique_runs4", prim::select_unique, 0},
      {"flagged_u32flags_50", prim::select_flagged, 50, false, flag_type::u32},
      {"partition_u8flags_50", prim::partition_flagged, 50, false, flag_type::u8},
      {"partition_u32flags_50", prim::partition_flagged, 50, false, flag_type::u32}};
  // counting-iterator items (the indices of the selected items): every flag type at 1, 50 and 99 %
  const std::pair<flag_type, const char*> flag_names[] = {
      {flag_type::u8, "u8"}, {flag_type::b8, "bool"}, {flag_type::u32, "u32"}, {flag_type::i32, "i32"}};
  for (const auto& [f, fname] : flag_names)
    for (int pc : {1, 50, 99})
      cases.push_back({std::string("iota_flagged_") + fname + "_" + std::to_string(pc), prim::select_flagged,
                       pc, true, f});
  for (int pc : {1, 50, 99}) cases.push_back({"iota_if_" + std::to_string(pc), prim::select_if, pc, true});
  for (int pc : {1, 50, 99})
    cases.push_back({"iota_partition_" + std::to_string(pc), prim::partition, pc, true});
  for (const auto& [f, fname] : flag_names)
    for (int pc : {1, 50, 99})
      cases.push_back({std::string("iota_partition_") + fname + "_" + std::to_string(pc),
                       prim::partition_flagged, pc, true, f});
  for (const auto& c : cases) {
    if (!only.empty() && c.name != only && c.name.rfind(only, 0) != 0) continue;
    // inputs: random u32 (runs of exactly 4 for unique), flags selecting c.percent % (u8, and widened)
    fill_u32<<<2048, 256>>>(g.in, static_cast<std::int64_t>(g.capacity), 7,
                            c.p == prim::select_unique ? 4 : 1);
    fill_flags<<<2048, 256>>>(g.flags, g.in, static_cast<std::int64_t>(g.capacity),
                              static_cast<std::uint32_t>((std::uint64_t{1} << 32) * c.percent / 100));
    widen_flags<<<2048, 256>>>(g.flags32, g.flags, static_cast<std::int64_t>(g.capacity));
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    for (int l = min_log2; l <= max_log2; l += 2) {
      bench(c, g, std::int64_t{1} << l, forms);
      std::fprintf(stderr, "%s 2^%d done\n", c.name.c_str(), l);
    }
  }
  // ---- table: per op, n, method: carry vs the better CUB path, fraction of copy ----
  FILE* f = std::fopen(csv.c_str(), "w");
  if (f) std::fprintf(f, "# %s\n", bench_banner(cccl_version()).c_str());
  if (f) std::fprintf(f, "op,impl,type,n,median_us,gbps,vs_cub,frac_copy,method\n");
  std::printf("%-20s %-20s %12s %-13s %10s %8s %8s %9s\n", "op", "impl", "n", "method", "us", "GB/s",
              "vs cub", "of copy");
  for (const auto& r : rows) {
    double cub = 0, copy = 0;
    for (const auto& o : rows)
      if (o.op == r.op && o.n == r.n && o.method == r.method) {
        if (o.impl.rfind("cub", 0) == 0 && (cub == 0 || o.us < cub)) cub = o.us;
        if (o.impl == "memcpy") copy = o.us;
      }
    const double gbps = r.bytes / r.us / 1e3;
    const double copy_gbps = copy > 0 ? 8.0 * r.n / copy / 1e3 : 0; // a copy moves 8 bytes an item
    std::printf("%-20s %-20s %12lld %-13s %10.2f %8.1f %8.3f %9.3f\n", r.op.c_str(), r.impl.c_str(),
                static_cast<long long>(r.n), r.method.c_str(), r.us, gbps, cub / r.us, gbps / copy_gbps);
    if (f)
      std::fprintf(f, "%s,%s,u32,%lld,%.2f,%.1f,%.4f,%.4f,%s\n", r.op.c_str(), r.impl.c_str(),
                   static_cast<long long>(r.n), r.us, gbps, cub / r.us, gbps / copy_gbps, r.method.c_str());
  }
  if (f) std::fclose(f);
  return 0;
}
