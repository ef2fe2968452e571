// `carry dist`: a distributed scan, compaction, histogram or sort over N local GPUs (one process, a thread a
// rank), checked against one GPU's carry on the whole input, timed against it.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <carry/apps/distributed.cuh>
#include <carry/apps/histogram.cuh>
#include <carry/compact/device_select.cuh>
#include <carry/scan/device_scan.cuh>

#include "tool.hpp"

namespace {

const char* usage =
    "carry dist - carry::dist over the GPUs of this machine (NCCL), checked against one GPU's carry\n"
    "\n"
    "usage: carry dist scan|select|histogram|sort [options]\n"
    "  One process drives --gpus GPUs (a thread a rank, communicators from ncclCommInitAll); the input,\n"
    "  generated on each GPU from the global index, is sharded evenly. The result is checked item for\n"
    "  item against carry's single-GPU call on the whole input (on GPU 0), and both are timed.\n"
    "  scan       dist::inclusive_sum of u32 (each rank: its shard's total, one all-gather, its scan)\n"
    "  select     dist::select_if of u32, about half kept (output sharded, counts and offsets reported)\n"
    "  histogram  dist::histogram_even of u32, 256 bins (each rank counts, one all-reduce)\n"
    "  sort       dist::sort_keys of u32 (carry's sort of each shard, splitters from samples of the sorted\n"
    "             shards, an exchange by grouped send/recv, a stable merge of the runs that arrived; raw\n"
    "             exchanges go in slices, each merged on a side stream as it arrives); the collective\n"
    "             alone: an all-to-all of the same bytes by NCCL's grouped send/recv\n"
    "\n"
    "options:\n"
    "  --gpus N            ranks (default: every visible GPU; at least 2)\n"
    "  --n N               total items (default 2^28; 64-bit, > 2^31 works)\n"
    "  --reps R            timed repetitions, median reported (default 10)\n"
    "  --pairs             sort: dist::sort_pairs, u32 values (each key's global index) with the keys\n"
    "  --keys K            sort: uniform (default), equal (every key the same) or skewed (7 in 8 keys below\n"
    "                      2^12, the rest uniform)\n"
    "  --coding C          sort: how the sorted parts' keys travel: auto (default: delta-coded from the rank\n"
    "                      counts where that measured faster, but raw in slices where a side stream takes\n"
    "                      them so), delta (blocks of 128 keys as their first key and the steps between them\n"
    "                      in the fewest bits) or raw (as they are)\n"
    "  --side S            sort: on (default: each rank lends a side stream, dist::side_stream: a raw exchange\n"
    "                      travels there in slices, each merged as it arrives) or off (exchange, then merge)\n"
    "  --slices N          sort with a side stream: the slices of the exchange (default 0: the tuned count)\n"
    "  --csv               print the results as CSV (primitive,impl,gpus,n,median_us,gitems,speedup,collective_us)\n"
    "  --help              this text\n"
    "\n"
    "Prints the time a call of one GPU and of the distributed call take (--reps calls back to back on every\n"
    "rank, then every rank's stream synchronised: the wall time over --reps, median of 5 such blocks after\n"
    "one of warm-up), the items per second, the speed-up, and the time of the call's collective alone\n"
    "(the same NCCL call on the same bytes, timed the same way). sort also prints each rank's phases (CUDA\n"
    "events at its stage boundaries: local sort, splitters and counts, exchange, merge (with a side stream:\n"
    "the last slice's, the others run during the exchange); median of --reps calls)\n"
    "and the exchange's bandwidth against the all-to-all alone (--csv: as '# phases' comment lines).\n"
    "Run with NCCL_NVLS_ENABLE=0 where NVLink multicast is unavailable.\n"
    "exit status: 0 checked and timed; 1 mismatch or CUDA/NCCL error; 2 bad usage, fewer than 2 GPUs\n";

struct config {
  std::string primitive;
  int gpus = 0, reps = 10;
  std::int64_t n = std::int64_t{1} << 28;
  bool csv = false, pairs = false;
  std::string keys = "uniform", coding = "auto", side = "on";
  int slices = 0;
};

// item i: a hash of its index (mode 1: 42 everywhere; 2: skewed, 7 in 8 below 2^12; 3: the index itself)
__global__ void fill(std::uint32_t* out, std::int64_t n, std::int64_t first, int mode = 0) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t x = static_cast<std::uint64_t>(first + i) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    const auto h = static_cast<std::uint32_t>(x);
    out[i] = mode == 1   ? 42u
             : mode == 2 ? ((h & 7u) == 0u ? h : h >> 20)
             : mode == 3 ? static_cast<std::uint32_t>(first + i)
                         : h;
  }
}

struct half_kept {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0u; }
};

/// The median over 5 blocks (after one block of warm-up) of a block's wall time divided by --reps:
/// block(reps) enqueues reps calls back to back on every rank and waits for them.
template <class F>
double per_call_us(int reps, F&& block) {
  std::vector<double> t;
  for (int b = 0; b < 6; ++b) {
    const auto a = std::chrono::steady_clock::now();
    block(reps);
    const auto z = std::chrono::steady_clock::now();
    if (b > 0) t.push_back(std::chrono::duration<double, std::micro>(z - a).count() / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct buffers { // one rank's (or the single GPU's)
  std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;
  std::uint32_t* vin = nullptr; // sort --pairs: values
  std::uint32_t* vout = nullptr;
  unsigned long long* hist = nullptr;
  std::int64_t* count = nullptr;
  carry::dist::shard_info* info = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  void release() {
    for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(hist),
                    static_cast<void*>(count), static_cast<void*>(info), temp, static_cast<void*>(vin),
                    static_cast<void*>(vout)})
      cudaFree(p);
  }
};

constexpr int bins = 256;

} // namespace

int carry_tool::dist_main(int argc, char** argv) {
  config c;
  if (argc >= 1 && argv[0][0] != '-') {
    c.primitive = argv[0];
    --argc;
    ++argv;
  }
  const int parsed =
      parse_options("dist", usage,
                    {whole("--gpus", 2, 64, c.gpus), count("--n", c.n), whole("--reps", 1, 100000, c.reps),
                     flag("--csv", c.csv), flag("--pairs", c.pairs), text("--keys", c.keys),
                     text("--coding", c.coding), text("--side", c.side), whole("--slices", 0, 64, c.slices)},
                    argc, argv);
  if (parsed >= 0) return parsed;
  if (c.primitive != "scan" && c.primitive != "select" && c.primitive != "histogram" &&
      c.primitive != "sort") {
    std::fprintf(stderr, "carry dist: name scan, select, histogram or sort (see carry dist --help)\n");
    return 2;
  }
  const int key_mode = c.keys == "uniform" ? 0 : c.keys == "equal" ? 1 : c.keys == "skewed" ? 2 : -1;
  const auto coding = c.coding == "delta" ? carry::dist::detail::key_coding::delta
                      : c.coding == "raw" ? carry::dist::detail::key_coding::raw
                                          : carry::dist::detail::key_coding::by_policy;
  const bool coding_named = c.coding != "auto", side_off = c.side == "off";
  if (key_mode < 0 || (coding_named && c.coding != "delta" && c.coding != "raw") ||
      (c.side != "on" && !side_off) || (side_off && c.slices > 0) ||
      ((c.pairs || coding_named || key_mode != 0 || side_off || c.slices > 0) && c.primitive != "sort")) {
    std::fprintf(
        stderr,
        "carry dist: --keys is uniform, equal or skewed; --coding is auto, delta or raw; --side is on "
        "or off (--slices needs it on); --pairs, --keys, --coding, --side and --slices go with sort\n");
    return 2;
  }
  const bool pairs = c.pairs;
  const std::string label = c.primitive + (pairs ? "_pairs" : "") + (key_mode != 0 ? "_" + c.keys : "") +
                            (coding_named ? "_" + c.coding : "") + (side_off ? "_noside" : "") +
                            (c.slices > 0 ? "_s" + std::to_string(c.slices) : "");
  if (!print_gpu()) return 2;
  int visible = 0;
  CHECK_CUDA(cudaGetDeviceCount(&visible));
  if (c.gpus == 0) c.gpus = visible;
  if (visible < 2 || c.gpus > visible) {
    std::printf("carry dist: %d GPU(s) visible, %d asked for: the distributed calls need at least 2\n",
                visible, c.gpus < 2 ? 2 : c.gpus);
    return 2;
  }
  const int p = c.gpus;
  const std::int64_t n = c.n;
  const bool scan = c.primitive == "scan", select = c.primitive == "select", sort = c.primitive == "sort";
  const std::int64_t capacity = n / p + n / 8 + 4096; // the sort's output room a rank
  // ---- one GPU: the whole input on GPU 0 ----
  CHECK_CUDA(cudaSetDevice(0));
  buffers one;
  CHECK_CUDA(cudaMalloc(&one.in, static_cast<std::size_t>(n) * 4));
  CHECK_CUDA(cudaMalloc(&one.out, static_cast<std::size_t>(n) * 4));
  CHECK_CUDA(cudaMalloc(&one.hist, bins * sizeof(unsigned long long)));
  CHECK_CUDA(cudaMalloc(&one.count, sizeof(std::int64_t)));
  if (pairs) {
    CHECK_CUDA(cudaMalloc(&one.vin, static_cast<std::size_t>(n) * 4));
    CHECK_CUDA(cudaMalloc(&one.vout, static_cast<std::size_t>(n) * 4));
    fill<<<4096, 256>>>(one.vin, n, 0, 3);
  }
  fill<<<4096, 256>>>(one.in, n, 0, sort ? key_mode : 0);
  auto one_call = [&](void* t, std::size_t& b) -> cudaError_t {
    if (scan) return carry::inclusive_sum(t, b, static_cast<const std::uint32_t*>(one.in), one.out, n);
    if (select)
      return carry::select_if(t, b, static_cast<const std::uint32_t*>(one.in), one.out, one.count, n,
                              half_kept{});
    if (sort && pairs)
      return carry::sort_pairs(t, b, static_cast<const std::uint32_t*>(one.in), one.out,
                               static_cast<const std::uint32_t*>(one.vin), one.vout, n);
    if (sort) return carry::sort_keys(t, b, static_cast<const std::uint32_t*>(one.in), one.out, n);
    return carry::histogram_even(t, b, static_cast<const std::uint32_t*>(one.in), one.hist, bins, 0u,
                                 0xFFFFFFFFu, n);
  };
  CHECK_CUDA(one_call(nullptr, one.temp_bytes));
  CHECK_CUDA(cudaMalloc(&one.temp, one.temp_bytes));
  const double t_one = per_call_us(c.reps, [&](int reps) {
    for (int i = 0; i < reps; ++i) {
      std::size_t b = one.temp_bytes;
      CHECK_CUDA(one_call(one.temp, b));
    }
    CHECK_CUDA(cudaDeviceSynchronize());
  });
  std::int64_t one_count = 0;
  CHECK_CUDA(cudaMemcpy(&one_count, one.count, sizeof(one_count), cudaMemcpyDeviceToHost));
  // ---- p ranks, even shards ----
  carry::dist::local_group g;
  CHECK_CUDA(carry::dist::local_group::create(p, g));
  std::vector<buffers> rank(static_cast<std::size_t>(p));
  std::vector<carry::dist::detail::shard_range> shard(static_cast<std::size_t>(p));
  // rank r's sort (keys, or pairs), marks: the phase events (null: none)
  auto sort_call = [&](int r, void* t, std::size_t& b, const carry::dist::detail::sort_marks* marks) {
    const auto& k = rank[static_cast<std::size_t>(r)];
    const std::int64_t m = shard[static_cast<std::size_t>(r)].end - shard[static_cast<std::size_t>(r)].begin;
    const std::uint32_t* in = k.in;
    using N = carry::radix_detail::null_value;
    const carry::dist::side_stream* side = side_off ? nullptr : &g.side(r);
    return pairs
               ? carry::dist::detail::dispatch_sort(t, b, in, k.out, static_cast<const std::uint32_t*>(k.vin),
                                                    k.vout, capacity, k.info, m, false, g.comm(r),
                                                    g.stream(r), marks, coding, side, c.slices)
               : carry::dist::detail::dispatch_sort(t, b, in, k.out, static_cast<const N*>(nullptr),
                                                    static_cast<N*>(nullptr), capacity, k.info, m, false,
                                                    g.comm(r), g.stream(r), marks, coding, side, c.slices);
  };
  auto dist_call = [&](int r, void* t, std::size_t& b) -> cudaError_t {
    const auto& k = rank[static_cast<std::size_t>(r)];
    const std::int64_t m = shard[static_cast<std::size_t>(r)].end - shard[static_cast<std::size_t>(r)].begin;
    const std::uint32_t* in = k.in;
    if (scan) return carry::dist::inclusive_sum(t, b, in, k.out, m, g.comm(r), g.stream(r));
    if (select)
      return carry::dist::select_if(t, b, in, k.out, k.info, m, half_kept{}, g.comm(r), g.stream(r));
    if (sort) return sort_call(r, t, b, nullptr);
    return carry::dist::histogram_even(t, b, in, k.hist, bins, 0u, 0xFFFFFFFFu, m, g.comm(r), g.stream(r));
  };
  CHECK_CUDA(g.run([&](int r) {
    auto& k = rank[static_cast<std::size_t>(r)];
    auto& s = shard[static_cast<std::size_t>(r)];
    s = carry::dist::detail::even_shard(n, p, r);
    const auto m = static_cast<std::size_t>(s.end - s.begin);
    const std::size_t out_items = sort ? static_cast<std::size_t>(capacity) : m;
    if (cudaMalloc(&k.in, m * 4 + 4) != cudaSuccess || cudaMalloc(&k.out, out_items * 4 + 4) != cudaSuccess ||
        cudaMalloc(&k.hist, bins * 8) != cudaSuccess ||
        cudaMalloc(&k.info, sizeof(carry::dist::shard_info)) != cudaSuccess)
      return cudaErrorMemoryAllocation;
    if (pairs) {
      if (cudaMalloc(&k.vin, m * 4 + 4) != cudaSuccess ||
          cudaMalloc(&k.vout, out_items * 4 + 4) != cudaSuccess)
        return cudaErrorMemoryAllocation;
      fill<<<4096, 256, 0, g.stream(r)>>>(k.vin, static_cast<std::int64_t>(m), s.begin, 3);
    }
    fill<<<4096, 256, 0, g.stream(r)>>>(k.in, static_cast<std::int64_t>(m), s.begin, sort ? key_mode : 0);
    if (const cudaError_t e = dist_call(r, nullptr, k.temp_bytes); e != cudaSuccess) return e;
    if (const cudaError_t e = cudaMalloc(&k.temp, k.temp_bytes); e != cudaSuccess) return e;
    return cudaStreamSynchronize(g.stream(r));
  }));
  const double t_dist = per_call_us(c.reps, [&](int reps) {
    CHECK_CUDA(g.run([&](int r) {
      for (int i = 0; i < reps; ++i) {
        std::size_t b = rank[static_cast<std::size_t>(r)].temp_bytes;
        if (const cudaError_t e = dist_call(r, rank[static_cast<std::size_t>(r)].temp, b); e != cudaSuccess)
          return e;
      }
      return cudaStreamSynchronize(g.stream(r));
    }));
  });
  // ---- the collective alone (the same bytes, timed the same way) ----
  const double t_coll = per_call_us(c.reps, [&](int reps) {
    CHECK_CUDA(g.run([&](int r) {
      auto& k = rank[static_cast<std::size_t>(r)];
      for (int i = 0; i < reps; ++i) {
        ncclResult_t res;
        if (sort) { // an all-to-all of the shard: an even part to every other rank
          const std::size_t part = static_cast<std::size_t>(n / p / p) * 4;
          ncclGroupStart();
          for (int j = 0; j < p; ++j)
            if (j != r) {
              ncclSend(k.in + static_cast<std::size_t>(j) * (part / 4), part, ncclUint8, j, g.comm(r).get(),
                       g.stream(r));
              ncclRecv(k.out + static_cast<std::size_t>(j) * (part / 4), part, ncclUint8, j, g.comm(r).get(),
                       g.stream(r));
              if (pairs) {
                ncclSend(k.vin + static_cast<std::size_t>(j) * (part / 4), part, ncclUint8, j,
                         g.comm(r).get(), g.stream(r));
                ncclRecv(k.vout + static_cast<std::size_t>(j) * (part / 4), part, ncclUint8, j,
                         g.comm(r).get(), g.stream(r));
              }
            }
          res = ncclGroupEnd();
        } else if (c.primitive == "histogram")
          res = ncclAllReduce(k.hist, k.hist, bins, ncclUint64, ncclSum, g.comm(r).get(), g.stream(r));
        else // scan: p totals of 8 bytes; select: p counts
          res = ncclAllGather(k.temp, static_cast<char*>(k.temp) + 1024, 8, ncclUint8, g.comm(r).get(),
                              g.stream(r));
        if (res != ncclSuccess) return carry::dist::from_nccl(res);
      }
      return cudaStreamSynchronize(g.stream(r));
    }));
  });
  // ---- the sort's phases: CUDA events at its stage boundaries on every rank, a median over --reps calls
  // each; every call starts on all ranks together (one run a call, every rank's stream synchronised after
  // it), so no rank's phase holds another's lag from the call before ----
  std::vector<std::array<double, 4>> phase(static_cast<std::size_t>(p), std::array<double, 4>{});
  if (sort) {
    std::vector<carry::dist::detail::sort_marks> marks(static_cast<std::size_t>(p));
    std::vector<std::vector<std::array<float, 4>>> t(static_cast<std::size_t>(p));
    CHECK_CUDA(g.run([&](int r) {
      for (auto& e : marks[static_cast<std::size_t>(r)].at)
        if (const cudaError_t err = cudaEventCreate(&e); err != cudaSuccess) return err;
      return cudaSuccess;
    }));
    for (int i = 0; i <= c.reps; ++i) // the first call warms up
      CHECK_CUDA(g.run([&](int r) {
        auto& k = rank[static_cast<std::size_t>(r)];
        const auto& mk = marks[static_cast<std::size_t>(r)];
        std::size_t b = k.temp_bytes;
        cudaError_t err = sort_call(r, k.temp, b, &mk);
        if (err == cudaSuccess) err = cudaStreamSynchronize(g.stream(r));
        if (err != cudaSuccess || i == 0) return err;
        std::array<float, 4> x{};
        for (int j = 0; j < 4 && err == cudaSuccess; ++j)
          err = cudaEventElapsedTime(&x[j], mk.at[j], mk.at[j + 1]);
        t[static_cast<std::size_t>(r)].push_back(x);
        return err;
      }));
    CHECK_CUDA(g.run([&](int r) {
      for (auto& e : marks[static_cast<std::size_t>(r)].at) cudaEventDestroy(e);
      for (int j = 0; j < 4; ++j) {
        std::vector<double> v;
        for (const auto& x : t[static_cast<std::size_t>(r)])
          v.push_back(1e3 * x[static_cast<std::size_t>(j)]);
        std::sort(v.begin(), v.end());
        phase[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)] = v[v.size() / 2];
      }
      return cudaSuccess;
    }));
  }
  // ---- check against the single GPU (the collective-alone runs changed nothing checked) ----
  CHECK_CUDA(g.run([&](int r) {
    std::size_t b = rank[static_cast<std::size_t>(r)].temp_bytes;
    if (const cudaError_t e = dist_call(r, rank[static_cast<std::size_t>(r)].temp, b); e != cudaSuccess)
      return e;
    return cudaStreamSynchronize(g.stream(r));
  }));
  bool ok = true;
  std::vector<std::uint32_t> want, got, want_v, got_v;
  if (!c.primitive.empty() && c.primitive != "histogram") {
    const std::int64_t total = scan || sort ? n : one_count;
    want.resize(static_cast<std::size_t>(total));
    CHECK_CUDA(cudaMemcpy(want.data(), one.out, want.size() * 4, cudaMemcpyDeviceToHost));
    if (pairs) {
      want_v.resize(want.size());
      CHECK_CUDA(cudaMemcpy(want_v.data(), one.vout, want_v.size() * 4, cudaMemcpyDeviceToHost));
    }
  }
  std::vector<unsigned long long> want_h(bins), got_h(bins);
  CHECK_CUDA(cudaMemcpy(want_h.data(), one.hist, sizeof(unsigned long long) * bins, cudaMemcpyDeviceToHost));
  for (int r = 0; r < p && ok; ++r) {
    const auto& k = rank[static_cast<std::size_t>(r)];
    const auto& s = shard[static_cast<std::size_t>(r)];
    if (c.primitive == "histogram") {
      CHECK_CUDA(cudaMemcpy(got_h.data(), k.hist, sizeof(unsigned long long) * bins, cudaMemcpyDeviceToHost));
      ok = got_h == want_h;
      continue;
    }
    std::int64_t offset = s.begin, cnt = s.end - s.begin;
    if (select || sort) {
      carry::dist::shard_info info;
      CHECK_CUDA(cudaMemcpy(&info, k.info, sizeof(info), cudaMemcpyDeviceToHost));
      ok = info.total == (sort ? n : one_count);
      offset = info.offset;
      cnt = info.count;
    }
    got.resize(static_cast<std::size_t>(cnt));
    CHECK_CUDA(cudaMemcpy(got.data(), k.out, got.size() * 4, cudaMemcpyDeviceToHost));
    ok = ok && offset + cnt <= static_cast<std::int64_t>(want.size()) &&
         std::equal(got.begin(), got.end(), want.begin() + offset);
    if (ok && pairs) {
      got_v.resize(got.size());
      CHECK_CUDA(cudaMemcpy(got_v.data(), k.vout, got_v.size() * 4, cudaMemcpyDeviceToHost));
      ok = std::equal(got_v.begin(), got_v.end(), want_v.begin() + offset);
    }
  }
  const double speedup = t_one / t_dist;
  if (c.csv) {
    std::printf("%s,carry,1,%lld,%.1f,%.3f,1.000,0\n", label.c_str(), static_cast<long long>(n), t_one,
                static_cast<double>(n) / t_one / 1e3);
    std::printf("%s,carry_dist,%d,%lld,%.1f,%.3f,%.3f,%.1f\n", label.c_str(), p, static_cast<long long>(n),
                t_dist, static_cast<double>(n) / t_dist / 1e3, speedup, t_coll);
    for (int r = 0; sort && r < p;
         ++r) { // comment lines: the phases (local sort, splitters and counts, exchange, merge)
      const auto& x = phase[static_cast<std::size_t>(r)];
      std::printf("# phases,%s,rank %d,%.1f,%.1f,%.1f,%.1f\n", label.c_str(), r, x[0], x[1], x[2], x[3]);
    }
  } else {
    std::printf("carry dist %s of %lld u32 over %d GPUs (even shards): against one GPU's carry: %s\n",
                label.c_str(), static_cast<long long>(n), p, ok ? "ok" : "FAILED");
    std::printf("\n%-12s %6s %12s %10s %9s\n", "impl", "gpus", "median_us", "Gitems/s", "speedup");
    std::printf("%-12s %6d %12.1f %10.3f %9.3f\n", "carry", 1, t_one, static_cast<double>(n) / t_one / 1e3,
                1.0);
    std::printf("%-12s %6d %12.1f %10.3f %9.3f\n", "carry_dist", p, t_dist,
                static_cast<double>(n) / t_dist / 1e3, speedup);
    if (sort) {
      const double bytes = static_cast<double>(n / p / p) * (pairs ? 8 : 4) * (p - 1); // a rank's sends
      std::printf(
          "collective alone (all-to-all of the shards by grouped send/recv): %.1f us, %.1f GB/s a rank\n",
          t_coll, bytes / t_coll / 1e3);
      double slowest_exchange = 0;
      for (int r = 0; r < p; ++r) {
        const auto& x = phase[static_cast<std::size_t>(r)];
        std::printf(
            "rank %d phases (us, median of %d calls): local sort %.1f, splitters and counts %.1f, exchange "
            "%.1f, merge %.1f\n",
            r, c.reps, x[0], x[1], x[2], x[3]);
        slowest_exchange = std::max(slowest_exchange, x[2]);
      }
      const bool coded = carry::dist::detail::codes_keys(coding, p, pairs);
      if (c.keys == "uniform" && !coded)
        std::printf(
            "exchange inside the sort: %.1f GB/s a rank (about the same bytes: even key ranges), %.2f of the "
            "all-to-all alone\n",
            bytes / slowest_exchange / 1e3, t_coll / slowest_exchange);
      else if (c.keys == "uniform")
        std::printf(
            "exchange inside the sort, keys delta-coded (fewer bytes than the all-to-all alone moves; "
            "decoding included): %.2f of the all-to-all's time\n",
            slowest_exchange / t_coll);
    } else {
      std::printf("collective alone (%s): %.1f us\n",
                  c.primitive == "histogram" ? "all-reduce of 256 u64" : "all-gather of 8 B a rank", t_coll);
    }
  }
  for (auto& k : rank) k.release();
  one.release();
  return ok ? 0 : 1;
}
