#include "harness/harness.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <span>

#include "acl/acl.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "harness/backend.h"
#include "harness/dtype_codec.h"

namespace gradconf::props {
namespace {
constexpr uint8_t kOutputCanary = 0xA5;
constexpr uint8_t kWorkspaceGuard = 0x5A;
constexpr uint64_t kWorkspaceGuardBytes = 256;

// Storage offsets of the view's elements in logical row-major order.
std::vector<int64_t> view_offsets(const std::vector<int64_t>& dims, const ViewGeometry& g) {
  const int64_t count = checked_numel(dims).value_or(0);
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = g.offset;  // stays inside the storage: make_geometry sized it for the view
  for (int64_t i = 0; i < count; ++i) {
    offsets[static_cast<size_t>(i)] = offset;
    for (size_t d = dims.size(); d-- > 0;) {
      offset += g.strides[d];
      if (++index[d] < dims[d]) break;
      offset -= g.strides[d] * dims[d];
      index[d] = 0;
    }
  }
  return offsets;
}

using Offsets = std::shared_ptr<const std::vector<int64_t>>;

// A device block a call gave back, for the next call that asks the same runtime for the same
// size: its content is always rewritten (an image copied over it, a workspace filled).
struct SpareBlock {
  void* block = nullptr;
  size_t bytes = 0;
  decltype(&::aclrtMalloc) malloc = nullptr;  // tells runtimes apart
  decltype(&::aclrtFree) free = nullptr;
};
// At most 16 blocks and 128 MB a thread (a check with many jobs keeps that much per job).
constexpr size_t kSpareBlocks = 16;
constexpr size_t kSpareBytes = size_t{128} << 20;

// What a thread keeps between calls: the offsets of its last views (the runs of one law lay out
// the same views again: a workspace contract runs a call five times), host images and read-back
// buffers (a fresh large buffer per tensor cost the fuzzers an allocation, its shadow poisoning
// and its page faults every time), and device blocks of the sizes its last calls used (under
// ASan a fresh block past 128 KB is mapped anew, and filling it costs a page fault per page).
struct ThreadCache {
  struct View {
    std::vector<int64_t> dims, strides;
    int64_t offset;
    Offsets offsets;
  };
  std::vector<View> recent_views;  // oldest first
  std::vector<std::vector<uint8_t>> spare_images;
  std::vector<uint8_t> after, in_view;
  std::vector<SpareBlock> spare_blocks;  // oldest first

  ~ThreadCache() { free_spare_blocks(); }
  void free_spare_blocks() {
    for (const SpareBlock& spare : spare_blocks) spare.free(spare.block);
    spare_blocks.clear();
  }
};

// The cache is reached through a trivially destructible pointer: the host-process laws call from
// atexit handlers, after the calling thread's thread_local objects were destroyed, and then get a
// fresh cache (never freed: the process is exiting) instead of a destroyed one.
ThreadCache& thread_cache() {
  thread_local ThreadCache* cache = nullptr;
  thread_local struct Owner {
    ~Owner() {
      delete cache;
      cache = nullptr;
    }
  } owner;
  if (cache == nullptr) {
    (void)&owner;  // constructed on first use; its destructor frees the cache at thread exit
    cache = new ThreadCache;
  }
  return *cache;
}

}  // namespace

void release_thread_caches() {
  ThreadCache& cache = thread_cache();
  cache.recent_views = {};
  cache.spare_images = {};
  cache.after = {};
  cache.in_view = {};
  cache.free_spare_blocks();
  cache.spare_blocks = {};
}

namespace {

// A device block of `bytes` from the runtime: one of exactly that size this thread gave back if
// there is one (a larger one would hide a kernel's reads and writes past the storage from ASan).
aclError take_block(const AclRuntime& rt, size_t bytes, void** block) {
  std::vector<SpareBlock>& spare = thread_cache().spare_blocks;
  for (auto it = spare.begin(); it != spare.end(); ++it) {
    if (it->bytes == bytes && it->malloc == rt.malloc) {
      *block = it->block;
      spare.erase(it);
      return ACL_SUCCESS;
    }
  }
  return rt.malloc(block, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
}

// Keeps the block for this thread's next call, freeing the oldest past kSpareBlocks or
// kSpareBytes.
void give_back_block(const AclRuntime& rt, void* block, size_t bytes) {
  if (bytes > kSpareBytes / 2) {
    rt.free(block);
    return;
  }
  std::vector<SpareBlock>& spare = thread_cache().spare_blocks;
  size_t kept = bytes;
  for (const SpareBlock& s : spare) kept += s.bytes;
  while (!spare.empty() && (spare.size() == kSpareBlocks || kept > kSpareBytes)) {
    kept -= spare.front().bytes;
    spare.front().free(spare.front().block);
    spare.erase(spare.begin());
  }
  spare.push_back({block, bytes, rt.malloc, rt.free});
}

// Large views are not kept.
Offsets recent_view_offsets(const std::vector<int64_t>& dims, const ViewGeometry& g) {
  constexpr size_t kRecentViews = 24;
  constexpr int64_t kLargestKept = int64_t{1} << 20;
  std::vector<ThreadCache::View>& recent = thread_cache().recent_views;
  for (const ThreadCache::View& e : recent) {
    if (e.offset == g.offset && e.dims == dims && e.strides == g.strides) return e.offsets;
  }
  auto offsets = std::make_shared<const std::vector<int64_t>>(view_offsets(dims, g));
  if (static_cast<int64_t>(offsets->size()) > kLargestKept) return offsets;
  if (recent.size() == kRecentViews) recent.erase(recent.begin());
  recent.push_back({dims, g.strides, g.offset, offsets});
  return offsets;
}

// Host images up to this size are kept for the next call; larger ones are freed, so one huge
// call does not pin its memory for the life of the thread.
constexpr size_t kRecycledImageBytes = size_t{1} << 24;

struct Storage {
  void* device = nullptr;
  size_t bytes = 0;
  int64_t element_bytes = 0;
  std::vector<uint8_t> before;
  Offsets offsets_owner;
  std::span<const int64_t> offsets;  // storage element of each view element; empty if row_major
  size_t count = 0;                  // view elements
  bool row_major = false;  // view i is storage element i, and there is no storage outside the view
  aclTensor* tensor = nullptr;
};

// Another backend may return null when it has nothing to say.
std::string recent_error(const AclRuntime& rt) {
  const char* message = rt.recent_error();
  return message ? message : "";
}

void note(Outcome& outcome, const std::string& text) {
  if (!outcome.violations.empty()) outcome.violations += "; ";
  outcome.violations += text;
}

// values[i] (0 where values is empty) into the element at offsets[i] of `storage`.
void encode_at(aclDataType dtype, std::span<const double> values, std::span<const int64_t> offsets,
               uint8_t* storage) {
  const auto esize = static_cast<size_t>(storage_element_size(dtype));
  encode_elements(
      dtype, offsets.size(), [&](size_t i) { return values.empty() ? 0.0 : values[i]; },
      [&](size_t i) { return storage + static_cast<size_t>(offsets[i]) * esize; });
}

// One element of `dtype`, storage_element_size(dtype) bytes at `out`.
void encode_element(aclDataType dtype, double v, uint8_t* out) {
  encode_elements(
      dtype, 1, [&](size_t) { return v; }, [&](size_t) { return out; });
}

// values[i] (0 where values is empty) into view element i of `storage`.
void encode_view(aclDataType dtype, std::span<const double> values, const Storage& s,
                 uint8_t* storage) {
  if (!s.row_major) {
    encode_at(dtype, values, s.offsets, storage);
    return;
  }
  const auto esize = static_cast<size_t>(storage_element_size(dtype));
  encode_elements(
      dtype, s.count, [&](size_t i) { return values.empty() ? 0.0 : values[i]; },
      [&](size_t i) { return storage + i * esize; });
}

// The elements at offsets[i] of `storage`, as doubles.
std::vector<double> decode_at(aclDataType dtype, const uint8_t* storage,
                              std::span<const int64_t> offsets) {
  const auto esize = static_cast<size_t>(storage_element_size(dtype));
  return decode_elements(dtype, offsets.size(), [&](size_t i) {
    return storage + static_cast<size_t>(offsets[i]) * esize;
  });
}
}  // namespace

namespace {

// The storages of one call: host images, device memory and aclTensors, made by prepare() and
// released (images recycled for the thread's next call) when the object goes.
class CallStorages {
 public:
  CallStorages(std::span<const TensorSpec> tensors, const AclRuntime& rt)
      : tensors_(tensors), rt_(rt), storages_(tensors.size()), handles_(tensors.size(), nullptr) {
    std::vector<std::vector<uint8_t>>& spare = thread_cache().spare_images;
    for (Storage& s : storages_) {
      if (spare.empty()) break;
      s.before = std::move(spare.back());
      spare.pop_back();
    }
  }
  ~CallStorages() {
    std::vector<std::vector<uint8_t>>& spare = thread_cache().spare_images;
    for (Storage& s : storages_) {
      if (s.tensor) rt_.destroy_tensor(s.tensor);
      if (s.device) give_back_block(rt_, s.device, s.bytes);
      if (s.before.capacity() <= kRecycledImageBytes) spare.push_back(std::move(s.before));
    }
  }
  CallStorages(const CallStorages&) = delete;
  CallStorages& operator=(const CallStorages&) = delete;

  /// Makes every non-null tensor; "" on success, else why one could not be made.
  std::string prepare() {
    for (size_t t = 0; t < tensors_.size(); ++t) {
      if (tensors_[t].null) continue;
      const std::string error = prepare_one(tensors_[t], storages_[t]);
      if (!error.empty()) return error;
      handles_[t] = storages_[t].tensor;
    }
    return "";
  }
  std::span<aclTensor* const> handles() const { return handles_; }
  Storage& operator[](size_t t) { return storages_[t]; }

 private:
  // Inputs: NaN everywhere the view does not reach (so a kernel reading a gap shows up), the
  // values in the view; outputs: the canary byte everywhere.
  static void fill_image(const TensorSpec& spec, Storage& s) {
    if (spec.output) {
      s.before.assign(s.bytes, kOutputCanary);
      return;
    }
    const auto esize = static_cast<size_t>(s.element_bytes);
    s.before.resize(s.bytes);
    const bool has_values = spec.values.size() == s.count;
    if (s.bytes >= esize && !(s.row_major && has_values)) {  // a row-major view covers it all
      // One NaN element, then copies of what is filled so far, doubling: an instrumented copy
      // per element was the fuzzers' main harness cost.
      encode_element(spec.dtype, std::numeric_limits<double>::quiet_NaN(), s.before.data());
      for (size_t filled = esize; filled < s.bytes; filled *= 2) {
        std::memcpy(s.before.data() + filled, s.before.data(), std::min(filled, s.bytes - filled));
      }
    }
    encode_view(spec.dtype,
                has_values ? std::span<const double>(spec.values) : std::span<const double>(), s,
                s.before.data());
  }

  std::string prepare_one(const TensorSpec& spec, Storage& s) {
    const auto geometry = make_geometry(spec.dims, spec.layout);
    s.element_bytes = storage_element_size(spec.dtype);
    const auto bytes =
        geometry ? checked_mul(geometry->storage_numel, s.element_bytes) : std::nullopt;
    if (!bytes || *bytes > (int64_t{1} << 32)) {
      return "harness: storage of " + spec.name + " is too large to allocate";
    }
    s.bytes = static_cast<size_t>(*bytes);
    const int64_t count = checked_numel(spec.dims).value_or(0);
    s.count = static_cast<size_t>(count);
    s.row_major = geometry->offset == 0 && geometry->storage_numel == count &&
                  geometry->strides == contiguous_strides(spec.dims);
    if (!s.row_major) {  // row-major views need no element map
      s.offsets_owner = recent_view_offsets(spec.dims, *geometry);
      s.offsets = *s.offsets_owner;
    }
    fill_image(spec, s);
    if (take_block(rt_, s.bytes, &s.device) != ACL_SUCCESS ||
        rt_.memcpy(s.device, s.bytes, s.before.data(), s.bytes, ACL_MEMCPY_HOST_TO_DEVICE) !=
            ACL_SUCCESS) {
      return "harness: cannot allocate " + spec.name;
    }
    const int64_t storage_dims[1] = {geometry->storage_numel};
    s.tensor =
        rt_.create_tensor(spec.dims.data(), spec.dims.size(), spec.dtype, geometry->strides.data(),
                          geometry->offset, spec.format, storage_dims, 1, s.device);
    return s.tensor ? "" : "harness: aclCreateTensor rejected " + spec.name;
  }

  std::span<const TensorSpec> tensors_;
  const AclRuntime& rt_;
  std::vector<Storage> storages_;
  std::vector<aclTensor*> handles_;
};

// Phase 1 (twice when asked: the second executor is the one that runs).
aclnnStatus run_phase1(const Phase1& phase1, std::span<aclTensor* const> handles,
                       const RunOptions& options, const AclRuntime& rt, uint64_t* workspace_size,
                       aclOpExecutor** executor, Outcome& outcome) {
  aclnnStatus status = phase1(handles, workspace_size, executor);
  if (status == ACLNN_SUCCESS && options.query_twice) {
    uint64_t second_size = 0;
    aclOpExecutor* second = nullptr;
    status = phase1(handles, &second_size, &second);
    outcome.workspace_sizes_agree = status == ACLNN_SUCCESS && second_size == *workspace_size;
    rt.destroy_executor(*executor);
    *executor = second;
    *workspace_size = second_size;
  }
  return status;
}

// The workspace phase 2 gets: filled as asked, misaligned by one byte when asked, followed by a
// guard that must survive.
class GuardedWorkspace {
 public:
  GuardedWorkspace(const AclRuntime& rt, uint64_t size, const RunOptions& options)
      : rt_(rt),
        size_(size),
        shift_(options.misaligned_workspace ? 1 : 0),
        total_(shift_ + size_ + kWorkspaceGuardBytes) {
    take_block(rt_, total_, &buffer_);
    rt_.memset(base(), total_, options.workspace_fill == WorkspaceFill::kZero ? 0 : 0xFF,
               shift_ + size_);
    rt_.memset(base() + shift_ + size_, kWorkspaceGuardBytes, kWorkspaceGuard,
               kWorkspaceGuardBytes);
  }
  ~GuardedWorkspace() {
    if (buffer_) give_back_block(rt_, buffer_, total_);
  }
  GuardedWorkspace(const GuardedWorkspace&) = delete;
  GuardedWorkspace& operator=(const GuardedWorkspace&) = delete;

  void* data() { return base() + shift_; }
  /// Only the guard is checked: what phase 2 was given is its own to write.
  bool guard_intact() {
    std::vector<uint8_t> guard(kWorkspaceGuardBytes);
    rt_.memcpy(guard.data(), guard.size(), base() + shift_ + size_, guard.size(),
               ACL_MEMCPY_DEVICE_TO_HOST);
    return std::all_of(guard.begin(), guard.end(), [](uint8_t b) { return b == kWorkspaceGuard; });
  }

 private:
  uint8_t* base() { return static_cast<uint8_t*>(buffer_); }
  const AclRuntime& rt_;
  uint64_t size_, shift_, total_;
  void* buffer_ = nullptr;
};

// Each timed run gets a fresh executor from an untimed phase 1 and reuses the storages: the
// outputs read back come from the first run unless a later one changes them, which a
// deterministic kernel does not.
void time_phase2(const Phase1& phase1, Phase2 phase2, std::span<aclTensor* const> handles,
                 int repeats, void* workspace, uint64_t workspace_size, aclrtStream stream,
                 const AclRuntime& rt, Outcome& outcome) {
  for (int i = 0; i < repeats; ++i) {
    uint64_t size = 0;
    aclOpExecutor* timed = nullptr;
    if (phase1(handles, &size, &timed) != ACLNN_SUCCESS || size > workspace_size) {
      note(outcome, "a timed run's phase 1 disagreed with the first run");
      if (timed) rt.destroy_executor(timed);
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    const aclnnStatus status = phase2(workspace, size, timed, stream);
    if (status == ACLNN_SUCCESS) rt.synchronize_stream(stream);
    const auto stop = std::chrono::steady_clock::now();
    if (status != ACLNN_SUCCESS) {
      note(outcome, "a timed run's phase 2 returned " + std::to_string(status));
      return;
    }
    outcome.phase2_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
}

// Phase 2 of a successful phase 1, with the data rewrites, the second run and the timed runs the
// options ask for.
aclnnStatus run_phase2(const Phase1& phase1, Phase2 phase2, std::span<const TensorSpec> tensors,
                       CallStorages& storages, aclOpExecutor* executor, uint64_t workspace_size,
                       aclrtStream stream, const RunOptions& options, const AclRuntime& rt,
                       Outcome& outcome) {
  for (const auto& [t, values] : options.rewrite_between_phases) {
    Storage& s = storages[t];
    if (tensors[t].null || tensors[t].output || values.size() != s.count) continue;
    encode_view(tensors[t].dtype, values, s, s.before.data());
    rt.memcpy(s.device, s.bytes, s.before.data(), s.bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  GuardedWorkspace workspace(rt, workspace_size, options);
  const uint64_t passed = workspace_size - std::min(workspace_size, options.workspace_shortfall);
  const aclnnStatus status =
      phase2(options.null_workspace ? nullptr : workspace.data(), passed, executor, stream);
  if (status == ACLNN_SUCCESS) rt.synchronize_stream(stream);
  if (status != ACLNN_SUCCESS) {
    outcome.failed_phase = 2;
    outcome.message = recent_error(rt);
  }
  if (options.run_phase2_twice) {
    outcome.second_run_status = phase2(workspace.data(), passed, executor, stream);
    outcome.second_run_message = recent_error(rt);
  }
  if (!workspace.guard_intact()) {
    outcome.workspace_guard_intact = false;
    note(outcome, "workspace written past workspaceSize");
  }
  if (status == ACLNN_SUCCESS) {
    time_phase2(phase1, phase2, storages.handles(), options.timed_repeats, workspace.data(),
                workspace_size, stream, rt, outcome);
  }
  return status;
}

// An output's values through its view, whether any view element changed, and whether any byte
// outside the view changed (element granularity: a view element is either canary on every byte
// or written).
void read_back_output(size_t t, const TensorSpec& spec, const Storage& s,
                      std::span<const uint8_t> after, bool read_values, Outcome& outcome) {
  const auto esize = static_cast<size_t>(s.element_bytes);
  if (s.row_major) {  // the common case, without the element map below
    outcome.view_untouched[t] =
        std::all_of(after.begin(), after.end(), [](uint8_t b) { return b == kOutputCanary; });
    if (read_values) outcome.values[t] = decode(spec.dtype, after);
    return;
  }
  std::vector<uint8_t>& in_view_buffer = thread_cache().in_view;
  if (in_view_buffer.capacity() > kRecycledImageBytes) in_view_buffer = {};
  in_view_buffer.assign(s.bytes / esize, 0);
  const std::span<uint8_t> in_view(in_view_buffer.data(), s.bytes / esize);
  bool untouched = true;
  for (const int64_t offset : s.offsets) {
    const auto element = static_cast<size_t>(offset);
    const uint8_t* bytes = after.data() + element * esize;
    in_view[element] = 1;
    for (size_t b = 0; untouched && b < esize; ++b) untouched = bytes[b] == kOutputCanary;
  }
  outcome.view_untouched[t] = untouched;
  if (read_values) outcome.values[t] = decode_at(spec.dtype, after.data(), s.offsets);
  for (size_t element = 0; element < in_view.size(); ++element) {
    if (in_view[element]) continue;
    for (size_t b = element * esize; b < (element + 1) * esize; ++b) {
      if (after[b] == kOutputCanary) continue;
      outcome.outside_views_untouched = false;
      note(outcome,
           "output " + spec.name + " written outside its view (byte " + std::to_string(b) + ")");
      return;
    }
  }
}

// A storage's bytes as they are now, in the thread's read-back buffer (valid until the next call).
std::span<uint8_t> storage_now(const Storage& s, const AclRuntime& rt) {
  std::vector<uint8_t>& buffer = thread_cache().after;
  if (buffer.capacity() > kRecycledImageBytes) buffer = {};
  buffer.resize(std::max(buffer.size(), s.bytes));
  rt.memcpy(buffer.data(), s.bytes, s.device, s.bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  return {buffer.data(), s.bytes};
}

// The tensors whose storage is no longer byte for byte as prepared (inputs and outputs alike: phase
// 1 may write neither).
std::string changed_storages(std::span<const TensorSpec> tensors, CallStorages& storages,
                             const AclRuntime& rt) {
  std::string changed;
  for (size_t t = 0; t < tensors.size(); ++t) {
    const Storage& s = storages[t];
    if (tensors[t].null || s.bytes == 0) continue;
    if (std::memcmp(storage_now(s, rt).data(), s.before.data(), s.bytes) == 0) continue;
    changed += (changed.empty() ? "" : ", ") + tensors[t].name;
  }
  return changed;
}

// Every storage read back: inputs must be byte for byte as they were, outputs as above.
void read_back(std::span<const TensorSpec> tensors, CallStorages& storages, const AclRuntime& rt,
               bool read_values, Outcome& outcome) {
  for (size_t t = 0; t < tensors.size(); ++t) {
    const TensorSpec& spec = tensors[t];
    if (spec.null) continue;
    const Storage& s = storages[t];
    const std::span<uint8_t> after = storage_now(s, rt);
    if (spec.output) {
      read_back_output(t, spec, s, after, read_values, outcome);
    } else if (s.bytes > 0 && std::memcmp(after.data(), s.before.data(), s.bytes) != 0) {
      outcome.inputs_untouched = false;
      note(outcome, "input " + spec.name + " was modified");
    }
  }
}

}  // namespace

Outcome run_call(std::span<const TensorSpec> tensors, const Phase1& phase1, Phase2 phase2,
                 const RunOptions& options, const Backend& backend) {
  const AclRuntime& rt = backend.runtime();
  Outcome outcome;
  outcome.values.resize(tensors.size());
  outcome.view_untouched.assign(tensors.size(), true);
  CallStorages storages(tensors, rt);
  if (const std::string error = storages.prepare(); !error.empty()) {
    outcome.status = ACLNN_ERR_INNER;
    outcome.message = error;
    return outcome;
  }
  std::optional<ScopedBackendThreads> threads;
  threads.emplace(backend, options.phase1_threads > 0 ? options.phase1_threads : options.threads,
                  options.fine_split);
  aclrtStream stream = nullptr;
  rt.create_stream(&stream);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      run_phase1(phase1, storages.handles(), options, rt, &workspace_size, &executor, outcome);
  outcome.workspace_size = workspace_size;
  if (status == ACLNN_SUCCESS && options.check_phase1_purity)
    outcome.phase1_writes = changed_storages(tensors, storages, rt);
  if (status != ACLNN_SUCCESS) {
    outcome.failed_phase = 1;
    outcome.message = recent_error(rt);
  } else if (options.skip_phase2) {
    rt.destroy_executor(executor);
  } else {
    if (options.phase1_threads > 0) {
      threads.reset();
      threads.emplace(backend, options.threads, options.fine_split);
    }
    status = run_phase2(phase1, phase2, tensors, storages, executor, workspace_size, stream,
                        options, rt, outcome);
  }
  outcome.status = status;
  rt.destroy_stream(stream);
  threads.reset();
  read_back(tensors, storages, rt, options.read_values, outcome);
  return outcome;
}

}  // namespace gradconf::props
