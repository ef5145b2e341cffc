// A deterministic parallel_for. Kernels give every output element exactly one writer and compute
// it in a fixed order, so results are bitwise identical for any thread count; the pool only
// decides who runs which contiguous chunk of the index range.
#ifndef GRADCONF_OPS_CORE_PARALLEL_H_
#define GRADCONF_OPS_CORE_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace gradconf {

/// Threads used by kernels: set_num_threads, else GRADCONF_NUM_THREADS, else the core count.
int num_threads();
/// `threads` <= 0 restores the default.
void set_num_threads(int threads);

/// Calls fn(chunk_begin, chunk_end) over disjoint chunks covering [begin, end). Chunks of fewer
/// than `grain` indices are not split further, and at most `max_workers` chunks run (a kernel
/// whose workspace holds one slice per worker passes the count it planned for). Returns when
/// every chunk is done.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn, int max_workers = 1 << 30);
/// How many chunks parallel_for runs over `count` indices (1: the caller alone), so a pass can
/// tell whether other workers will read what it writes.
int parallel_parts(int64_t count, int64_t grain, int max_workers = 1 << 30);

/// Waking a sleeping worker costs 10-75 us on a 2-core VM (its vCPU halted), and a worker's
/// first reads of what the caller just wrote come from the other core: a chunk is given at least
/// this many units of work (about one multiply-add each, some 50 us), so a small call runs on
/// the calling thread alone. At 2^16, GridSampler2D backwards of 0.1-0.6 ms ran slower on 2
/// threads than on 1 (N 2, C 16, 32 x 32: 0.21 ms against 0.12).
inline constexpr int64_t kMinChunkWork = int64_t{1} << 18;
/// The grain for parallel_for when each index costs `work_per_index` units (a double: callers
/// multiply sizes that may be large, and only the order of magnitude matters). 1 under fine split.
int64_t grain_for_work(double work_per_index);
/// How many of `threads` workers a call of `total_work` units keeps busy with chunks worth
/// waking them for: for a kernel that plans per-worker workspace slices in phase 1. All of them
/// under fine split.
int workers_for_work(double total_work, int threads);
/// Fine split: grain_for_work gives 1, so small calls use every thread too (the determinism law
/// needs the workers used on its small problems). Returns the previous setting.
bool set_fine_split(bool fine);

/// While one is alive (a kernel of several parallel_for calls: run_executor holds one around the
/// kernel), idle workers spin for the next call instead of sleeping; outside any they sleep as
/// soon as a call is done, so a host process pays no spinning between kernels, unless its kernels
/// come back to back (workers_linger_after_regions).
class ParallelRegion {
 public:
  ParallelRegion();
  ~ParallelRegion();
  ParallelRegion(const ParallelRegion&) = delete;
  ParallelRegion& operator=(const ParallelRegion&) = delete;
};

/// Whether idle workers spin on after the current regions end (up to 500 us) instead of sleeping:
/// the last region began within 50 us of the previous one's end, so kernels come back to back.
bool workers_linger_after_regions();

/// The index of the calling worker in [0, num_threads()) inside parallel_for (0 outside), so a
/// kernel can give each worker its own slice of the workspace.
int worker_index();

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PARALLEL_H_
