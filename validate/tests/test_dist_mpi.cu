// The distributed calls with one process per GPU (mpirun -np N; MPI only passes NCCL's unique id): each
// rank generates its shard of a global input from the index, runs dist scans, a compaction and a
// histogram, and checks its own part against the CPU; ranks agree on the verdict by MPI_Allreduce.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <mpi.h>

#include <carry/apps/distributed.cuh>

namespace {

std::uint32_t item(std::int64_t i) { // the global input: a hash of the index
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x);
}
struct odd {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0u; }
};

#define OK_OR_FAIL(x)                                                                                        \
  do {                                                                                                       \
    const cudaError_t e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                                 \
      std::printf("rank %d: %s failed: %s\n", rank, #x, cudaGetErrorString(e_));                            \
      return 1;                                                                                              \
    }                                                                                                        \
  } while (0)

int run(int rank, int ranks, std::int64_t total) {
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  int devices = 0;
  OK_OR_FAIL(cudaGetDeviceCount(&devices));
  OK_OR_FAIL(cudaSetDevice(rank % devices));
  ncclComm_t raw;
  OK_OR_FAIL(carry::dist::from_nccl(ncclCommInitRank(&raw, ranks, id, rank)));
  carry::dist::communicator comm;
  OK_OR_FAIL(carry::dist::communicator::wrap(raw, comm));
  cudaStream_t s;
  OK_OR_FAIL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // uneven shards: rank r holds a share r + 1 of the total (the last takes the rest)
  const std::int64_t parts = std::int64_t{ranks} * (ranks + 1) / 2;
  std::int64_t begin = 0;
  for (int q = 0; q < rank; ++q) begin += total * (q + 1) / parts;
  const std::int64_t n = rank == ranks - 1 ? total - begin : total * (rank + 1) / parts;
  std::vector<std::uint32_t> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = item(begin + i);
  std::uint32_t *in, *out;
  std::uint64_t* hist;
  carry::dist::shard_info* info;
  OK_OR_FAIL(cudaMalloc(&in, static_cast<std::size_t>(n) * 4 + 4));
  OK_OR_FAIL(cudaMalloc(&out, static_cast<std::size_t>(n) * 4 + 4));
  OK_OR_FAIL(cudaMalloc(&hist, 16 * 8));
  OK_OR_FAIL(cudaMalloc(&info, sizeof(*info)));
  OK_OR_FAIL(cudaMemcpy(in, h.data(), static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice));
  OK_OR_FAIL(cudaDeviceSynchronize()); // a pageable upload may still be in flight; `s` does not wait for it
  const std::uint32_t* cin = in;
  int bad = 0;
  // ---- exclusive sum: the CPU's global prefix before this shard, then this shard's ----
  std::size_t bytes = 0;
  OK_OR_FAIL(carry::dist::exclusive_sum(nullptr, bytes, cin, out, n, comm, s));
  void* temp;
  OK_OR_FAIL(cudaMalloc(&temp, bytes + (1 << 20)));
  OK_OR_FAIL(carry::dist::exclusive_sum(temp, bytes, cin, out, n, comm, s));
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n));
  OK_OR_FAIL(cudaStreamSynchronize(s));
  OK_OR_FAIL(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
  std::uint32_t acc = 0;
  for (std::int64_t i = 0; i < begin; ++i) acc += item(i);
  for (std::int64_t i = 0; i < n; ++i) {
    bad += got[static_cast<std::size_t>(i)] != acc;
    acc += h[static_cast<std::size_t>(i)];
  }
  // ---- select_if: this shard's odd items, at the global offset of the odd items before it ----
  bytes = 1 << 20;
  OK_OR_FAIL(carry::dist::select_if(temp, bytes, cin, out, info, n, odd{}, comm, s));
  carry::dist::shard_info si;
  OK_OR_FAIL(cudaStreamSynchronize(s));
  OK_OR_FAIL(cudaMemcpy(&si, info, sizeof(si), cudaMemcpyDeviceToHost));
  std::int64_t before = 0, all = 0, mine = 0;
  for (std::int64_t i = 0; i < total; ++i)
    if (item(i) & 1u) {
      before += i < begin;
      ++all;
      mine += i >= begin && i < begin + n;
    }
  bad += si.offset != before || si.total != all || si.count != mine;
  got.resize(static_cast<std::size_t>(si.count));
  OK_OR_FAIL(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
  std::size_t k = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (h[static_cast<std::size_t>(i)] & 1u) bad += k < got.size() && got[k++] != h[static_cast<std::size_t>(i)];
  // ---- histogram_even: 16 bins over all u32, the global counts on every rank ----
  bytes = 1 << 20;
  OK_OR_FAIL(carry::dist::histogram_even(temp, bytes, cin, hist, 16, 0ull, 1ull << 32, n, comm, s));
  std::vector<std::uint64_t> gh(16), wh(16, 0);
  OK_OR_FAIL(cudaStreamSynchronize(s));
  OK_OR_FAIL(cudaMemcpy(gh.data(), hist, 16 * 8, cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < total; ++i) ++wh[item(i) >> 28];
  bad += gh != wh;
  std::printf("rank %d of %d (GPU %d): shard [%lld, %lld): %s\n", rank, ranks, comm.device(),
              static_cast<long long>(begin), static_cast<long long>(begin + n), bad == 0 ? "ok" : "MISMATCH");
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(hist), static_cast<void*>(info), temp})
    cudaFree(p);
  cudaStreamDestroy(s);
  ncclCommDestroy(raw);
  return bad == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2 || ranks < 2) {
    if (rank == 0) std::printf("%d GPU(s), %d process(es): the MPI test needs 2 of each, skipped\n", devices, ranks);
    MPI_Finalize();
    return 77;
  }
  const int mine = run(rank, ranks, 3000017);
  int failed = 0;
  MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
