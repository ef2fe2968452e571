// The distributed calls with one process per GPU (mpirun -np N; MPI only passes NCCL's unique id): each
// rank generates its shard of a global input from the index, runs dist scans, a compaction, a histogram
// and sorts, and checks its own part against the CPU; ranks agree on the verdict by MPI_Allreduce.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
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
      std::printf("rank %d: %s failed: %s\n", rank, #x, cudaGetErrorString(e_));                             \
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
    if (h[static_cast<std::size_t>(i)] & 1u)
      bad += k < got.size() && got[k++] != h[static_cast<std::size_t>(i)];
  // ---- histogram_even: 16 bins over all u32, the global counts on every rank ----
  bytes = 1 << 20;
  OK_OR_FAIL(carry::dist::histogram_even(temp, bytes, cin, hist, 16, 0ull, 1ull << 32, n, comm, s));
  std::vector<std::uint64_t> gh(16), wh(16, 0);
  OK_OR_FAIL(cudaStreamSynchronize(s));
  OK_OR_FAIL(cudaMemcpy(gh.data(), hist, 16 * 8, cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < total; ++i) ++wh[item(i) >> 28];
  bad += gh != wh;
  // ---- sort_keys (every u32) and sort_pairs (16 distinct keys, each item's global index as its value:
  // equal keys span the ranks and stay in input order): each rank's output is the slice at its offset of
  // the CPU's sorted whole, and the slices tile it (offsets: the counts before, MPI_Exscan) ----
  for (int pairs = 0; pairs < 2; ++pairs) {
    const std::int64_t cap = total / ranks + total / 8 + 4096;
    std::vector<std::uint32_t> hk(static_cast<std::size_t>(n)), hv(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      hk[static_cast<std::size_t>(i)] =
          pairs ? h[static_cast<std::size_t>(i)] >> 28 : h[static_cast<std::size_t>(i)];
      hv[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(begin + i);
    }
    std::uint32_t *kin, *vin, *kout, *vout;
    OK_OR_FAIL(cudaMalloc(&kin, static_cast<std::size_t>(n) * 4 + 4));
    OK_OR_FAIL(cudaMalloc(&vin, static_cast<std::size_t>(n) * 4 + 4));
    OK_OR_FAIL(cudaMalloc(&kout, static_cast<std::size_t>(cap) * 4 + 4));
    OK_OR_FAIL(cudaMalloc(&vout, static_cast<std::size_t>(cap) * 4 + 4));
    OK_OR_FAIL(cudaMemcpy(kin, hk.data(), static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice));
    OK_OR_FAIL(cudaMemcpy(vin, hv.data(), static_cast<std::size_t>(n) * 4, cudaMemcpyHostToDevice));
    OK_OR_FAIL(cudaDeviceSynchronize()); // the pageable uploads done before `s` reads them
    const std::uint32_t *ckin = kin, *cvin = vin;
    auto sort = [&](void* t, std::size_t& b) {
      return pairs ? carry::dist::sort_pairs(t, b, ckin, kout, cvin, vout, cap, info, n, comm, s)
                   : carry::dist::sort_keys(t, b, ckin, kout, cap, info, n, comm, s);
    };
    std::size_t sort_bytes = 0;
    OK_OR_FAIL(sort(nullptr, sort_bytes));
    void* sort_temp;
    OK_OR_FAIL(cudaMalloc(&sort_temp, sort_bytes));
    OK_OR_FAIL(sort(sort_temp, sort_bytes));
    OK_OR_FAIL(cudaStreamSynchronize(s));
    carry::dist::shard_info so;
    OK_OR_FAIL(cudaMemcpy(&so, info, sizeof(so), cudaMemcpyDeviceToHost));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> want(static_cast<std::size_t>(total));
    for (std::int64_t i = 0; i < total; ++i)
      want[static_cast<std::size_t>(i)] = {pairs ? item(i) >> 28 : item(i), static_cast<std::uint32_t>(i)};
    std::sort(want.begin(), want.end()); // (key, global index): the stable order
    const bool fits = so.total == total && so.count >= 0 && so.count <= cap && so.offset >= 0 &&
                      so.offset + so.count <= total;
    bad += !fits;
    long long count = fits ? so.count : 0, before_me = 0, sum = 0;
    MPI_Exscan(&count, &before_me, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&count, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    bad += (rank == 0 ? 0 : before_me) != so.offset || sum != total;
    if (fits) {
      std::vector<std::uint32_t> gk(static_cast<std::size_t>(count)), gv(gk.size());
      OK_OR_FAIL(cudaMemcpy(gk.data(), kout, gk.size() * 4, cudaMemcpyDeviceToHost));
      if (pairs) OK_OR_FAIL(cudaMemcpy(gv.data(), vout, gv.size() * 4, cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < gk.size(); ++i) {
        const auto& w = want[static_cast<std::size_t>(so.offset) + i];
        bad += gk[i] != w.first || (pairs && gv[i] != w.second);
      }
    }
    for (void* p : {static_cast<void*>(kin), static_cast<void*>(vin), static_cast<void*>(kout),
                    static_cast<void*>(vout), sort_temp})
      cudaFree(p);
  }
  std::printf("rank %d of %d (GPU %d): shard [%lld, %lld): %s\n", rank, ranks, comm.device(),
              static_cast<long long>(begin), static_cast<long long>(begin + n), bad == 0 ? "ok" : "MISMATCH");
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(hist),
                  static_cast<void*>(info), temp})
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
  if (cudaGetDeviceCount(&devices) != cudaSuccess || ranks < 2 || devices < ranks) {
    if (rank == 0)
      std::printf(
          "%d GPU(s), %d process(es): the MPI test needs 2 processes or more and a GPU each, skipped\n",
          devices, ranks);
    MPI_Finalize();
    return 77;
  }
  const int mine = run(rank, ranks, 3000017);
  int failed = 0;
  MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
