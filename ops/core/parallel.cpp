#include "core/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace gradconf {
namespace {
constexpr int kMaxThreads = 256;

int default_threads() {
  if (const char* env = std::getenv("GRADCONF_NUM_THREADS")) {
    const int value = std::atoi(env);
    if (value > 0) return std::min(value, kMaxThreads);
  }
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxThreads);
}

std::atomic<int>& configured_threads() {
  static std::atomic<int> threads{default_threads()};
  return threads;
}
[[maybe_unused]] const std::atomic<int>& threads_at_load = configured_threads();  // fork_safe.h

thread_local int current_worker = 0;
thread_local int regions_on_this_thread = 0;  // ParallelRegions alive on the calling thread

// Workers sleep between jobs (inside a ParallelRegion they first spin a while for the next one);
// a job is one parallel_for call split into `parts` chunks, part i run by worker i (the caller
// runs part 0).
//
// The pool lives inside other people's processes: it is never destroyed (a call from a static
// destructor or an atexit handler still finds it, with its workers), and it survives fork(): the
// parent holds both locks across the fork, so the child inherits a consistent state, and the child,
// which has none of the parent's threads, forgets the workers and starts its own on first use.
class Pool {
 public:
  Pool() { pthread_atfork(&Pool::before_fork, &Pool::after_fork_parent, &Pool::after_fork_child); }

  void run(int parts, const std::function<void(int)>& part_fn) {
    std::unique_lock call_lock(call_mutex_);  // one parallel_for at a time on the pool
    ensure_workers(parts - 1);
    {
      std::lock_guard lock(mutex_);
      job_ = &part_fn;
      parts_ = parts;
      pending_.store(parts - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();  // no system call when every worker is still spinning
    part_fn(0);
    if (!spin_until(kCallerSpin, [&] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    std::lock_guard lock(mutex_);
    job_ = nullptr;
  }

  bool lingers() const { return linger_.load(std::memory_order_relaxed); }

  static Pool& instance() {
    static Pool* pool = new Pool();  // never destroyed, see above
    return *pool;
  }

 private:
  static void before_fork() {
    instance().call_mutex_.lock();
    instance().mutex_.lock();
  }
  static void after_fork_parent() {
    instance().mutex_.unlock();
    instance().call_mutex_.unlock();
  }
  static void after_fork_child() {
    Pool& pool = instance();
    // The std::thread objects name threads that do not exist here: they can be neither joined
    // nor destroyed (a joinable std::thread's destructor terminates), so they are leaked.
    new std::vector<std::thread>(std::move(pool.workers_));
    pool.workers_.clear();
    pool.job_ = nullptr;
    pool.parts_ = 0;
    pool.pending_.store(0, std::memory_order_relaxed);
    // Only the forking thread's regions exist here: the parent's other threads' would keep the
    // child's workers spinning after each call.
    pool.regions_.store(regions_on_this_thread, std::memory_order_relaxed);
    // The condition variables still count the parent's waiters; a broadcast would wait for them
    // to wake forever. Fresh ones (their storage is reused, nothing to destroy in the child).
    new (&pool.wake_) std::condition_variable();
    new (&pool.done_) std::condition_variable();
    pool.mutex_.unlock();
    pool.call_mutex_.unlock();
  }

  void ensure_workers(int count) {
    while (static_cast<int>(workers_.size()) < count) {
      const int index = static_cast<int>(workers_.size()) + 1;
      workers_.emplace_back([this, index] { work(index); });
    }
  }

  void work(int index) {
    current_worker = index;
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* job;
      // Between the calls of a region the next one comes microseconds later; outside one the
      // worker sleeps at once (a thread spinning while the caller unmaps memory made every unmap
      // a cross-CPU TLB flush: the ASan fuzzers ran 20% slower), unless the kernels come back to
      // back (linger_).
      spin_until(kRegionSpin, [&] {
        return generation_.load(std::memory_order_acquire) != seen ||
               (regions_.load(std::memory_order_relaxed) == 0 &&
                !linger_.load(std::memory_order_relaxed));
      });
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
        seen = generation_.load(std::memory_order_relaxed);
        if (index >= parts_) continue;
        job = job_;
      }
      (*job)(index);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Under the lock: the caller may be between its check of pending_ and its wait.
        std::lock_guard lock(mutex_);
        done_.notify_one();
      }
    }
  }

  /// Waking a sleeping thread took about 13 us on a 2-core VM, twice per parallel_for (the
  /// workers, then the caller): 27 us for an empty call, a tenth of a GridSampler2D backward at 2
  /// threads. So the caller spins for its workers' parts, and inside a ParallelRegion (a kernel of
  /// several passes) the workers spin for the next call, each for at most this long, then sleep.
  static constexpr auto kCallerSpin = std::chrono::microseconds(100);
  static constexpr auto kRegionSpin = std::chrono::microseconds(500);
  template <typename Ready>
  static bool spin_until(std::chrono::microseconds limit, Ready ready) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (int i = 1;; ++i) {
      if (ready()) return true;
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      if (i % 64 != 0) continue;
      if (std::chrono::steady_clock::now() > deadline) return ready();
      // A thread of another process may be waiting for this core (tests and campaign shards run
      // side by side): spinning on through it slowed a pair of report tests by a third.
      sched_yield();
    }
  }

  std::mutex call_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0;
  std::atomic<int> pending_{0};          ///< parts not yet done; written under mutex_ or atomically
  std::atomic<uint64_t> generation_{0};  ///< bumped under mutex_ per job; spinners read it alone
  std::atomic<int> regions_{0};          ///< ParallelRegions alive, on any thread
  /// Kernels come back to back: the last region began within kBackToBackNs of the previous one's
  /// end. Workers then spin on after a region (up to kRegionSpin) for the next kernel's first call
  /// instead of sleeping: woken, a thread ran 20-40 us later on a 2-core VM, and each kernel's
  /// first call waited that long for its workers' parts (GridSampler2D at 2 threads, N 1, C 4,
  /// 256 x 256: forward 0.40 -> 0.36 ms, nearest backward 0.50 -> 0.48; bench/README session 70).
  /// A caller that works between its kernels (the fuzzers: hundreds of microseconds) keeps the
  /// sleeping workers.
  std::atomic<bool> linger_{false};
  std::atomic<int64_t> last_region_end_ns_{std::numeric_limits<int64_t>::min() / 2};
  static constexpr int64_t kBackToBackNs = 50'000;
  friend class gradconf::ParallelRegion;
};

Pool& pool() { return Pool::instance(); }
// Created at load: its constructor registers fork handlers, which fork() holds a lock against
// (fork_safe.h).
[[maybe_unused]] const Pool& pool_at_load = pool();

thread_local bool inside_parallel_region = false;
}  // namespace

int num_threads() { return configured_threads().load(std::memory_order_relaxed); }

void set_num_threads(int threads) {
  configured_threads().store(threads > 0 ? std::min(threads, kMaxThreads) : default_threads(),
                             std::memory_order_relaxed);
}

int worker_index() { return current_worker; }

bool workers_linger_after_regions() { return pool().lingers(); }

namespace {
int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

ParallelRegion::ParallelRegion() {
  ++regions_on_this_thread;
  Pool& p = pool();
  if (p.regions_.fetch_add(1, std::memory_order_relaxed) == 0) {
    const int64_t gap = steady_ns() - p.last_region_end_ns_.load(std::memory_order_relaxed);
    p.linger_.store(gap < Pool::kBackToBackNs, std::memory_order_relaxed);
  }
}
ParallelRegion::~ParallelRegion() {
  --regions_on_this_thread;
  Pool& p = pool();
  if (p.regions_.load(std::memory_order_relaxed) == 1)
    p.last_region_end_ns_.store(steady_ns(), std::memory_order_relaxed);
  p.regions_.fetch_sub(1, std::memory_order_relaxed);
}

namespace {
std::atomic<bool>& fine_split() {
  static std::atomic<bool> fine{false};
  return fine;
}
}  // namespace

bool set_fine_split(bool fine) { return fine_split().exchange(fine, std::memory_order_relaxed); }

int64_t grain_for_work(double work_per_index) {
  if (fine_split().load(std::memory_order_relaxed) ||
      work_per_index >= static_cast<double>(kMinChunkWork)) {
    return 1;
  }
  return kMinChunkWork / std::max<int64_t>(1, static_cast<int64_t>(work_per_index));
}

int workers_for_work(double total_work, int threads) {
  if (threads <= 1 || fine_split().load(std::memory_order_relaxed)) return std::max(threads, 1);
  const double chunks = total_work / static_cast<double>(kMinChunkWork);
  return chunks >= threads ? threads : std::max(1, static_cast<int>(chunks));
}

int parallel_parts(int64_t count, int64_t grain, int max_workers) {
  const int64_t max_parts = std::max<int64_t>(1, count / std::max<int64_t>(1, grain));
  return static_cast<int>(
      std::min<int64_t>(std::min(num_threads(), std::max(1, max_workers)), max_parts));
}

void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn, int max_workers) {
  if (end <= begin) return;
  const int64_t count = end - begin;
  const int parts = parallel_parts(count, grain, max_workers);
  // Nested calls run inline: the pool serves one level, and inline keeps the same results.
  if (parts <= 1 || inside_parallel_region) {
    fn(begin, end);
    return;
  }
  const std::function<void(int)> part_fn = [&](int part) {
    const int64_t lo = begin + count * part / parts;
    const int64_t hi = begin + count * (part + 1) / parts;
    const bool outer = inside_parallel_region;
    inside_parallel_region = true;
    if (lo < hi) fn(lo, hi);
    inside_parallel_region = outer;
  };
  pool().run(parts, part_fn);
}

}  // namespace gradconf
