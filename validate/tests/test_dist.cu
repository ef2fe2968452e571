// GPU tests of carry::dist over 2 (and 4) local GPUs, one thread a rank: scans (sums, a non-commutative
// operator, float determinism), compactions and histograms against the CPU and the single-GPU carry
// result, uneven and empty shards, n = 0 everywhere, graph capture of every rank's call, bad arguments; the
// sort against a CPU stable sort (key distributions, both directions, balance).
#include <catch2/catch.hpp>

#include <carry/scan/device_scan.cuh>

#include "tests/common/apps_reference.hpp"
#include "tests/common/dist_harness.cuh"
#include "tests/common/radix_reference.hpp"

using namespace carry_validate;
namespace dist = carry::dist;

namespace {

struct affine { // x -> a x + b; composition is associative, not commutative
  std::uint32_t a, b;
  bool operator==(const affine& o) const { return a == o.a && b == o.b; }
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const {
    return {f.a * g.a, f.b * g.a + g.b};
  }
};
struct third {
  __host__ __device__ bool operator()(std::uint32_t x) const { return x % 3 == 0; }
};

template <bool EXCLUSIVE, class T, class Op>
std::vector<T> cpu_scan(const std::vector<T>& in, Op op, T init) {
  std::vector<T> out(in.size());
  T acc = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (EXCLUSIVE) {
      out[i] = acc;
      acc = op(acc, in[i]);
    } else {
      acc = i == 0 ? in[0] : op(acc, in[i]);
      out[i] = acc;
    }
  }
  return out;
}

/// One distributed scan over `sizes` against `want`; returns the gathered output.
template <bool EXCLUSIVE, class T, class Op>
std::vector<T> run_scan(dist::local_group& g, const std::vector<T>& all,
                        const std::vector<std::int64_t>& sizes, Op op, T init, carry::scan_options opt = {}) {
  sharded<T> in(sizes), out(sizes);
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> temp(sizes.size());
  REQUIRE(g.run([&](int r) {
    in.make(r, &all);
    out.make(r);
    return with_dirty_temp(temp[static_cast<std::size_t>(r)], [&](void* t, std::size_t& b) {
      if constexpr (EXCLUSIVE)
        return dist::exclusive_scan(t, b, static_cast<const T*>(in.ptr(r)), out.ptr(r), op, init, in.size(r),
                                    opt, g.comm(r), g.stream(r));
      else
        return dist::inclusive_scan(t, b, static_cast<const T*>(in.ptr(r)), out.ptr(r), op, in.size(r), opt,
                                    g.comm(r), g.stream(r));
    });
  }) == cudaSuccess);
  REQUIRE(g.synchronize() == cudaSuccess);
  REQUIRE(out.guards_intact());
  return out.gather();
}

std::vector<std::int64_t> totals() {
  return {0, 1, 7, 4097, 1000003, (1 << 22) + 5};
}

} // namespace

TEST_CASE("dist scans of u32 sums: every shard layout, against the CPU and one GPU's carry", "[dist]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : totals()) {
      const auto all =
          random_bits<std::uint32_t>(static_cast<std::size_t>(total), static_cast<std::uint64_t>(total) + 5);
      // one GPU's carry on the concatenated input
      std::vector<std::uint32_t> one(all.size());
      if (total > 0) {
        CARRY_CUDA_OR_DIE(cudaSetDevice(0));
        device_buffer<std::uint32_t> d_in(all.size()), d_out(all.size());
        d_in.upload(all);
        std::size_t bytes = 0;
        CARRY_CUDA_OR_DIE(carry::inclusive_sum(nullptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr),
                                               d_out.ptr, total));
        device_buffer<unsigned char> t(bytes);
        CARRY_CUDA_OR_DIE(carry::inclusive_sum(t.ptr, bytes, static_cast<const std::uint32_t*>(d_in.ptr),
                                               d_out.ptr, total));
        one = d_out.download(all.size());
      }
      REQUIRE(one == cpu_scan<false>(all, carry::sum{}, 0u));
      for (const auto& sizes : shard_layouts(total, ranks)) {
        INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0] << ", last "
                      << sizes.back());
        REQUIRE(run_scan<false>(g, all, sizes, carry::sum{}, 0u) == one);
        REQUIRE(run_scan<true>(g, all, sizes, carry::sum{}, 10u) == cpu_scan<true>(all, carry::sum{}, 10u));
      }
    }
  }
}

TEST_CASE("dist scans of a non-commutative operator (affine maps): rank order is kept", "[dist]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : {std::int64_t{3}, std::int64_t{65537}, std::int64_t{1000003}}) {
      const auto bits = random_bits<std::uint32_t>(2 * static_cast<std::size_t>(total), 9);
      std::vector<affine> all(static_cast<std::size_t>(total));
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = {bits[2 * i] | 1u, bits[2 * i + 1]};
      for (const auto& sizes : shard_layouts(total, ranks)) {
        INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0]);
        REQUIRE(run_scan<false>(g, all, sizes, compose{}, affine{1, 0}) ==
                cpu_scan<false>(all, compose{}, affine{1, 0}));
        REQUIRE(run_scan<true>(g, all, sizes, compose{}, affine{3, 7}) ==
                cpu_scan<true>(all, compose{}, affine{3, 7}));
      }
    }
  }
}

TEST_CASE("dist float sums: the same bits every run (deterministic), close to the CPU", "[dist]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    const std::int64_t total = 3000017;
    std::vector<float> all(static_cast<std::size_t>(total));
    const auto bits = random_bits<std::uint32_t>(all.size(), 21);
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<float>(bits[i] % 2001) / 1000.0f - 1.0f;
    carry::scan_options opt;
    opt.deterministic = true;
    const auto sizes = shard_layouts(total, ranks)[1];
    const auto first = run_scan<false>(g, all, sizes, carry::sum{}, 0.0f, opt);
    for (int rep = 0; rep < 3; ++rep)
      REQUIRE(same_bits(run_scan<false>(g, all, sizes, carry::sum{}, 0.0f, opt), first));
    double acc = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      acc += all[i];
      REQUIRE(std::abs(first[i] - acc) <= 1e-2 + 1e-4 * std::abs(acc));
    }
  }
}

TEST_CASE("dist select_if, select_flagged, partition: sharded outputs and shard_info", "[dist]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : totals()) {
      const auto all =
          random_bits<std::uint32_t>(static_cast<std::size_t>(total), static_cast<std::uint64_t>(total) + 1);
      std::vector<std::uint8_t> flags(all.size());
      for (std::size_t i = 0; i < all.size(); ++i)
        flags[i] = static_cast<std::uint8_t>((all[i] >> 7) % 4 == 0 ? 0 : 2);
      for (const auto& sizes : shard_layouts(total, ranks)) {
        INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0]);
        for (int form = 0; form < 3; ++form) {
          INFO("form " << form);
          sharded<std::uint32_t> in(sizes), out(sizes);
          sharded<std::uint8_t> fl(sizes);
          std::vector<std::unique_ptr<device_buffer<dist::shard_info>>> info(sizes.size());
          std::vector<std::unique_ptr<device_buffer<unsigned char>>> temp(sizes.size());
          REQUIRE(g.run([&](int r) {
            in.make(r, &all);
            out.make(r);
            fl.make(r, &flags);
            info[static_cast<std::size_t>(r)] = std::make_unique<device_buffer<dist::shard_info>>(1);
            info[static_cast<std::size_t>(r)]->poison();
            dist::shard_info* s = info[static_cast<std::size_t>(r)]->ptr;
            const std::uint32_t* x = in.ptr(r);
            return with_dirty_temp(temp[static_cast<std::size_t>(r)], [&](void* t, std::size_t& b) {
              if (form == 0)
                return dist::select_if(t, b, x, out.ptr(r), s, in.size(r), third{}, g.comm(r), g.stream(r));
              if (form == 1)
                return dist::select_flagged(t, b, x, static_cast<const std::uint8_t*>(fl.ptr(r)), out.ptr(r),
                                            s, in.size(r), g.comm(r), g.stream(r));
              return dist::partition(t, b, x, out.ptr(r), s, in.size(r), third{}, g.comm(r), g.stream(r));
            });
          }) == cudaSuccess);
          REQUIRE(g.synchronize() == cudaSuccess);
          std::int64_t offset = 0, global = 0;
          std::vector<std::vector<std::uint32_t>> want(sizes.size());
          for (std::size_t r = 0; r < sizes.size(); ++r) {
            std::vector<std::uint32_t> kept, dropped;
            for (std::int64_t i = in.offsets[r]; i < in.offsets[r] + sizes[r]; ++i) {
              const auto k = static_cast<std::size_t>(i);
              const bool sel = form == 1 ? flags[k] != 0 : third{}(all[k]);
              (sel ? kept : dropped).push_back(all[k]);
            }
            want[r] = kept;
            if (form == 2) want[r].insert(want[r].end(), dropped.begin(), dropped.end()); // stable
            global += static_cast<std::int64_t>(kept.size());
          }
          for (std::size_t r = 0; r < sizes.size(); ++r) {
            const auto s = info[r]->download(1)[0];
            const auto kept =
                static_cast<std::int64_t>(form == 2 ? want[r].size() - (sizes[r] - s.count) : want[r].size());
            REQUIRE(s.count == kept);
            REQUIRE(s.offset == offset);
            REQUIRE(s.total == global);
            offset += s.count;
            REQUIRE(out.bufs[r]->download(want[r].size()) == want[r]);
          }
          REQUIRE(out.guards_intact());
        }
      }
    }
  }
}

TEST_CASE("dist histogram_even and histogram_offsets: every rank gets the global counts", "[dist]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : totals()) {
      auto all = random_bits<std::uint32_t>(static_cast<std::size_t>(total), 77);
      for (auto& x : all) x %= 1100; // some past the upper level
      const int bins = 37;
      std::vector<std::uint64_t> hist(bins, 0), offs(bins + 1, 0);
      for (auto x : all)
        if (x < 1000) ++hist[static_cast<std::size_t>(static_cast<std::uint64_t>(x) * bins / 1000)];
      for (int b = 0; b < bins; ++b)
        offs[static_cast<std::size_t>(b) + 1] =
            offs[static_cast<std::size_t>(b)] + hist[static_cast<std::size_t>(b)];
      for (const auto& sizes : shard_layouts(total, ranks)) {
        INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0]);
        sharded<std::uint32_t> in(sizes);
        std::vector<std::unique_ptr<device_buffer<std::uint64_t>>> h(sizes.size()), o(sizes.size());
        std::vector<std::unique_ptr<device_buffer<unsigned char>>> t1(sizes.size()), t2(sizes.size());
        REQUIRE(g.run([&](int r) {
          const auto k = static_cast<std::size_t>(r);
          in.make(r, &all);
          h[k] = std::make_unique<device_buffer<std::uint64_t>>(bins, 4);
          o[k] = std::make_unique<device_buffer<std::uint64_t>>(bins + 1, 4);
          h[k]->poison();
          o[k]->poison();
          const std::uint32_t* x = in.ptr(r);
          if (const cudaError_t e = with_dirty_temp(t1[k],
                                                    [&](void* t, std::size_t& b) {
                                                      return dist::histogram_even(t, b, x, h[k]->ptr, bins,
                                                                                  0u, 1000u, in.size(r),
                                                                                  g.comm(r), g.stream(r));
                                                    });
              e != cudaSuccess)
            return e;
          return with_dirty_temp(t2[k], [&](void* t, std::size_t& b) {
            return dist::histogram_offsets(t, b, x, o[k]->ptr, bins, 0u, 1000u, in.size(r), g.comm(r),
                                           g.stream(r));
          });
        }) == cudaSuccess);
        REQUIRE(g.synchronize() == cudaSuccess);
        for (std::size_t r = 0; r < sizes.size(); ++r) {
          REQUIRE(h[r]->download(bins) == hist);
          REQUIRE(o[r]->download(bins + 1) == offs);
          REQUIRE(h[r]->guard_intact());
          REQUIRE(o[r]->guard_intact());
        }
      }
    }
  }
}

TEST_CASE("dist calls captured into a CUDA graph on every rank, replayed with new inputs and dirty temp",
          "[dist][graph]") {
  const int bins = 37;
  for (int ranks : dist_rank_counts())
    for (int form = 0; form < 3; ++form) { // exclusive_sum, select_if, histogram_even
      auto& g = *dist_group(ranks);
      const std::int64_t total = 1000003;
      const auto sizes = shard_layouts(total, ranks)[1];
      sharded<std::uint32_t> in(sizes), out(sizes);
      std::vector<std::unique_ptr<device_buffer<unsigned char>>> temp(sizes.size());
      std::vector<std::unique_ptr<device_buffer<dist::shard_info>>> info(sizes.size());
      std::vector<std::unique_ptr<device_buffer<std::uint64_t>>> hist(sizes.size());
      std::vector<cudaGraphExec_t> exec(sizes.size());
      const auto first = random_bits<std::uint32_t>(static_cast<std::size_t>(total), 1);
      REQUIRE(g.run([&](int r) {
        const auto k = static_cast<std::size_t>(r);
        in.make(r, &first);
        out.make(r);
        info[k] = std::make_unique<device_buffer<dist::shard_info>>(1);
        hist[k] = std::make_unique<device_buffer<std::uint64_t>>(bins, 4);
        std::size_t bytes = 0;
        const std::uint32_t* x = in.ptr(r);
        auto call = [&](void* t) {
          if (form == 0)
            return dist::exclusive_sum(t, bytes, x, out.ptr(r), in.size(r), g.comm(r), g.stream(r));
          if (form == 1)
            return dist::select_if(t, bytes, x, out.ptr(r), info[k]->ptr, in.size(r), third{}, g.comm(r),
                                   g.stream(r));
          return dist::histogram_even(t, bytes, x, hist[k]->ptr, bins, 0u, 0xFFFFFFFFu, in.size(r), g.comm(r),
                                      g.stream(r));
        };
        if (const cudaError_t e = call(nullptr); e != cudaSuccess) return e;
        temp[k] = std::make_unique<device_buffer<unsigned char>>(bytes);
        cudaGraph_t graph;
        if (const cudaError_t e = cudaStreamBeginCapture(g.stream(r), cudaStreamCaptureModeThreadLocal);
            e != cudaSuccess)
          return e;
        const cudaError_t called = call(temp[k]->ptr);
        const cudaError_t ended = cudaStreamEndCapture(g.stream(r), &graph);
        if (called != cudaSuccess) return called;
        if (ended != cudaSuccess) return ended;
        const cudaError_t e = cudaGraphInstantiate(&exec[k], graph, 0);
        cudaGraphDestroy(graph);
        return e;
      }) == cudaSuccess);
      for (int rep = 0; rep < 4; ++rep) {
        INFO("ranks " << ranks << ", form " << form << ", replay " << rep);
        const auto all = random_bits<std::uint32_t>(static_cast<std::size_t>(total),
                                                    100 + static_cast<std::uint64_t>(rep));
        REQUIRE(g.run([&](int r) {
          const auto k = static_cast<std::size_t>(r);
          CARRY_CUDA_OR_DIE(cudaMemcpy(in.ptr(r), all.data() + in.offsets[k],
                                       static_cast<std::size_t>(in.size(r)) * 4, cudaMemcpyHostToDevice));
          out.bufs[k]->poison();
          info[k]->poison();
          hist[k]->poison();
          // dirty temp storage before every replay: 0xFF, zeros, the poison, then what replay 2 left
          if (rep < 3)
            CARRY_CUDA_OR_DIE(cudaMemset(temp[k]->ptr,
                                         rep == 0   ? 0xFF
                                         : rep == 1 ? 0
                                                    : poison_byte,
                                         temp[k]->n));
          // the uploads, poison and dirty temp (legacy stream, asynchronous to the host) land before the graph
          // runs on the rank's non-blocking stream: else a late dirty-temp memset can overwrite the look-back
          // state the graph has just cleared (a hang seen with another process on the GPUs)
          CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
          return cudaGraphLaunch(exec[k], g.stream(r));
        }) == cudaSuccess);
        REQUIRE(g.synchronize() == cudaSuccess);
        if (form == 0) REQUIRE(out.gather() == cpu_scan<true>(all, carry::sum{}, 0u));
        if (form == 1) {
          std::int64_t offset = 0;
          for (std::size_t r = 0; r < sizes.size(); ++r) {
            std::vector<std::uint32_t> kept;
            for (std::int64_t i = in.offsets[r]; i < in.offsets[r] + sizes[r]; ++i)
              if (third{}(all[static_cast<std::size_t>(i)])) kept.push_back(all[static_cast<std::size_t>(i)]);
            const auto s = info[r]->download(1)[0];
            REQUIRE(s.count == static_cast<std::int64_t>(kept.size()));
            REQUIRE(s.offset == offset);
            offset += s.count;
            REQUIRE(out.bufs[r]->download(kept.size()) == kept);
          }
        }
        if (form == 2) {
          const auto want = reference_histogram_even<std::uint32_t, std::uint32_t, std::uint64_t>(
              all, bins, 0u, 0xFFFFFFFFu);
          for (std::size_t r = 0; r < sizes.size(); ++r) {
            REQUIRE(hist[r]->download(bins) == want);
            REQUIRE(hist[r]->guard_intact());
          }
        }
        REQUIRE(out.guards_intact());
      }
      for (auto e : exec) cudaGraphExecDestroy(e);
    }
}

TEST_CASE("dist calls: n = 0 everywhere writes the whole-input outputs; bad arguments write nothing",
          "[dist][empty]") {
  auto& g = *dist_group(2);
  std::vector<std::unique_ptr<device_buffer<std::uint32_t>>> in(2), out(2);
  std::vector<std::unique_ptr<device_buffer<dist::shard_info>>> info(2);
  std::vector<std::unique_ptr<device_buffer<std::uint64_t>>> hist(2);
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> temp(2);
  std::vector<cudaError_t> bad(2, cudaSuccess), short_temp(2, cudaSuccess), no_side(2, cudaSuccess);
  REQUIRE(g.run([&](int r) {
    const auto k = static_cast<std::size_t>(r);
    in[k] = std::make_unique<device_buffer<std::uint32_t>>(16);
    out[k] = std::make_unique<device_buffer<std::uint32_t>>(16);
    info[k] = std::make_unique<device_buffer<dist::shard_info>>(1);
    hist[k] = std::make_unique<device_buffer<std::uint64_t>>(4);
    out[k]->poison();
    info[k]->poison();
    hist[k]->poison();
    CARRY_CUDA_OR_DIE(
        cudaDeviceSynchronize()); // the poison lands before the rank's non-blocking stream writes
    const std::uint32_t* x = in[k]->ptr;
    std::size_t bytes = 0;
    if (const cudaError_t e =
            dist::select_if(nullptr, bytes, x, out[k]->ptr, info[k]->ptr, 0, third{}, g.comm(r), g.stream(r));
        e != cudaSuccess)
      return e;
    temp[k] = std::make_unique<device_buffer<unsigned char>>(bytes + (1 << 20));
    std::size_t big = bytes + (1 << 20);
    // bad arguments on every rank: refused before any collective
    bad[k] = dist::inclusive_sum(temp[k]->ptr, big, x, out[k]->ptr, -1, g.comm(r), g.stream(r));
    std::size_t tiny = 1;
    short_temp[k] = dist::select_if(temp[k]->ptr, tiny, x, out[k]->ptr, info[k]->ptr, 16, third{}, g.comm(r),
                                    g.stream(r));
    // a side stream never created (no stream, no events): refused, nothing written
    const dist::side_stream never;
    no_side[k] = dist::sort_keys(temp[k]->ptr, big, x, out[k]->ptr, 16, info[k]->ptr, 16, g.comm(r), never,
                                 g.stream(r));
    // n = 0 on every rank
    if (const cudaError_t e =
            dist::inclusive_sum(temp[k]->ptr, big, x, out[k]->ptr, 0, g.comm(r), g.stream(r));
        e != cudaSuccess)
      return e;
    if (const cudaError_t e = dist::select_if(temp[k]->ptr, big, x, out[k]->ptr, info[k]->ptr, 0, third{},
                                              g.comm(r), g.stream(r));
        e != cudaSuccess)
      return e;
    return dist::histogram_even(temp[k]->ptr, big, x, hist[k]->ptr, 4, 0u, 8u, 0, g.comm(r), g.stream(r));
  }) == cudaSuccess);
  REQUIRE(g.synchronize() == cudaSuccess);
  for (std::size_t r = 0; r < 2; ++r) {
    CHECK(bad[r] == cudaErrorInvalidValue);
    CHECK(short_temp[r] == cudaErrorInvalidValue);
    CHECK(no_side[r] == cudaErrorInvalidValue);
    const auto o = out[r]->download(16);
    for (auto v : o) CHECK(v == 0xA5A5A5A5u); // per-item outputs untouched
    const auto s = info[r]->download(1)[0];
    CHECK(s.count == 0);
    CHECK(s.offset == 0);
    CHECK(s.total == 0);
    CHECK(hist[r]->download(4) == std::vector<std::uint64_t>(4, 0));
  }
}

namespace {

enum class dist_keys { uniform, equal, few, sorted, reversed, skewed, zeros };

template <class K>
std::vector<K> sort_input(std::int64_t total, dist_keys d, const std::vector<std::int64_t>& sizes) {
  std::vector<K> k(static_cast<std::size_t>(total));
  const auto bits = random_bits<std::uint32_t>(k.size(), 31);
  for (std::size_t i = 0; i < k.size(); ++i) {
    std::uint32_t v = bits[i];
    if (d == dist_keys::equal) v = 7;
    if (d == dist_keys::few) v %= 5;
    if (d == dist_keys::sorted) v = static_cast<std::uint32_t>(i);
    if (d == dist_keys::reversed) v = static_cast<std::uint32_t>(k.size() - i);
    if constexpr (std::is_floating_point<K>::value)
      k[i] = d == dist_keys::zeros ? (v % 2 ? -0.0f : 0.0f)
                                   : static_cast<K>(static_cast<std::int32_t>(v)) / 1024.0f;
    else
      k[i] = static_cast<K>(v);
  }
  if (d == dist_keys::skewed) { // the first rank's keys all in one narrow interval in the middle
    for (std::int64_t i = 0; i < sizes[0]; ++i)
      k[static_cast<std::size_t>(i)] = static_cast<K>(1u << 30) + static_cast<K>(i % 100);
  }
  return k;
}

/// dist::sort_keys(_descending) of `all` sharded by `sizes` on every rank (dirty temp, poisoned outputs of
/// `capacity` items), then each rank's shard_info checked: offsets in rank order, the total, every count
/// within 5 % of an even share (and the samples' grain). Returns the outputs; `counts` gets the counts.
template <class K>
sharded<K>
run_dist_sort(dist::local_group& g, const std::vector<K>& all, const std::vector<std::int64_t>& sizes,
              std::int64_t capacity, bool desc, std::vector<std::int64_t>& counts,
              dist::detail::key_coding coding = dist::detail::key_coding::by_policy, int side = -1) {
  const auto total = static_cast<std::int64_t>(all.size());
  const int ranks = g.size();
  sharded<K> in(sizes);
  sharded<K> out(std::vector<std::int64_t>(sizes.size(), capacity));
  std::vector<std::unique_ptr<device_buffer<dist::shard_info>>> info(sizes.size());
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> temp(sizes.size());
  REQUIRE(g.run([&](int r) {
    const auto k = static_cast<std::size_t>(r);
    in.make(r, &all);
    out.make(r);
    info[k] = std::make_unique<device_buffer<dist::shard_info>>(1);
    info[k]->poison();
    return with_dirty_temp(temp[k], [&](void* t, std::size_t& b) {
      using N = carry::radix_detail::null_value;
      // a named exchange or slice count (the public calls: the policy's)
      if (coding != dist::detail::key_coding::by_policy || side > 0)
        return dist::detail::dispatch_sort(t, b, static_cast<const K*>(in.ptr(r)), out.ptr(r),
                                           static_cast<const N*>(nullptr), static_cast<N*>(nullptr), capacity,
                                           info[k]->ptr, in.size(r), desc, g.comm(r), g.stream(r), nullptr,
                                           coding, side >= 0 ? &g.side(r) : nullptr, side > 0 ? side : 0);
      if (side == 0)
        return desc ? dist::sort_keys_descending(t, b, static_cast<const K*>(in.ptr(r)), out.ptr(r), capacity,
                                                 info[k]->ptr, in.size(r), g.comm(r), g.side(r), g.stream(r))
                    : dist::sort_keys(t, b, static_cast<const K*>(in.ptr(r)), out.ptr(r), capacity,
                                      info[k]->ptr, in.size(r), g.comm(r), g.side(r), g.stream(r));
      return desc ? dist::sort_keys_descending(t, b, static_cast<const K*>(in.ptr(r)), out.ptr(r), capacity,
                                               info[k]->ptr, in.size(r), g.comm(r), g.stream(r))
                  : dist::sort_keys(t, b, static_cast<const K*>(in.ptr(r)), out.ptr(r), capacity,
                                    info[k]->ptr, in.size(r), g.comm(r), g.stream(r));
    });
  }) == cudaSuccess);
  REQUIRE(g.synchronize() == cudaSuccess);
  counts.clear();
  std::int64_t offset = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    const auto s = info[r]->download(1)[0];
    INFO("rank " << r << ": count " << s.count << ", offset " << s.offset << ", total " << s.total);
    REQUIRE(s.offset == offset);
    REQUIRE(s.total == total);
    REQUIRE(s.count <= total / ranks + total / 20 + 1100);
    counts.push_back(s.count);
    offset += s.count;
  }
  REQUIRE(offset == total);
  return out;
}

template <class K>
void check_dist_sort(dist::local_group& g, const std::vector<K>& all, const std::vector<std::int64_t>& sizes,
                     bool desc, dist::detail::key_coding coding = dist::detail::key_coding::by_policy,
                     int side = -1) {
  const auto total = static_cast<std::int64_t>(all.size());
  std::vector<std::int64_t> counts;
  const sharded<K> out =
      run_dist_sort(g, all, sizes, total / g.size() + total / 8 + 2048, desc, counts, coding, side);
  std::vector<K> want = all;
  std::stable_sort(want.begin(), want.end(), [&](const K& a, const K& b) {
    return dist::detail::sort_image(a, desc) < dist::detail::sort_image(b, desc);
  });
  REQUIRE(same_bits(out.gather(&counts), want));
  REQUIRE(out.guards_intact());
}

} // namespace

TEST_CASE("dist sort_keys: every shard layout and key distribution, both directions, balanced, stable",
          "[dist][sort]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}, std::int64_t{1000003},
                               std::int64_t{(1 << 22) + 5}})
      for (const auto& sizes : shard_layouts(total, ranks))
        for (dist_keys d : {dist_keys::uniform, dist_keys::equal, dist_keys::few, dist_keys::sorted,
                            dist_keys::reversed, dist_keys::skewed}) {
          INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0] << ", keys "
                        << static_cast<int>(d));
          const auto all = sort_input<std::uint32_t>(total, d, sizes);
          check_dist_sort(g, all, sizes, false);
          if (total < 2000000) check_dist_sort(g, all, sizes, true);
        }
    // floats: +0.0 and -0.0 sort as equal keys, so their order shows stability
    const auto sizes = shard_layouts(1000003, ranks)[1];
    check_dist_sort(g, sort_input<float>(1000003, dist_keys::zeros, sizes), sizes, false);
    check_dist_sort(g, sort_input<float>(1000003, dist_keys::uniform, sizes), sizes, true);
  }
}

namespace {
/// dist::sort_pairs(_descending) of `keys` with each key's global index as its value (V), sharded by
/// `sizes` (dirty temp), against the CPU's stable sort: keys and values in global order.
template <class K, class V>
void check_dist_pairs(dist::local_group& g, const std::vector<K>& keys,
                      const std::vector<std::int64_t>& sizes, bool desc,
                      dist::detail::key_coding coding = dist::detail::key_coding::by_policy, int side = -1) {
  const auto total = static_cast<std::int64_t>(keys.size());
  const int ranks = g.size();
  std::vector<V> index(keys.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<V>(i);
  const std::int64_t capacity = total / ranks + total / 8 + 2048;
  std::vector<std::int64_t> caps(sizes.size(), capacity);
  sharded<K> kin(sizes), kout(caps);
  sharded<V> vin(sizes), vout(caps);
  std::vector<std::unique_ptr<device_buffer<dist::shard_info>>> info(sizes.size());
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> temp(sizes.size());
  REQUIRE(g.run([&](int r) {
    const auto k = static_cast<std::size_t>(r);
    kin.make(r, &keys);
    vin.make(r, &index);
    kout.make(r);
    vout.make(r);
    info[k] = std::make_unique<device_buffer<dist::shard_info>>(1);
    return with_dirty_temp(temp[k], [&](void* t, std::size_t& b) {
      const K* ki = kin.ptr(r);
      const V* vi = vin.ptr(r);
      if (coding != dist::detail::key_coding::by_policy || side > 0)
        return dist::detail::dispatch_sort(t, b, ki, kout.ptr(r), vi, vout.ptr(r), capacity, info[k]->ptr,
                                           kin.size(r), desc, g.comm(r), g.stream(r), nullptr, coding,
                                           side >= 0 ? &g.side(r) : nullptr, side > 0 ? side : 0);
      if (side == 0)
        return desc
                   ? dist::sort_pairs_descending(t, b, ki, kout.ptr(r), vi, vout.ptr(r), capacity,
                                                 info[k]->ptr, kin.size(r), g.comm(r), g.side(r), g.stream(r))
                   : dist::sort_pairs(t, b, ki, kout.ptr(r), vi, vout.ptr(r), capacity, info[k]->ptr,
                                      kin.size(r), g.comm(r), g.side(r), g.stream(r));
      return desc ? dist::sort_pairs_descending(t, b, ki, kout.ptr(r), vi, vout.ptr(r), capacity,
                                                info[k]->ptr, kin.size(r), g.comm(r), g.stream(r))
                  : dist::sort_pairs(t, b, ki, kout.ptr(r), vi, vout.ptr(r), capacity, info[k]->ptr,
                                     kin.size(r), g.comm(r), g.stream(r));
    });
  }) == cudaSuccess);
  REQUIRE(g.synchronize() == cudaSuccess);
  std::vector<V> order = index;
  std::stable_sort(order.begin(), order.end(), [&](V a, V b) {
    return dist::detail::sort_image(keys[static_cast<std::size_t>(a)], desc) <
           dist::detail::sort_image(keys[static_cast<std::size_t>(b)], desc);
  });
  std::vector<K> want_keys(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) want_keys[i] = keys[static_cast<std::size_t>(order[i])];
  std::vector<std::int64_t> counts;
  for (std::size_t r = 0; r < sizes.size(); ++r) counts.push_back(info[r]->download(1)[0].count);
  REQUIRE(same_bits(kout.gather(&counts), want_keys));
  REQUIRE(vout.gather(&counts) == order);
  REQUIRE(kout.guards_intact());
  REQUIRE(vout.guards_intact());
}
} // namespace

TEST_CASE("dist sort_pairs: values (each key's global index) follow their keys, stably", "[dist][sort]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : {std::int64_t{1000}, std::int64_t{1000003}})
      for (const auto& sizes : shard_layouts(total, ranks))
        for (dist_keys d : {dist_keys::uniform, dist_keys::few, dist_keys::equal})
          for (bool desc : {false, true}) {
            INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0] << ", keys "
                          << static_cast<int>(d) << (desc ? ", descending" : ""));
            check_dist_pairs<std::uint32_t, std::uint32_t>(g, sort_input<std::uint32_t>(total, d, sizes),
                                                           sizes, desc);
          }
  }
}

TEST_CASE("dist sorts of other key and value widths: u8, i16 and u64 keys; u64 values", "[dist][sort]") {
  // the exchange's granule (16 bytes in items of the narrowest array) and the merge's tiles differ with them
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    const std::int64_t total = 1000003;
    for (const auto& sizes : shard_layouts(total, ranks))
      for (bool desc : {false, true}) {
        INFO("ranks " << ranks << ", first shard " << sizes[0] << (desc ? ", descending" : ""));
        check_dist_sort(g, sort_input<std::uint8_t>(total, dist_keys::uniform, sizes), sizes, desc);
        check_dist_sort(g, sort_input<std::int16_t>(total, dist_keys::uniform, sizes), sizes, desc);
        check_dist_sort(g, sort_input<std::uint64_t>(total, dist_keys::uniform, sizes), sizes, desc);
        check_dist_pairs<std::uint64_t, std::uint64_t>(
            g, sort_input<std::uint64_t>(total, dist_keys::few, sizes), sizes, desc);
        check_dist_pairs<std::uint32_t, std::uint64_t>(
            g, sort_input<std::uint32_t>(total, dist_keys::few, sizes), sizes, desc);
        check_dist_pairs<std::uint8_t, std::uint32_t>(
            g, sort_input<std::uint8_t>(total, dist_keys::uniform, sizes), sizes, desc);
      }
  }
}

TEST_CASE("dist sorts with each key exchange named: delta-coded and raw, whatever the policy picks",
          "[dist][sort]") {
  // coded blocks straddle the kept run's ends, parts narrower than a block, wide steps (u64, floats' signs)
  using dist::detail::key_coding;
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (key_coding coding : {key_coding::delta, key_coding::raw})
      for (std::int64_t total : {std::int64_t{0}, std::int64_t{1}, std::int64_t{129}, std::int64_t{1000003}})
        for (const auto& sizes : shard_layouts(total, ranks))
          for (dist_keys d :
               {dist_keys::uniform, dist_keys::equal, dist_keys::few, dist_keys::sorted, dist_keys::skewed})
            for (bool desc : {false, true}) {
              // the large total: even shards and one full shard, three key distributions (the CPU's sorts)
              const bool large = total > 1000;
              if (large &&
                  ((sizes != shard_layouts(total, ranks)[0] && sizes != shard_layouts(total, ranks)[3]) ||
                   d == dist_keys::equal || d == dist_keys::sorted))
                continue;
              INFO("ranks " << ranks << ", " << (coding == key_coding::delta ? "delta" : "raw") << ", total "
                            << total << ", first shard " << sizes[0] << ", keys " << static_cast<int>(d)
                            << (desc ? ", descending" : ""));
              check_dist_sort(g, sort_input<std::uint32_t>(total, d, sizes), sizes, desc, coding);
              check_dist_sort(g, sort_input<std::uint64_t>(total, d, sizes), sizes, desc, coding);
              check_dist_pairs<std::uint32_t, std::uint32_t>(g, sort_input<std::uint32_t>(total, d, sizes),
                                                             sizes, desc, coding);
              if (d == dist_keys::uniform) {
                check_dist_sort(g, sort_input<std::int16_t>(total, d, sizes), sizes, desc, coding);
                check_dist_sort(g, sort_input<float>(total, dist_keys::zeros, sizes), sizes, desc, coding);
                check_dist_sort(g, sort_input<float>(total, d, sizes), sizes, desc, coding);
              }
            }
  }
}

TEST_CASE("dist sorts with a side stream: the exchange in slices, each merged as it arrives",
          "[dist][sort]") {
  // side -1: none; 0: the public calls with one (the policy's slices); 1-9: slices asked for. Slices with
  // empty parts (tiny totals, one key), parts narrower than a granule, a coded exchange (one slice)
  using dist::detail::key_coding;
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    // the temp storage is the same with a side stream or without (whose keys may travel another way)
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1000003}}) {
      std::vector<std::size_t> plain(4 * static_cast<std::size_t>(ranks)), beside(plain.size());
      REQUIRE(g.run([&](int r) {
        const auto k = 4 * static_cast<std::size_t>(r);
        const std::uint32_t* in = nullptr;
        std::uint32_t* out = nullptr;
        dist::shard_info* info = nullptr;
        cudaError_t e = dist::sort_keys(nullptr, plain[k], in, out, n, info, n, g.comm(r), g.stream(r));
        if (e == cudaSuccess)
          e = dist::sort_keys(nullptr, beside[k], in, out, n, info, n, g.comm(r), g.side(r), g.stream(r));
        if (e == cudaSuccess)
          e = dist::sort_pairs(nullptr, plain[k + 1], in, out, in, out, n, info, n, g.comm(r), g.stream(r));
        if (e == cudaSuccess)
          e = dist::sort_pairs(nullptr, beside[k + 1], in, out, in, out, n, info, n, g.comm(r), g.side(r),
                               g.stream(r));
        for (int c = 0; c < 2 && e == cudaSuccess; ++c) { // keys named coded and raw: as the policy's sizes
          const auto coding = c == 0 ? key_coding::delta : key_coding::raw;
          const auto* none = static_cast<const carry::radix_detail::null_value*>(nullptr);
          auto* no_out = static_cast<carry::radix_detail::null_value*>(nullptr);
          e = dist::detail::dispatch_sort(nullptr, plain[k + 2 + c], in, out, none, no_out, n, info, n, false,
                                          g.comm(r), g.stream(r), nullptr, coding);
          if (e == cudaSuccess)
            e = dist::detail::dispatch_sort(nullptr, beside[k + 2 + c], in, out, none, no_out, n, info, n,
                                            false, g.comm(r), g.stream(r), nullptr, coding, &g.side(r));
        }
        return e;
      }) == cudaSuccess);
      INFO("ranks " << ranks << ", n " << n);
      CHECK(plain == beside);
    }
    for (int side : {0, 1, 2, 3, 9})
      for (std::int64_t total : {std::int64_t{0}, std::int64_t{5}, std::int64_t{129}, std::int64_t{1000003}})
        for (const auto& sizes : shard_layouts(total, ranks))
          for (dist_keys d : {dist_keys::uniform, dist_keys::equal, dist_keys::few, dist_keys::skewed})
            for (bool desc : {false, true}) {
              const bool large = total > 1000;
              if (large &&
                  ((sizes != shard_layouts(total, ranks)[0] && sizes != shard_layouts(total, ranks)[3]) ||
                   d == dist_keys::equal || (desc && side != 0)))
                continue;
              INFO("ranks " << ranks << ", side " << side << ", total " << total << ", first shard "
                            << sizes[0] << ", keys " << static_cast<int>(d) << (desc ? ", descending" : ""));
              check_dist_sort(g, sort_input<std::uint32_t>(total, d, sizes), sizes, desc,
                              key_coding::by_policy, side);
              check_dist_pairs<std::uint32_t, std::uint32_t>(g, sort_input<std::uint32_t>(total, d, sizes),
                                                             sizes, desc, key_coding::by_policy, side);
              if (d == dist_keys::uniform && (side == 0 || side == 3)) {
                check_dist_sort(g, sort_input<std::uint64_t>(total, d, sizes), sizes, desc, key_coding::raw,
                                side);
                check_dist_sort(g, sort_input<std::uint32_t>(total, d, sizes), sizes, desc, key_coding::delta,
                                side);
                check_dist_sort(g, sort_input<float>(total, dist_keys::zeros, sizes), sizes, desc,
                                key_coding::raw, side);
                check_dist_pairs<std::uint8_t, std::uint32_t>(g, sort_input<std::uint8_t>(total, d, sizes),
                                                              sizes, desc, key_coding::raw, side);
              }
            }
  }
}

TEST_CASE("dist rebalance after select_if: even shards in global order", "[dist][rebalance]") {
  for (int ranks : dist_rank_counts()) {
    auto& g = *dist_group(ranks);
    for (std::int64_t total : {std::int64_t{0}, std::int64_t{7}, std::int64_t{1000003}})
      for (const auto& sizes : shard_layouts(total, ranks)) {
        INFO("ranks " << ranks << ", total " << total << ", first shard " << sizes[0]);
        const auto all = random_bits<std::uint32_t>(static_cast<std::size_t>(total), 5);
        std::vector<std::uint32_t> kept;
        for (auto x : all)
          if (third{}(x)) kept.push_back(x);
        const std::int64_t capacity = static_cast<std::int64_t>(kept.size()) / ranks + 1;
        std::vector<std::int64_t> caps(sizes.size(), capacity);
        sharded<std::uint32_t> in(sizes), mid(sizes), out(caps);
        std::vector<std::unique_ptr<device_buffer<dist::shard_info>>> s1(sizes.size()), s2(sizes.size());
        std::vector<std::unique_ptr<device_buffer<unsigned char>>> t1(sizes.size()), t2(sizes.size());
        REQUIRE(g.run([&](int r) {
          const auto k = static_cast<std::size_t>(r);
          in.make(r, &all);
          mid.make(r);
          out.make(r);
          s1[k] = std::make_unique<device_buffer<dist::shard_info>>(1);
          s2[k] = std::make_unique<device_buffer<dist::shard_info>>(1);
          const std::uint32_t* x = in.ptr(r);
          if (const cudaError_t e = with_dirty_temp(t1[k],
                                                    [&](void* t, std::size_t& b) {
                                                      return dist::select_if(t, b, x, mid.ptr(r), s1[k]->ptr,
                                                                             in.size(r), third{}, g.comm(r),
                                                                             g.stream(r));
                                                    });
              e != cudaSuccess)
            return e;
          return with_dirty_temp(t2[k], [&](void* t, std::size_t& b) {
            return dist::rebalance(t, b, static_cast<const std::uint32_t*>(mid.ptr(r)), s1[k]->ptr,
                                   out.ptr(r), capacity, s2[k]->ptr, g.comm(r), g.stream(r));
          });
        }) == cudaSuccess);
        REQUIRE(g.synchronize() == cudaSuccess);
        std::vector<std::int64_t> counts;
        for (int r = 0; r < ranks; ++r) {
          const auto s = s2[static_cast<std::size_t>(r)]->download(1)[0];
          const auto even = dist::detail::even_shard(static_cast<std::int64_t>(kept.size()), ranks, r);
          REQUIRE(s.count == even.end - even.begin);
          REQUIRE(s.offset == even.begin);
          REQUIRE(s.total == static_cast<std::int64_t>(kept.size()));
          counts.push_back(s.count);
        }
        REQUIRE(out.gather(&counts) == kept);
        REQUIRE(out.guards_intact());
      }
  }
}

TEST_CASE("dist sort_keys: a shard above 2^31 items on one rank (u8 keys), the other almost empty",
          "[dist][sort][large]") {
  if (sanitize_mode()) return; // past 2^31: not for a sanitizer
  auto& g = *dist_group(2);
  const std::int64_t big = (std::int64_t{1} << 31) + 4099, total = big + 1000;
  const std::vector<std::int64_t> sizes = {big, 1000};
  std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
  std::uint64_t x = 12345;
  std::vector<std::int64_t> want(256, 0);
  for (auto& v : all) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<std::uint8_t>(x >> 56);
    ++want[v];
  }
  std::vector<std::int64_t> counts;
  const sharded<std::uint8_t> out = run_dist_sort(g, all, sizes, total / 2 + total / 8 + 2048, false, counts);
  all.clear();
  all.shrink_to_fit();
  const auto got = out.gather(&counts); // sorted, with each key's count: the sort of the input
  std::vector<std::int64_t> seen(256, 0);
  std::int64_t unsorted = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ++seen[got[i]];
    if (i > 0 && got[i] < got[i - 1]) ++unsorted;
  }
  CHECK(unsorted == 0);
  CHECK(seen == want);
  CHECK(out.guards_intact());
}
