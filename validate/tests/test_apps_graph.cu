// GPU tests: every apps primitive under CUDA-graph capture and replay, with changing inputs and temp
// storage holding anything (0xFF, zeros, random bytes), on two streams; the iterator forms too (samples,
// requests and values read through a transform iterator over the changing buffers).
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include <carry/apps/histogram.cuh>
#include <carry/apps/slots.cuh>
#include <carry/scan/transform_input.hpp>

#include "tests/common/apps_reference.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {

struct mod_bins {
  unsigned bins;
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k % bins; }
};

struct same { // the transform of the iterator forms: reads x as it is, through a non-pointer iterator
  __host__ __device__ std::uint32_t operator()(std::uint32_t x) const { return x; }
};

// the pointer forms, then the same calls over iterators (samples, values, requests)
enum prim { hist, offsets, bin1, bin2, slots, bounded, hist_it, bin_it, slots_it, bounded_it, num_prims };
const char* prim_name(int p) {
  static const char* names[] = {"histogram_even",
                                "histogram_offsets",
                                "bin_by_key (1 pass)",
                                "bin_by_key (2 passes)",
                                "allocate_slots",
                                "allocate_slots_bounded",
                                "histogram_even of an iterator",
                                "bin_by_key of iterator values",
                                "allocate_slots of an iterator",
                                "allocate_slots_bounded of an iterator"};
  return names[p];
}
/// The pointer form whose results an iterator form must match.
int base(int p) {
  return p == hist_it ? hist : p == bin_it ? bin1 : p == slots_it ? slots : p == bounded_it ? bounded : p;
}

struct buffers {
  device_buffer<std::uint32_t> in, values, keys_out, values_out, hist;
  device_buffer<std::uint64_t> offsets, total;
  device_buffer<std::int64_t> fitted;
  explicit buffers(std::int64_t n)
      : in(static_cast<std::size_t>(n)), values(static_cast<std::size_t>(n)),
        keys_out(static_cast<std::size_t>(n), 8), values_out(static_cast<std::size_t>(n), 8), hist(4096, 8),
        offsets(static_cast<std::size_t>(n) + 4097, 8), total(1), fitted(1) {}
};

int bins_of(int p) {
  return base(p) == bin2 ? 3000 : base(p) == bin1 ? 200 : 1000;
}
const std::uint64_t capacity = 1000000;

cudaError_t call(int p, void* t, std::size_t& b, buffers& d, std::int64_t n, cudaStream_t s) {
  const std::uint32_t* in = d.in.ptr;
  const auto in_it = carry::make_transform_input(in, same{});
  switch (p) {
  case hist_it:
    return carry::histogram_even(t, b, in_it, d.hist.ptr, bins_of(p), 0u, 0xFFFFFFFFu, n, s);
  case bin_it:
    return carry::bin_by_key(t, b, in, d.keys_out.ptr, carry::make_transform_input(d.values.ptr, same{}),
                             d.values_out.ptr, d.offsets.ptr, bins_of(p),
                             mod_bins{static_cast<unsigned>(bins_of(p))}, n, s);
  case slots_it:
    return carry::allocate_slots(t, b, in_it, d.offsets.ptr, d.total.ptr, n, s);
  case bounded_it:
    return carry::allocate_slots_bounded(t, b, in_it, d.offsets.ptr, d.total.ptr, capacity, d.fitted.ptr, n,
                                         s);
  case hist:
    return carry::histogram_even(t, b, in, d.hist.ptr, bins_of(p), 0u, 0xFFFFFFFFu, n, s);
  case offsets:
    return carry::histogram_offsets(t, b, in, d.offsets.ptr, bins_of(p), 0u, 0xFFFFFFFFu, n, s);
  case bin1:
  case bin2:
    return carry::bin_by_key(t, b, in, d.keys_out.ptr, static_cast<const std::uint32_t*>(d.values.ptr),
                             d.values_out.ptr, d.offsets.ptr, bins_of(p),
                             mod_bins{static_cast<unsigned>(bins_of(p))}, n, s);
case slots:
    return carry::allocate_slots(t, b, in, d.offsets.ptr, d.total.ptr, n, s);
  default:
    return carry::allocate_slots_bounded(t, b, in, d.offsets.ptr, d.total.ptr, capacity, d.fitted.ptr, n, s);
  }
}

void check(int p, buffers& d, const std::vector<std::uint32_t>& in,
           const std::vector<std::uint32_t>& values) {
  const int bins = bins_of(p);
  switch (base(p)) {
  case hist: {
    const auto want =
        reference_histogram_even<std::uint32_t, std::uint32_t, std::uint32_t>(in, bins, 0u, 0xFFFFFFFFu);
    REQUIRE(d.hist.download(static_cast<std::size_t>(bins)) == want);
    break;
  }
  case offsets: {
    const auto want =
        reference_offsets(reference_histogram_even<std::uint32_t, std::uint32_t>(in, bins, 0u, 0xFFFFFFFFu));
    REQUIRE(d.offsets.download(static_cast<std::size_t>(bins) + 1) == want);
    break;
  }
  case bin1:
  case bin2: {
    std::vector<std::uint32_t> k, v;
    std::vector<std::uint64_t> o;
    reference_bin(in, values, bins, mod_bins{static_cast<unsigned>(bins)}, k, v, o);
    REQUIRE(d.keys_out.download(in.size()) == k);
    REQUIRE(d.values_out.download(in.size()) == v);
    REQUIRE(d.offsets.download(static_cast<std::size_t>(bins) + 1) == o);
    REQUIRE(d.keys_out.guard_intact());
    break;
  }
  default: {
    std::uint64_t total = 0;
    std::int64_t fit = 0;
    const auto want =
        reference_slots<std::uint32_t, std::uint64_t>(in, total, base(p) == bounded, capacity, &fit);
    REQUIRE(d.offsets.download(in.size()) == want);
    REQUIRE(d.total.download(1)[0] == total);
    if (base(p) == bounded) REQUIRE(d.fitted.download(1)[0] == fit);
  }
  }
  REQUIRE(d.offsets.guard_intact());
}

void graph_case(int p, std::int64_t n) {
  buffers d(n);
  std::size_t bytes = 0;
  REQUIRE(call(p, nullptr, bytes, d, n, 0) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  captured_call g([&](cudaStream_t s) { return call(p, temp.ptr, bytes, d, n, s); });
  REQUIRE(g.status == cudaSuccess);
  for (int rep = 0; rep < 4; ++rep) {
    INFO(prim_name(p) << ", n = " << n << ", replay " << rep);
    auto in = random_bits<std::uint32_t>(static_cast<std::size_t>(n),
                                         static_cast<std::uint64_t>(n * 31 + rep * 7 + p));
    const bool slot_call = base(p) == slots || base(p) == bounded;
    if (slot_call)
      for (auto& x : in)
        x %= 1u + 7u * static_cast<unsigned>(rep); // changing totals, the bound crossed or not
    if (rep == 2 && !slot_call)
      for (std::size_t i = 0; i < in.size(); i += 2) in[i] = 12345; // skewed
    const auto values =
        random_bits<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(rep));
    d.in.upload(in);
    d.values.upload(values);
    d.keys_out.poison();
    d.values_out.poison();
    d.hist.poison();
    d.offsets.poison();
    d.total.poison();
    d.fitted.poison();
    // temp storage: 0xFF, zeros, random bytes, then (replay 3) what replay 2 left in it
    if (rep == 0) CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0xFF, bytes));
    if (rep == 1) CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0, bytes));
    if (rep == 2) temp.upload(random_bits<unsigned char>(bytes, static_cast<std::uint64_t>(rep + n)));
    REQUIRE(g.replay(rep) == cudaSuccess);
    check(p, d, in, values);
  }
}

} // namespace

TEST_CASE("apps under graph replay: every primitive, changing inputs, dirty temp storage", "[graph]") {
  for (std::int64_t n : capped_sizes({1, 4097, 100003, (1 << 20) + 3}))
    for (int p = 0; p < num_prims; ++p) graph_case(p, n);
}

TEST_CASE("apps under graph replay with n = 0: the whole-input outputs written each time", "[graph][empty]") {
  for (int p = 0; p < num_prims; ++p) {
    INFO(prim_name(p));
    buffers d(1);
    std::size_t bytes = 0;
    REQUIRE(call(p, nullptr, bytes, d, 0, 0) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    captured_call g([&](cudaStream_t s) { return call(p, temp.ptr, bytes, d, 0, s); });
    REQUIRE(g.status == cudaSuccess);
    for (int rep = 0; rep < 3; ++rep) {
      d.hist.poison();
      d.offsets.poison();
      d.keys_out.poison();
      d.total.poison();
      d.fitted.poison();
      CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, rep == 1 ? 0 : 0xFF, bytes));
      REQUIRE(g.replay(0) == cudaSuccess);
      const std::size_t bins = static_cast<std::size_t>(bins_of(p));
      switch (base(p)) {
      case hist:
        REQUIRE(d.hist.download(bins) == std::vector<std::uint32_t>(bins, 0));
        break;
      case offsets:
      case bin1:
      case bin2:
        REQUIRE(d.offsets.download(bins + 1) == std::vector<std::uint64_t>(bins + 1, 0));
        break;
      default:
        REQUIRE(d.total.download(1)[0] == 0);
        if (base(p) == bounded) REQUIRE(d.fitted.download(1)[0] == 0);
      }
      REQUIRE(d.keys_out.guard_intact()); // per-item outputs untouched
      REQUIRE(d.keys_out.download(1) == std::vector<std::uint32_t>(1, 0xA5A5A5A5u));
    }
  }
}
