// Delta-coding probe: the distributed sort's key coding on one GPU, pass by pass (the width pass, the
// engine's scan of the payload words, the pack pass; the receiver's scan of the same headers and the
// decode), each timed cold against a copy of the keys, and the round trip checked, for 1, 2, 4 and 8
// blocks of keys a warp (the policy's dist_delta_batch). One process, one GPU, no NCCL: a target for
// ncu, which cannot follow the one-process multi-GPU sort.
// usage: carry_probe_delta [log2 of the keys, default 28] [reps, default 20]
#include <carry/apps/distributed/detail/delta_kernels.cuh>
#include <carry/radixsort/device_radix_sort.cuh>
#include <carry/scan/device_scan.cuh>
#include <carry/scan/transform_input.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "bench/timing.cuh"

namespace {

using namespace carry::dist::detail;
using header = delta_header<std::uint32_t>;

__global__ void fill_kernel(std::uint32_t* p, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 0x9E3779B9u ^ seed;
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    p[i] = x;
  }
}

template <class T>
T* device(std::int64_t count) {
  T* p = nullptr;
  CARRY_CUDA_OR_DIE(cudaMalloc(&p, sizeof(T) * static_cast<std::size_t>(count)));
  return p;
}

} // namespace

int main(int argc, char** argv) {
  const int lg = argc > 1 ? std::atoi(argv[1]) : 28;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::int64_t n = std::int64_t{1} << lg, blocks = (n + delta_block - 1) / delta_block;
  auto* keys = device<std::uint32_t>(n);
  auto* sorted = device<std::uint32_t>(n);
  auto* out = device<std::uint32_t>(blocks * delta_block);
  auto* hd = device<header>(blocks + 1);
  auto* po = device<std::uint64_t>(blocks + 1);
  auto* ro = device<std::uint64_t>(blocks + 1);
  auto* pay = device<std::uint32_t>(blocks * delta_words(32));
  auto* kept = device<std::uint64_t>(2); // {0, 0}: this rank keeps nothing, every block is coded
  CARRY_CUDA_OR_DIE(cudaMemset(kept, 0, 2 * sizeof(std::uint64_t)));
  fill_kernel<<<1024, 256>>>(keys, n, 12345u);
  std::size_t sort_bytes = 0, scan_bytes = 0;
  CARRY_CUDA_OR_DIE(carry::sort_keys(nullptr, sort_bytes, keys, sorted, n, 0));
  const auto words =
      carry::make_transform_input(static_cast<const header*>(hd), delta_header_words<std::uint32_t>{});
  CARRY_CUDA_OR_DIE(carry::exclusive_sum(nullptr, scan_bytes, words, po, blocks + 1, 0));
  void* temp = device<char>(static_cast<std::int64_t>(sort_bytes > scan_bytes ? sort_bytes : scan_bytes));
  CARRY_CUDA_OR_DIE(carry::sort_keys(temp, sort_bytes, keys, sorted, n, 0));

  carry_validate::l2_flush f;
  CARRY_CUDA_OR_DIE(cudaMalloc(&f.buffer, f.bytes));
  const double key_bytes = 4.0 * static_cast<double>(n), head_bytes = 16.0 * static_cast<double>(blocks),
               off_bytes = 8.0 * static_cast<double>(blocks);
  const double copy_us = carry_validate::median_event_us_after(
      f, [&] { CARRY_CUDA_OR_DIE(cudaMemcpyAsync(out, sorted, n * 4, cudaMemcpyDeviceToDevice)); }, reps,
      true);
  std::printf("delta coding of 2^%d sorted u32 keys (%lld blocks of %d); copy of the keys %.1f us\n", lg,
              static_cast<long long>(blocks), delta_block, copy_us);
  std::printf("%-6s %-24s %9s %10s %8s\n", "batch", "pass", "us", "GB/s", "of copy");
  auto scan = [&](std::uint64_t* to, std::int64_t count) {
    std::size_t b = scan_bytes;
    CARRY_CUDA_OR_DIE(carry::exclusive_sum(temp, b, words, to, count, 0));
  };
  bool all_ok = true;
  auto run = [&](auto batch_tag) {
    constexpr int batch = decltype(batch_tag)::value;
    const unsigned grid = delta_grid<batch>(blocks);
    auto width = [&] {
      delta_width_kernel<batch><<<grid, delta_threads>>>(static_cast<const std::uint32_t*>(sorted), n, blocks,
                                                         false, static_cast<const std::uint64_t*>(kept), hd);
      CARRY_CUDA_OR_DIE(cudaGetLastError());
    };
    auto pack = [&] {
      delta_pack_kernel<batch><<<grid, delta_threads>>>(static_cast<const std::uint32_t*>(sorted), n, blocks,
                                                        false, static_cast<const std::uint64_t*>(kept),
                                                        static_cast<const header*>(hd),
                                                        static_cast<const std::uint64_t*>(po), pay);
      CARRY_CUDA_OR_DIE(cudaGetLastError());
    };
    auto decode = [&] {
      delta_decode_kernel<batch>
          <<<grid, delta_threads>>>(static_cast<const header*>(hd), static_cast<const std::uint64_t*>(ro),
                                    static_cast<const std::uint32_t*>(pay), blocks, false, out);
      CARRY_CUDA_OR_DIE(cudaGetLastError());
    };
    // ---- once, in order, to check the round trip and count the payload ----
    CARRY_CUDA_OR_DIE(cudaMemset(out, 0, n * 4));
    width();
    scan(po, blocks + 1);
    pack();
    scan(ro, blocks);
    decode();
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    std::uint64_t payload_words = 0;
    CARRY_CUDA_OR_DIE(cudaMemcpy(&payload_words, po + blocks, sizeof payload_words, cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> a(static_cast<std::size_t>(n)), b(a.size());
    CARRY_CUDA_OR_DIE(cudaMemcpy(a.data(), sorted, n * 4, cudaMemcpyDeviceToHost));
    CARRY_CUDA_OR_DIE(cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost));
    const bool ok = a == b;
    all_ok = all_ok && ok;
    const double pay_bytes = 4.0 * static_cast<double>(payload_words);
    // ---- each pass cold; bytes: what it must read and write at the least ----
    auto row = [&](const char* name, double us, double bytes) {
      std::printf("%-6d %-24s %9.1f %10.1f %8.2f\n", batch, name, us, bytes / us * 1e-3,
                  bytes / us / (2 * key_bytes / copy_us));
    };
    std::printf("%-6d payload %.2f bits a key: %s\n", batch, 8.0 * pay_bytes / static_cast<double>(n),
                ok ? "round trip ok" : "ROUND TRIP WRONG");
    row("width pass", carry_validate::median_event_us_after(f, width, reps, true), key_bytes + head_bytes);
    row("scan of payload words",
        carry_validate::median_event_us_after(
            f, [&] { scan(po, blocks + 1); }, reps, true),
        head_bytes + off_bytes);
    row("pack pass", carry_validate::median_event_us_after(f, pack, reps, true),
        key_bytes + head_bytes + off_bytes + pay_bytes);
    row("receiver's scan",
        carry_validate::median_event_us_after(
            f, [&] { scan(ro, blocks); }, reps, true),
        head_bytes + off_bytes);
    row("decode", carry_validate::median_event_us_after(f, decode, reps, true),
        head_bytes + off_bytes + pay_bytes + key_bytes);
  };
  run(std::integral_constant<int, 1>{});
  run(std::integral_constant<int, 2>{});
  run(std::integral_constant<int, 4>{});
  run(std::integral_constant<int, 8>{});
  return all_ok ? 0 : 1;
}
