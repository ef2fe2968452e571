// The distributed layer's communicator (an ncclComm_t the caller made, with its rank, size and device),
// NCCL results as cudaError_t, side_stream (a caller's second stream lent to the sorts), and local_group:
// one process driving every local GPU, a thread a rank.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
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

/// A second stream of the caller's lent to a distributed sort, with the two events that fork it from the
/// caller's stream and join it back: the sort then exchanges its sorted parts slice by slice on this
/// stream and merges each slice that has arrived on the caller's stream while the next is in flight. Make
/// it with the greatest priority (cudaDeviceGetStreamPriorityRange), so the exchange's kernels are not
/// held behind the merges' blocks. The caller makes (and destroys) the stream; create() makes the two
/// events and destroy() releases them: nothing else is created. One call at a time may use it; its work
/// there is done when the caller's stream passes the call (the sort joins it back before it returns).
///
///   int least, greatest;  cudaDeviceGetStreamPriorityRange(&least, &greatest);
///   cudaStream_t s2;  cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, greatest);
///   carry::dist::side_stream side;
///   carry::dist::side_stream::create(s2, side);
///   carry::dist::sort_keys(d_temp, bytes, d_in, d_out, capacity, d_shard, n, comm, side, stream);
///   side.destroy();  cudaStreamDestroy(s2);
class side_stream {
public:
  side_stream() = default;
  /// The events for stream `s` (any stream of the rank's device; the legacy default stream 0 too).
  static cudaError_t create(cudaStream_t s, side_stream& out) {
    side_stream t;
    t.stream_ = s;
    if (const cudaError_t e = cudaEventCreateWithFlags(&t.fork_, cudaEventDisableTiming); e != cudaSuccess)
      return e;
    if (const cudaError_t e = cudaEventCreateWithFlags(&t.join_, cudaEventDisableTiming); e != cudaSuccess) {
      cudaEventDestroy(t.fork_);
      return e;
    }
    out = t;
    return cudaSuccess;
  }
  /// Releases the events (not the stream); the object is then empty.
  cudaError_t destroy() {
    cudaError_t e = cudaSuccess;
    if (fork_ != nullptr) e = cudaEventDestroy(fork_);
    if (join_ != nullptr) {
      const cudaError_t f = cudaEventDestroy(join_);
      if (e == cudaSuccess) e = f;
    }
    *this = side_stream{};
    return e;
  }
  bool valid() const { return fork_ != nullptr && join_ != nullptr; }
  cudaStream_t stream() const { return stream_; }
  cudaEvent_t fork() const { return fork_; } // recorded on the caller's stream, waited on here
  cudaEvent_t join() const { return join_; } // recorded here, waited on by the caller's stream

private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
};

/// One process driving GPUs 0 .. gpus-1 (tests, the tool): the communicators of ncclCommInitAll, two
/// non-blocking streams a rank (the rank's stream, and a side_stream for the sorts at the greatest
/// priority) and one host thread a rank, all owned and released by the group (the only place carry::dist
/// creates any of them, and only when asked). run(f) calls f(rank) on every rank's
/// thread at once, its device current: each rank's calls then run as they would in a process of their
/// own. run is not reentrant (f may not call run).
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

  /// Communicators, streams and threads over devices 0 .. gpus-1 (gpus >= 1, at most the visible devices).
  static cudaError_t create(int gpus, local_group& g) {
    g.release();
    int visible = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&visible); e != cudaSuccess) return e;
    if (gpus < 1 || gpus > visible) return cudaErrorInvalidValue;
    std::vector<ncclComm_t> raw(static_cast<std::size_t>(gpus));
    if (const cudaError_t e = from_nccl(ncclCommInitAll(raw.data(), gpus, nullptr)); e != cudaSuccess)
      return e;
    g.raw_ = raw;
    for (int r = 0; r < gpus; ++r) {
      communicator c;
      if (const cudaError_t e = communicator::wrap(raw[static_cast<std::size_t>(r)], c); e != cudaSuccess)
        return e;
      g.comms_.push_back(c);
      cudaStream_t s = nullptr;
      if (const cudaError_t e = cudaSetDevice(c.device()); e != cudaSuccess) return e;
      if (const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess)
        return e;
      g.streams_.push_back(s);
      int least = 0, greatest = 0; // the side stream at the greatest priority (side_stream)
      if (const cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest); e != cudaSuccess)
        return e;
      cudaStream_t s2 = nullptr;
      if (const cudaError_t e = cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, greatest);
          e != cudaSuccess)
        return e;
      side_stream side;
      if (const cudaError_t e = side_stream::create(s2, side); e != cudaSuccess) {
        cudaStreamDestroy(s2);
        return e;
      }
      g.sides_.push_back(side);
    }
    g.workers_ = std::make_unique<workers>();
    g.workers_->result.assign(static_cast<std::size_t>(gpus), cudaSuccess);
    for (int r = 0; r < gpus; ++r) g.workers_->threads.emplace_back([&g, r] { g.serve(r); });
    return cudaSetDevice(g.comms_[0].device());
  }

  int size() const { return static_cast<int>(comms_.size()); }
  const communicator& comm(int r) const { return comms_[static_cast<std::size_t>(r)]; }
  cudaStream_t stream(int r) const { return streams_[static_cast<std::size_t>(r)]; }
  const side_stream& side(int r) const { return sides_[static_cast<std::size_t>(r)]; }

  /// f(rank) -> cudaError_t on every rank's thread at once, the rank's device current; returns when all
  /// have returned, with the first failure in rank order. NCCL needs every rank of a collective to take
  /// part: a rank whose f fails before its collectives leaves the others waiting (see the README's notes
  /// on errors).
  template <class F>
  cudaError_t run(F f) const {
    workers& w = *workers_;
    {
      std::lock_guard<std::mutex> lock(w.m);
      w.job = [&f](int r) { return f(r); };
      w.finished = 0;
      ++w.generation;
    }
    w.go.notify_all();
    std::unique_lock<std::mutex> lock(w.m);
    w.done.wait(lock, [&] { return w.finished == size(); });
    for (cudaError_t e : w.result)
      if (e != cudaSuccess) return e;
    return cudaSuccess;
  }

  /// Waits for every rank's stream.
  cudaError_t synchronize() const {
    return run([&](int r) { return cudaStreamSynchronize(streams_[static_cast<std::size_t>(r)]); });
  }

private:
  struct workers {
    std::mutex m;
    std::condition_variable go, done;
    std::function<cudaError_t(int)> job;
    std::uint64_t generation = 0;
    int finished = 0;
    bool stop = false;
    std::vector<cudaError_t> result;
    std::vector<std::thread> threads;
  };

  void serve(int r) { // rank r's thread: waits for a job, runs it on the rank's device, reports
    workers& w = *workers_;
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(w.m);
        w.go.wait(lock, [&] { return w.stop || w.generation != seen; });
        if (w.stop) return;
        seen = w.generation;
      }
      cudaError_t e = cudaSetDevice(comms_[static_cast<std::size_t>(r)].device());
      if (e == cudaSuccess) e = w.job(r);
      std::lock_guard<std::mutex> lock(w.m);
      w.result[static_cast<std::size_t>(r)] = e;
      if (++w.finished == size()) w.done.notify_all();
    }
  }

  void release() {
    if (workers_) {
      {
        std::lock_guard<std::mutex> lock(workers_->m);
        workers_->stop = true;
      }
      workers_->go.notify_all();
      for (auto& t : workers_->threads) t.join();
      workers_.reset();
    }
    for (std::size_t r = 0; r < streams_.size(); ++r) {
      cudaSetDevice(comms_[r].device());
      cudaStreamDestroy(streams_[r]);
      if (r < sides_.size()) {
        const cudaStream_t s2 = sides_[r].stream();
        sides_[r].destroy();
        cudaStreamDestroy(s2);
      }
    }
    for (ncclComm_t c : raw_) ncclCommDestroy(c);
    streams_.clear();
    sides_.clear();
    comms_.clear();
    raw_.clear();
  }

  std::vector<ncclComm_t> raw_;
  std::vector<communicator> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<side_stream> sides_;
  std::unique_ptr<workers> workers_;
};

} // namespace dist
} // namespace carry
