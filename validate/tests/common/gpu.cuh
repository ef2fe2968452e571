// GPU test and benchmark support: device buffers, poisoning, error checks, the GPU presence probe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

namespace carry_validate {

/// Exit code that CTest reads as "skipped" (SKIP_RETURN_CODE) when no GPU is present.
constexpr int skip_return_code = 77;

inline bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define CARRY_CUDA_OR_DIE(...)                                                                               \
  do {                                                                                                       \
    cudaError_t e_ = (__VA_ARGS__);                                                                          \
    if (e_ != cudaSuccess) {                                                                                 \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__,         \
                   #__VA_ARGS__);                                                                            \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

/// Poison byte written into outputs and temp storage before each run: every element must be overwritten.
constexpr int poison_byte = 0xA5;

/// An owning device allocation of n elements (+ `guard` poisoned elements after them).
template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::size_t n = 0, guard = 0;
  device_buffer() = default;
  explicit device_buffer(std::size_t count, std::size_t guard_elems = 0) : n(count), guard(guard_elems) {
    CARRY_CUDA_OR_DIE(cudaMalloc(&ptr, (n + guard) * sizeof(T) + 1));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : ptr(o.ptr), n(o.n), guard(o.guard) { o.ptr = nullptr; }
  ~device_buffer() {
    if (ptr) cudaFree(ptr);
  }
  void poison() { CARRY_CUDA_OR_DIE(cudaMemset(ptr, poison_byte, (n + guard) * sizeof(T) + 1)); }
  void upload(const std::vector<T>& h) {
    poison();
    if (!h.empty())
      CARRY_CUDA_OR_DIE(cudaMemcpy(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download(std::size_t count) const {
    std::vector<T> h(count);
    if (count) CARRY_CUDA_OR_DIE(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  /// Whether the guard elements (and the trailing byte) still hold the poison.
  bool guard_intact() const {
    std::vector<unsigned char> g(guard * sizeof(T) + 1);
    CARRY_CUDA_OR_DIE(cudaMemcpy(g.data(), reinterpret_cast<const unsigned char*>(ptr) + n * sizeof(T),
                                 g.size(), cudaMemcpyDeviceToHost));
    for (unsigned char c : g)
      if (c != poison_byte) return false;
    return true;
  }
};

/// A transform output iterator's function in the tests: the value widened to 64 bits and doubled.
struct doubled {
  template <class T>
  __host__ __device__ std::int64_t operator()(T x) const {
    return static_cast<std::int64_t>(x) * 2;
  }
};

/// One call captured into a CUDA graph on the first of two non-blocking streams, instantiated; replay
/// `rep` launches it on stream rep % 2 and waits for it. `status`: the first error of capture or
/// instantiation (the call's own return value included).
struct captured_call {
  cudaStream_t streams[2]{};
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  cudaError_t status = cudaSuccess;
  template <class F>
  explicit captured_call(F&& call) {
    CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking));
    CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking));
    status = cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal);
    if (status != cudaSuccess) return;
    const cudaError_t called = call(streams[0]);
    status = cudaStreamEndCapture(streams[0], &graph);
    if (called != cudaSuccess) status = called;
    if (status == cudaSuccess) status = cudaGraphInstantiate(&exec, graph, 0);
  }
  captured_call(const captured_call&) = delete;
  captured_call& operator=(const captured_call&) = delete;
  /// Launches replay `rep` (after the caller's uploads, which it syncs first) and waits for it.
  cudaError_t replay(int rep) {
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize()); // legacy-stream uploads done before the non-blocking launch
    const cudaStream_t s = streams[rep % 2];
    const cudaError_t e = cudaGraphLaunch(exec, s);
    return e != cudaSuccess ? e : cudaStreamSynchronize(s);
  }
  ~captured_call() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    for (cudaStream_t s : streams)
      if (s) cudaStreamDestroy(s);
  }
};

/// The first line of every benchmark's output: GPU, SMs, L2, CUDA runtime, CUB's version (cccl, from the
/// baselines) and the carry commit ($CARRY_COMMIT).
/// The suite's sanitizer mode (CARRY_TEST_SANITIZE=1, as ./build.sh sanitize runs it): sizes capped at
/// 20000 items unless CARRY_TEST_MAX_N says otherwise, three sizes of a list (capped_sizes), ascending sorts
/// (test_directions), repetitions thinned (test_reps), the tests of sizes
/// past 2^31 skipped: every binary's cases, at sizes a sanitizer gets through.
inline bool sanitize_mode() {
  const char* e = std::getenv("CARRY_TEST_SANITIZE");
  return e != nullptr && *e != '\0' && *e != '0';
}
/// Repetitions of a loop that repeats one check: `full`, or `sanitized` in the sanitizer mode.
inline int test_reps(int full, int sanitized = 2) {
  return sanitize_mode() ? sanitized : full;
}
/// The sort directions a case runs: both, or ascending alone in the sanitizer mode (the same kernels).
inline std::vector<bool> test_directions() {
  return sanitize_mode() ? std::vector<bool>{false} : std::vector<bool>{false, true};
}

/// The benchmarks' banner: GPU, CUDA runtime, CCCL and carry commit (CARRY_COMMIT); the first line of every
/// table and, behind '# ', of every CSV.
inline std::string bench_banner(const char* cccl) {
  cudaDeviceProp p;
  CARRY_CUDA_OR_DIE(cudaGetDeviceProperties(&p, 0));
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  const char* commit = std::getenv("CARRY_COMMIT");
  char line[512];
  std::snprintf(line, sizeof line, "GPU: %s, %d SMs, %d MB L2; CUDA runtime %d.%d; CCCL %s; carry commit %s",
                p.name, p.multiProcessorCount, p.l2CacheSize >> 20, rt / 1000, rt % 1000 / 10, cccl,
                commit ? commit : "(CARRY_COMMIT unset)");
  return line;
}
inline void print_bench_banner(const char* cccl) {
  std::printf("%s\n", bench_banner(cccl).c_str());
}

} // namespace carry_validate
