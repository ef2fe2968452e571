// GPU tests: the scan engine under CUDA-graph capture and replay, on temp storage holding anything.
#include <algorithm>
#include <cstring>
#include <random>

#include "tests/common/scan_harness.cuh"

#include <carry/scan/device_reduce.cuh>

using namespace carry_validate;

namespace {

const carry::scan_options modes[4] = {carry::scan_options{},
                                      {carry::scan_algorithm::hierarchical, false},
                                      {carry::scan_algorithm::single_pass, false},
                                      {carry::scan_algorithm::single_pass, true}};
const char* mode_name(int m) {
  static const char* names[4] = {"automatic", "hierarchical", "single_pass", "single_pass+deterministic"};
  return names[m];
}

/// Sizes that reach every path of u32 scans with the tuned policies: one tile (both families), a
/// cluster of small tiles, the small look-back (more tiles than one cluster), the staged single pass
/// (several waves), and the hierarchical pass in hierarchical mode. 2^24 + 1 where the issue found it.
std::vector<std::int64_t> path_sizes(bool with_large) {
  std::vector<std::int64_t> s{1, 3000, 4097, 40000, 65536, 200003, (1 << 20) + 3};
  if (with_large) s.push_back((1 << 24) + 1);
  return capped_sizes(s);
}

struct streams {
  cudaStream_t a{}, b{};
  streams() {
    CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  }
  ~streams() {
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
  }
};

struct graph {
  cudaGraph_t g{};
  cudaGraphExec_t exec{};
  ~graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (g) cudaGraphDestroy(g);
  }
};

/// One u32 scan call (exclusive or inclusive sum) on `stream`.
cudaError_t scan_call(void* tmp, std::size_t& bytes, const std::uint32_t* in, std::uint32_t* out,
                      std::int64_t n, bool exclusive, const carry::scan_options& opt, cudaStream_t stream) {
  return exclusive ? carry::exclusive_sum(tmp, bytes, in, out, n, opt, stream)
                   : carry::inclusive_sum(tmp, bytes, in, out, n, opt, stream);
}

/// Captures one scan into a graph (capture mode `cm`) on stream a, then replays it `replays` times,
/// alternating streams a and b, with a new input uploaded and the output poisoned before each replay;
/// every replay is checked against the CPU reference.
void check_graph_replays(cudaStreamCaptureMode cm, const carry::scan_options& opt, std::int64_t n,
                         bool exclusive, bool in_place, int replays, std::uint64_t seed) {
  streams st;
  device_buffer<std::uint32_t> d_in(n), d_out(n, 16);
  std::size_t bytes = 0;
  REQUIRE(scan_call(nullptr, bytes, d_in.ptr, d_out.ptr, n, exclusive, opt, st.a) == cudaSuccess);
  device_buffer<unsigned char> tmp(bytes);
  tmp.poison();
  const std::uint32_t* src = in_place ? d_out.ptr : d_in.ptr;
  graph gr;
  REQUIRE(cudaStreamBeginCapture(st.a, cm) == cudaSuccess);
  const cudaError_t call = scan_call(tmp.ptr, bytes, src, d_out.ptr, n, exclusive, opt, st.a);
  REQUIRE(cudaStreamEndCapture(st.a, &gr.g) == cudaSuccess);
  REQUIRE(call == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&gr.exec, gr.g, 0) == cudaSuccess);
  for (int r = 0; r < replays; ++r) {
    const auto in = random_values<std::uint32_t>(static_cast<std::size_t>(n), seed + 7919 * r);
    const auto ref =
        exclusive ? reference_exclusive(in, 0u, carry::sum{}) : reference_inclusive(in, carry::sum{});
    if (in_place) {
      d_out.upload(in);
    } else {
      d_in.upload(in);
      d_out.poison();
    }
    cudaStream_t s = r % 2 ? st.b : st.a;
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize()); // uploads and poison (legacy stream) are done
    REQUIRE(cudaGraphLaunch(gr.exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    INFO("replay " << r << " of n = " << n);
    CHECK(d_out.download(static_cast<std::size_t>(n)) == ref);
    CHECK(d_out.guard_intact());
  }
}

} // namespace

// First in this file, so that the first call of each instantiation (attribute and cluster queries) is
// made inside a capture in the strictest mode.
TEST_CASE("graphs: capture (global mode first) and replays with changing inputs, every mode and path",
          "[gpu][graph]") {
  const cudaStreamCaptureMode cms[3] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                        cudaStreamCaptureModeRelaxed};
  std::uint64_t seed = 1400;
  for (int c = 0; c < 3; ++c)
    for (int m = 0; m < 4; ++m)
      for (std::int64_t n : path_sizes(c == 0 && (m == 0 || m == 3)))
        for (int exclusive = 0; exclusive < 2; ++exclusive) {
          INFO("capture mode " << c << ", " << mode_name(m) << ", n = " << n << ", exclusive " << exclusive);
          check_graph_replays(cms[c], modes[m], n, exclusive, false, c == 0 ? 6 : 3, seed++);
        }
}

TEST_CASE("graphs: in place, every mode and path", "[gpu][graph]") {
  std::uint64_t seed = 1500;
  for (int m = 0; m < 4; ++m)
    for (std::int64_t n : path_sizes(false))
      for (int exclusive = 0; exclusive < 2; ++exclusive) {
        INFO(mode_name(m) << ", n = " << n << ", exclusive " << exclusive);
        check_graph_replays(cudaStreamCaptureModeThreadLocal, modes[m], n, exclusive, true, 4, seed++);
      }
}

TEST_CASE("graphs: two graphs share one temp buffer, launched in turn", "[gpu][graph]") {
  // A: single pass, 2^20 + 3; B: deterministic small look-back; C: hierarchical. Each checked every time.
  streams st;
  struct spec {
    std::int64_t n;
    bool exclusive;
    carry::scan_options opt;
  };
  const spec specs[3] = {
      {(1 << 20) + 3, true, modes[2]}, {200003, false, modes[3]}, {(1 << 19) + 5, true, modes[1]}};
  std::size_t bytes = 0;
  for (const auto& sp : specs) {
    std::size_t b = 0;
    REQUIRE(scan_call(nullptr, b, nullptr, nullptr, sp.n, sp.exclusive, sp.opt, st.a) == cudaSuccess);
    bytes = std::max(bytes, b);
  }
  device_buffer<unsigned char> tmp(bytes);
  tmp.poison();
  std::vector<device_buffer<std::uint32_t>> ins, outs;
  graph gr[3];
  for (int i = 0; i < 3; ++i) {
    ins.emplace_back(specs[i].n);
    outs.emplace_back(specs[i].n);
    REQUIRE(cudaStreamBeginCapture(st.a, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    const cudaError_t call = scan_call(tmp.ptr, bytes, ins[i].ptr, outs[i].ptr, specs[i].n,
                                       specs[i].exclusive, specs[i].opt, st.a);
    REQUIRE(cudaStreamEndCapture(st.a, &gr[i].g) == cudaSuccess);
    REQUIRE(call == cudaSuccess);
    REQUIRE(cudaGraphInstantiate(&gr[i].exec, gr[i].g, 0) == cudaSuccess);
  }
  for (int r = 0; r < 12; ++r) {
    const int i = r % 3 == 2 ? (r / 3) % 3 : r % 3; // in turn, and now and then the same twice
    const auto in = random_values<std::uint32_t>(static_cast<std::size_t>(specs[i].n), 1600 + r);
    const auto ref = specs[i].exclusive ? reference_exclusive(in, 0u, carry::sum{})
                                        : reference_inclusive(in, carry::sum{});
    ins[i].upload(in);
    outs[i].poison();
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize()); // uploads and poison (legacy stream) are done
    REQUIRE(cudaGraphLaunch(gr[i].exec, st.b) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(st.b) == cudaSuccess);
    INFO("launch " << r << ": graph " << i);
    CHECK(outs[i].download(static_cast<std::size_t>(specs[i].n)) == ref);
  }
}

TEST_CASE("graphs: reduce (many tiles, one tile, empty) replayed", "[gpu][graph][reduce]") {
  streams st;
  for (std::int64_t n : {std::int64_t{(1 << 20) + 9}, std::int64_t{1000}, std::int64_t{0}}) {
    device_buffer<std::uint32_t> d_in(std::max<std::int64_t>(n, 1)), d_out(1);
    std::size_t bytes = 0;
    REQUIRE(carry::reduce(nullptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, 5u, n, st.a) == cudaSuccess);
    device_buffer<unsigned char> tmp(bytes);
    tmp.poison();
    graph gr;
    REQUIRE(cudaStreamBeginCapture(st.a, cudaStreamCaptureModeGlobal) == cudaSuccess);
    const cudaError_t call = carry::reduce(tmp.ptr, bytes, d_in.ptr, d_out.ptr, carry::sum{}, 5u, n, st.a);
    REQUIRE(cudaStreamEndCapture(st.a, &gr.g) == cudaSuccess);
    REQUIRE(call == cudaSuccess);
    REQUIRE(cudaGraphInstantiate(&gr.exec, gr.g, 0) == cudaSuccess);
    for (int r = 0; r < 4; ++r) {
      const auto in = random_values<std::uint32_t>(static_cast<std::size_t>(n), 1700 + r);
      d_in.upload(in);
      d_out.poison();
      CARRY_CUDA_OR_DIE(cudaDeviceSynchronize()); // uploads and poison (legacy stream) are done
      REQUIRE(cudaGraphLaunch(gr.exec, st.b) == cudaSuccess);
      REQUIRE(cudaStreamSynchronize(st.b) == cudaSuccess);
      INFO("n = " << n << ", replay " << r);
      CHECK(d_out.download(1)[0] == reference_reduce(in, 5u, carry::sum{}));
    }
  }
}

TEST_CASE("dirty temp storage: zeros, ones, random bytes, the poison, other data; every mode and path",
          "[gpu][dirty]") {
  std::uint64_t seed = 1800;
  std::size_t most = 0;
  for (int m = 0; m < 4; ++m)
    for (std::int64_t n : path_sizes(true)) {
      std::size_t b = 0;
      REQUIRE(scan_call(nullptr, b, nullptr, nullptr, n, true, modes[m], 0) == cudaSuccess);
      most = std::max(most, b);
    }
  device_buffer<unsigned char> tmp(most);
  std::mt19937_64 g(77);
  for (int fill = 0; fill < 5; ++fill) {
    if (fill < 3 || fill == 3) {
      const int byte = fill == 0 ? 0x00 : fill == 1 ? 0xFF : fill == 2 ? -1 : poison_byte;
      if (byte >= 0) {
        CARRY_CUDA_OR_DIE(cudaMemset(tmp.ptr, byte, most + 1));
      } else {
        std::vector<unsigned char> r(most + 1);
        for (auto& x : r) x = static_cast<unsigned char>(g());
        CARRY_CUDA_OR_DIE(cudaMemcpy(tmp.ptr, r.data(), r.size(), cudaMemcpyHostToDevice));
      }
    }
    for (int m = 0; m < 4; ++m)
      for (std::int64_t n : path_sizes(fill == 0 && m == 0))
        for (int exclusive = 0; exclusive < 2; ++exclusive) {
          if (fill == 4) { // other data: small counts, the kind of words a status array holds (1, 2, ...)
            const auto words = random_values<std::uint32_t>(most / 4, seed);
            std::vector<std::uint32_t> small(words.size());
            for (std::size_t i = 0; i < small.size(); ++i) small[i] = words[i] % 4;
            CARRY_CUDA_OR_DIE(cudaMemcpy(tmp.ptr, small.data(), small.size() * 4, cudaMemcpyHostToDevice));
          }
          const auto in = random_values<std::uint32_t>(static_cast<std::size_t>(n), seed++);
          const auto ref =
              exclusive ? reference_exclusive(in, 0u, carry::sum{}) : reference_inclusive(in, carry::sum{});
          device_buffer<std::uint32_t> d_in(n), d_out(n, 16);
          d_in.upload(in);
          d_out.poison();
          std::size_t bytes = most;
          INFO("fill " << fill << ", " << mode_name(m) << ", n = " << n << ", exclusive " << exclusive);
          REQUIRE(scan_call(tmp.ptr, bytes, d_in.ptr, d_out.ptr, n, exclusive, modes[m], 0) == cudaSuccess);
          CHECK(d_out.download(static_cast<std::size_t>(n)) == ref);
          CHECK(d_out.guard_intact());
          // no re-fill for fills 0-3 between calls: each call also meets the previous one's leftovers
        }
  }
}

TEST_CASE("dirty temp storage: leftovers of other operations (a scan's output, a reduce, u64 and u8 scans)",
          "[gpu][dirty]") {
  const std::int64_t n = capped_sizes({(1 << 20) + 3, 100003}).front();
  const auto in = random_values<std::uint32_t>(n, 1900);
  const auto ref = reference_exclusive(in, 0u, carry::sum{});
  std::size_t bytes = 0;
  REQUIRE(carry::exclusive_sum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                               static_cast<std::uint32_t*>(nullptr), n, modes[2]) == cudaSuccess);
  const std::size_t big = std::max<std::size_t>(bytes, std::size_t{1} << 22);
  device_buffer<unsigned char> tmp(big);
  device_buffer<std::uint32_t> d_in(n), d_out(n);
  d_in.upload(in);
  device_buffer<std::uint64_t> w_in(n), w_out(n);
  w_in.upload(random_values<std::uint64_t>(n, 1901));
  device_buffer<std::uint8_t> b_in(n), b_out(n);
  b_in.upload(random_values<std::uint8_t>(n, 1902));
  for (int round = 0; round < 6; ++round) {
    // the other operation, on the same temp storage
    std::size_t b = big;
    switch (round) {
    case 0: // the temp storage was a scan's output: prefix sums of random words
      REQUIRE(carry::inclusive_sum(d_out.ptr, b, d_in.ptr, reinterpret_cast<std::uint32_t*>(tmp.ptr),
                                   std::min<std::int64_t>(static_cast<std::int64_t>(big / 4), n),
                                   modes[2]) == cudaSuccess);
      break;
    case 1:
      REQUIRE(carry::reduce(tmp.ptr, b, d_in.ptr, d_out.ptr, carry::sum{}, 1u, n) == cudaSuccess);
      break;
    case 2:
      REQUIRE(carry::inclusive_sum(tmp.ptr, b, w_in.ptr, w_out.ptr, n, modes[3]) == cudaSuccess);
      break;
    case 3:
      REQUIRE(carry::inclusive_sum(tmp.ptr, b, b_in.ptr, b_out.ptr, n, modes[2]) == cudaSuccess);
      break;
    case 4:
      REQUIRE(carry::exclusive_sum(tmp.ptr, b, d_in.ptr, d_out.ptr, n - 77777, modes[1]) == cudaSuccess);
      break;
    default: // the very same call, with another input: its own complete, published words are left
      REQUIRE(carry::exclusive_sum(tmp.ptr, b, w_in.ptr, w_out.ptr, n, modes[2]) == cudaSuccess);
      REQUIRE(carry::exclusive_sum(tmp.ptr, b, d_out.ptr, d_out.ptr, n, modes[2]) == cudaSuccess);
      break;
    }
    for (int m = 0; m < 4; ++m) {
      d_out.poison();
      std::size_t tb = big;
      INFO("after operation " << round << ", " << mode_name(m));
      REQUIRE(carry::exclusive_sum(tmp.ptr, tb, d_in.ptr, d_out.ptr, n, modes[m]) == cudaSuccess);
      CHECK(d_out.download(n) == ref);
    }
  }
}
