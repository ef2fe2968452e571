// The distributed layer's communicator (an ncclComm_t the caller made, with its rank, size and device),
// NCCL results as cudaError_t, and local_group: one process driving every local GPU, a thread a rank.
#pragma once

#include <exception>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

namespace carry {
namespace dist {

/// The NCCL result behind the last failed call of this thread (ncclSuccess when none failed in NCCL).
inline ncclResult_t& last_nccl_result() {
  thread_local ncclResult_t r = ncclSuccess;
  return r;
}

/// An NCCL result as the cudaError_t carry's calls return: ncclInvalidArgument / ncclInvalidUsage ->
/// cudaErrorInvalidValue; ncclUnhandledCudaError -> the CUDA error pending on this thread (else
/// cudaErrorUnknown); every other failure (system, internal, remote, timeout) -> cudaErrorUnknown. The
/// NCCL result itself stays in last_nccl_result().
inline cudaError_t from_nccl(ncclResult_t r) {
  if (r == ncclSuccess) return cudaSuccess;
  last_nccl_result() = r;
  if (r == ncclInvalidArgument || r == ncclInvalidUsage) return cudaErrorInvalidValue;
  if (r == ncclUnhandledCudaError) {
    const cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? e : cudaErrorUnknown;
  }
  return cudaErrorUnknown;
}

/// A rank of an NCCL communicator: the ncclComm_t (not owned: the caller destroys it once every call on
/// it has finished), its rank, the number of ranks and the rank's CUDA device. Every carry::dist call of
/// a rank runs on that device, which must be current when it is called.
///
///   ncclComm_t c;  ncclCommInitRank(&c, nranks, id, rank);   // id from rank 0, by MPI or any launcher
///   carry::dist::communicator comm;
///   if (carry::dist::communicator::wrap(c, comm) != cudaSuccess) ...
class communicator {
 public:
  communicator() = default;
  /// Wraps `comm` (queries its rank, size and device); a null comm is refused (cudaErrorInvalidValue).
  static cudaError_t wrap(ncclComm_t comm, communicator& out) {
    if (comm == nullptr) return cudaErrorInvalidValue;
    communicator c;
    c.comm_ = comm;
    if (const cudaError_t e = from_nccl(ncclCommUserRank(comm, &c.rank_)); e != cudaSuccess) return e;
    if (const cudaError_t e = from_nccl(ncclCommCount(comm, &c.size_)); e != cudaSuccess) return e;
    if (const cudaError_t e = from_nccl(ncclCommCuDevice(comm, &c.device_)); e != cudaSuccess) return e;
    out = c;
    return cudaSuccess;
  }
  ncclComm_t get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  bool valid() const { return comm_ != nullptr && size_ > 0 && rank_ >= 0 && rank_ < size_; }

 private:
  ncclComm_t comm_ = nullptr;
  int rank_ = -1, size_ = 0, device_ = -1;
};

/// One process driving GPUs 0 .. gpus-1 (tests, the tool): the communicators of ncclCommInitAll and one
/// non-blocking stream a rank, all owned and destroyed by the group (the only place carry::dist creates
/// either, and only when asked). run(f) calls f(rank) on a host thread per rank, its device current:
/// each rank's calls then run as they would in a process of their own.
///
///   carry::dist::local_group g;
///   carry::dist::local_group::create(4, g);
///   g.run([&](int r) { return carry::dist::inclusive_sum(..., g.comm(r), g.stream(r)); });
class local_group {
 public:
  local_group() = default;
  local_group(const local_group&) = delete;
  local_group& operator=(const local_group&) = delete;
  ~local_group() { release(); }

  /// Communicators and streams over devices 0 .. gpus-1 (gpus >= 1 and at most the visible devices).
  static cudaError_t create(int gpus, local_group& g) {
    g.release();
    int visible = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&visible); e != cudaSuccess) return e;
    if (gpus < 1 || gpus > visible) return cudaErrorInvalidValue;
    std::vector<ncclComm_t> raw(static_cast<std::size_t>(gpus));
    if (const cudaError_t e = from_nccl(ncclCommInitAll(raw.data(), gpus, nullptr)); e != cudaSuccess) return e;
    g.raw_ = raw;
    for (int r = 0; r < gpus; ++r) {
      communicator c;
      if (const cudaError_t e = communicator::wrap(raw[static_cast<std::size_t>(r)], c); e != cudaSuccess) return e;
      g.comms_.push_back(c);
      cudaStream_t s = nullptr;
      if (const cudaError_t e = cudaSetDevice(c.device()); e != cudaSuccess) return e;
      if (const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess) return e;
      g.streams_.push_back(s);
    }
    return cudaSetDevice(g.comms_[0].device());
  }

  int size() const { return static_cast<int>(comms_.size()); }
  const communicator& comm(int r) const { return comms_[static_cast<std::size_t>(r)]; }
  cudaStream_t stream(int r) const { return streams_[static_cast<std::size_t>(r)]; }

  /// f(rank) -> cudaError_t on one thread per rank, the rank's device current; the first failure (in
  /// rank order) is returned. NCCL needs every rank of a collective to take part: a rank whose f fails
  /// before its collectives leaves the others waiting (see the README's notes on errors).
  template <class F>
  cudaError_t run(F f) const {
    std::vector<cudaError_t> result(comms_.size(), cudaSuccess);
    std::vector<std::thread> threads;
    for (std::size_t r = 0; r < comms_.size(); ++r)
      threads.emplace_back([&, r] {
        result[r] = cudaSetDevice(comms_[r].device());
        if (result[r] == cudaSuccess) result[r] = f(static_cast<int>(r));
      });
    for (auto& t : threads) t.join();
    for (cudaError_t e : result)
      if (e != cudaSuccess) return e;
    return cudaSuccess;
  }

  /// Waits for every rank's stream.
  cudaError_t synchronize() const {
    return run([&](int r) { return cudaStreamSynchronize(streams_[static_cast<std::size_t>(r)]); });
  }

 private:
  void release() {
    for (std::size_t r = 0; r < streams_.size(); ++r) {
      cudaSetDevice(comms_[r].device());
      cudaStreamDestroy(streams_[r]);
    }
    for (ncclComm_t c : raw_) ncclCommDestroy(c);
    streams_.clear();
    comms_.clear();
    raw_.clear();
  }
  std::vector<ncclComm_t> raw_;
  std::vector<communicator> comms_;
  std::vector<cudaStream_t> streams_;
};

} // namespace dist
} // namespace carry
