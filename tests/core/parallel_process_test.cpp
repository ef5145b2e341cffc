// The pool inside other people's processes: it keeps working in a child after fork() (Python
// multiprocessing and test runners fork), from static destructors and atexit handlers, and under
// concurrent calls from many application threads, with the same results every time; its idle
// workers do not keep a core busy.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

#include "core/parallel.h"

namespace gradconf {
namespace {

// Sum of i over [0, n) computed in chunks, each chunk's partial stored by index: the same bits
// for any split. Checks that every chunk ran and that workers reported valid indices.
int64_t chunked_sum(int64_t n) {
  std::vector<int64_t> partial(static_cast<size_t>(n), 0);
  std::atomic<bool> bad_worker{false};
  parallel_for(0, n, 1, [&](int64_t lo, int64_t hi) {
    if (worker_index() < 0 || worker_index() >= num_threads()) bad_worker = true;
    for (int64_t i = lo; i < hi; ++i) partial[static_cast<size_t>(i)] = i;
  });
  if (bad_worker) return -1;
  return std::accumulate(partial.begin(), partial.end(), int64_t{0});
}

constexpr int64_t kN = 4096;
constexpr int64_t kExpected = kN * (kN - 1) / 2;

// Waits for `child` up to 10 s; kills it and fails on a hang. Returns its exit status.
int wait_for(pid_t child) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      ADD_FAILURE() << "the child hung";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(PoolInProcesses, a_forked_child_runs_parallel_work) {
  set_num_threads(3);
  ASSERT_EQ(chunked_sum(kN), kExpected);  // the parent's workers exist now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(chunked_sum(kN) == kExpected && chunked_sum(kN) == kExpected ? 0 : 1);
  EXPECT_EQ(wait_for(child), 0);
  EXPECT_EQ(chunked_sum(kN), kExpected);  // and the parent's pool still works
  set_num_threads(0);
}

// In the child: use the pool, then call it again from an atexit handler and from a static
// object's destructor while the process exits.
struct CallsThePoolWhenDestroyed {
  ~CallsThePoolWhenDestroyed() {
    if (chunked_sum(kN) != kExpected) _exit(3);
  }
};

void calls_the_pool_at_exit() {
  if (chunked_sum(kN) != kExpected) _exit(2);
}

TEST(PoolInProcesses, static_destructors_and_atexit_handlers_can_use_the_pool) {
  set_num_threads(2);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    static CallsThePoolWhenDestroyed guard;  // destroyed during exit(), after the pool was used
    std::atexit(calls_the_pool_at_exit);
    if (chunked_sum(kN) != kExpected) _exit(1);
    std::exit(0);
  }
  EXPECT_EQ(wait_for(child), 0);
  set_num_threads(0);
}

TEST(PoolInProcesses, concurrent_callers_each_get_their_own_complete_result) {
  set_num_threads(3);
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        if (chunked_sum(kN) != kExpected) ++wrong;
      }
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(wrong.load(), 0);
  set_num_threads(0);
}

// Inside a ParallelRegion (a kernel's passes) the workers spin for the next call: a fork while
// they spin, concurrent callers each in their own region, and calls after the region all still
// get whole results.
TEST(PoolInProcesses, regions_keep_every_result_whole_through_fork_and_concurrent_callers) {
  set_num_threads(3);
  {
    const ParallelRegion passes;
    ASSERT_EQ(chunked_sum(kN), kExpected);  // the workers now spin for the next call
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(chunked_sum(kN) == kExpected ? 0 : 1);
    EXPECT_EQ(wait_for(child), 0);
    EXPECT_EQ(chunked_sum(kN), kExpected);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 100; ++round) {
        const ParallelRegion passes;
        if (chunked_sum(kN) != kExpected || chunked_sum(kN) != kExpected) ++wrong;
      }
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(chunked_sum(kN), kExpected);
  set_num_threads(0);
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Idle workers burn no core for long: outside a region they sleep as soon as a call is done, and
// in a region left open they stop spinning after a bounded while (kRegionSpin, 500 us). Two
// workers spinning through 200 ms would take 400 ms of CPU; the bound leaves room for a slow
// machine's wake-ups, not for spinning.
TEST(PoolInProcesses, idle_workers_sleep_in_and_out_of_regions) {
  set_num_threads(3);
  for (bool in_region : {false, true}) {
    std::optional<ParallelRegion> passes;
    if (in_region) passes.emplace();
    ASSERT_EQ(chunked_sum(kN), kExpected);
    const double before = process_cpu_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_LT(process_cpu_seconds() - before, 0.05)
        << (in_region ? "in" : "outside") << " a region";
  }
  set_num_threads(0);
}

// Kernels that come back to back keep the workers spinning between them (a woken worker starts
// tens of microseconds late); a caller that pauses between its kernels finds them asleep, and
// either way idle workers stop after the bound above.
TEST(PoolInProcesses, workers_linger_only_between_kernels_that_come_back_to_back) {
  set_num_threads(3);
  const auto kernel = [] {
    const ParallelRegion passes;
    return chunked_sum(kN);
  };
  ASSERT_EQ(kernel(), kExpected);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kernel(), kExpected);
  EXPECT_FALSE(workers_linger_after_regions()) << "after a 5 ms pause";
  // Back to back: tries a few times, a preempted test thread may see one long gap.
  bool lingered = false;
  for (int attempt = 0; attempt < 20 && !lingered; ++attempt) {
    ASSERT_EQ(kernel(), kExpected);
    lingered = workers_linger_after_regions();
  }
  EXPECT_TRUE(lingered);
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(process_cpu_seconds() - before, 0.05) << "lingering workers stop";
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kernel(), kExpected);
  EXPECT_FALSE(workers_linger_after_regions()) << "after a pause again";
  set_num_threads(0);
}

}  // namespace
}  // namespace gradconf

// A small call stays on the calling thread unless fine splitting is on, which the determinism
// law turns on so that its small problems really run on 2, 3 and 8 workers.
TEST(PoolGrain, small_work_stays_on_the_caller_unless_split_finely) {
  gradconf::set_num_threads(4);
  auto workers_used = [](int64_t grain) {
    std::atomic<int> chunks{0};
    gradconf::parallel_for(0, 64, grain, [&](int64_t, int64_t) { ++chunks; });
    return chunks.load();
  };
  const int64_t tiny = gradconf::grain_for_work(100.0);
  EXPECT_GE(tiny, 64);
  EXPECT_EQ(workers_used(tiny), 1);
  EXPECT_EQ(gradconf::grain_for_work(1e9), 1);
  const bool before = gradconf::set_fine_split(true);
  EXPECT_EQ(gradconf::grain_for_work(100.0), 1);
  EXPECT_EQ(workers_used(gradconf::grain_for_work(100.0)), 4);
  gradconf::set_fine_split(before);
  gradconf::set_num_threads(0);
}
