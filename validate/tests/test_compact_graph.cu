// GPU tests: every compaction under CUDA-graph capture and replay, with changing inputs and temp storage
// holding anything (0xFF, zeros, random bytes, another call's leftovers), on two streams.
#include <random>

#include "tests/common/compact_harness.cuh"

using namespace carry_validate;

namespace {

enum prim { flagged, if_, unique, part };
const char* prim_name(int p) {
  static const char* names[4] = {"select_flagged", "select_if", "select_unique", "partition"};
  return names[p];
}

struct buffers {
  device_buffer<std::uint32_t> in, out;
  device_buffer<std::uint8_t> flags;
  device_buffer<std::int64_t> num;
  explicit buffers(std::int64_t n)
      : in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), 16),
        flags(static_cast<std::size_t>(n)), num(1) {}
};

const std::uint32_t bound = u32_bound(40);

cudaError_t call(int p, void* t, std::size_t& b, buffers& d, std::int64_t n, carry::compact_options opt,
                 cudaStream_t s) {
  const std::uint32_t* in = d.in.ptr;
  switch (p) {
  case flagged:
    return carry::select_flagged(t, b, in, d.flags.ptr, d.out.ptr, d.num.ptr, n, opt, s);
  case if_:
    return carry::select_if(t, b, in, d.out.ptr, d.num.ptr, n, less_than<std::uint32_t>{bound}, opt, s);
  case unique:
    return carry::select_unique(t, b, in, d.out.ptr, d.num.ptr, n, carry::equal_to{}, opt, s);
  default:
    return carry::partition(t, b, in, d.out.ptr, d.num.ptr, n, less_than<std::uint32_t>{bound}, opt, s);
  }
}

/// The new input of replay `rep`, its flags, and what the primitive must produce.
struct replay_data {
  std::vector<std::uint32_t> in, expected;
  std::vector<std::uint8_t> flags;
  std::size_t num = 0;
};
replay_data make_replay(int p, std::int64_t n, int rep) {
  replay_data r;
  const auto seed = static_cast<std::uint64_t>(n * 131 + rep * 7 + p);
  r.in = p == unique ? runs_of<std::uint32_t>(static_cast<std::size_t>(n), 2 + rep, seed)
                     : uniform_values<std::uint32_t>(static_cast<std::size_t>(n), seed);
  r.flags.resize(static_cast<std::size_t>(n));
  std::mt19937 g(static_cast<unsigned>(seed));
  const unsigned percent = 10u + 25u * static_cast<unsigned>(rep % 4);
  for (auto& f : r.flags) f = static_cast<std::uint8_t>(g() % 100 < percent ? 1 + g() % 200 : 0);
  auto selected = [&](std::size_t i) {
    switch (p) {
    case flagged:
      return r.flags[i] != 0;
    case if_:
      return r.in[i] < bound;
    case unique:
      return i == 0 || r.in[i] != r.in[i - 1];
    default:
      return r.in[i] < bound;
    }
  };
  r.expected = reference_partition(r.in, selected, r.num, p == part);
  return r;
}

/// Fills temp storage for replay `rep`: 0xFF, zeros, random bytes, or the leftovers of another
/// compaction run in it (on other buffers).
void dirty_temp(unsigned char* temp, std::size_t bytes, int p, std::int64_t n, int rep) {
  if (rep % 4 == 0) CARRY_CUDA_OR_DIE(cudaMemset(temp, 0xFF, bytes));
  if (rep % 4 == 1) CARRY_CUDA_OR_DIE(cudaMemset(temp, 0, bytes));
  if (rep % 4 == 2) {
    std::vector<unsigned char> noise(bytes);
    std::mt19937 g(static_cast<unsigned>(rep + n));
    for (auto& c : noise) c = static_cast<unsigned char>(g());
    CARRY_CUDA_OR_DIE(cudaMemcpy(temp, noise.data(), bytes, cudaMemcpyHostToDevice));
  }
  if (rep % 4 == 3) { // another primitive's call (same n, its own inputs) through the same temp storage
    buffers other(n);
    other.in.upload(uniform_values<std::uint32_t>(static_cast<std::size_t>(n), 99));
    CARRY_CUDA_OR_DIE(cudaMemset(other.flags.ptr, 1, static_cast<std::size_t>(n)));
    std::size_t b = bytes;
    REQUIRE(call((p + 1) % 4, temp, b, other, n, {}, 0) == cudaSuccess);
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  }
}

void graph_case(int p, std::int64_t n, carry::compact_options opt) {
  buffers d(n);
  std::size_t bytes = 0;
  REQUIRE(call(p, nullptr, bytes, d, n, opt, 0) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  captured_call g([&](cudaStream_t s) { return call(p, temp.ptr, bytes, d, n, opt, s); });
  REQUIRE(g.status == cudaSuccess);
  for (int rep = 0; rep < 5; ++rep) {
    INFO(prim_name(p) << ", n = " << n << ", replay " << rep);
    const replay_data r = make_replay(p, n, rep);
    d.in.upload(r.in);
    d.flags.upload(r.flags);
    d.out.poison();
    d.num.poison();
    dirty_temp(temp.ptr, bytes, p, n, rep);
    REQUIRE(g.replay(rep) == cudaSuccess);
    REQUIRE(d.num.download(1)[0] == static_cast<std::int64_t>(r.num));
    const std::size_t compare = p == part ? r.expected.size() : r.num;
    const auto got = d.out.download(compare);
    REQUIRE(std::memcmp(got.data(), r.expected.data(), compare * sizeof(std::uint32_t)) == 0);
    REQUIRE(d.out.guard_intact());
  }
}

} // namespace

TEST_CASE("compaction under graph replay: every primitive, every pass, dirty temp storage", "[graph]") {
  const carry::compact_options three{carry::compact_algorithm::three_kernel},
      single{carry::compact_algorithm::single_pass};
  const std::int64_t tile = carry::compact_tuning::policy<std::uint32_t>::tile_items;
  for (std::int64_t n : capped_sizes({1, 3000, tile + 1, 40000, (1 << 20) + 3, (1 << 23) + 5}))
    for (int p = 0; p < 4; ++p) {
      graph_case(p, n, {});
      if (n > tile) {
        graph_case(p, n, three);
        graph_case(p, n, single);
      }
    }
}

TEST_CASE("n = 0 under graph replay writes a count of 0 each time", "[graph][empty]") {
  for (int p = 0; p < 4; ++p) {
    buffers d(1);
    std::size_t bytes = 0;
    REQUIRE(call(p, nullptr, bytes, d, 0, {}, 0) == cudaSuccess);
    device_buffer<unsigned char> temp(bytes);
    captured_call g([&](cudaStream_t s) { return call(p, temp.ptr, bytes, d, 0, {}, s); });
    REQUIRE(g.status == cudaSuccess);
    for (int rep = 0; rep < 3; ++rep) {
      d.num.poison();
      d.out.poison();
      REQUIRE(g.replay(0) == cudaSuccess);
      REQUIRE(d.num.download(1)[0] == 0);
      REQUIRE(d.out.guard_intact());
    }
  }
}
