#include "common/args_target.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <sanitizer/asan_interface.h>

#include "common/fuzz_support.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/layout.h"
#include "core/tensor.h"
#include "harness/backend.h"
#include "harness/harness.h"
#include "laws/law.h"

namespace gradconf::fuzz {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr std::array<int64_t, 16> kWildDims = {0,
                                               1,
                                               2,
                                               3,
                                               4,
                                               5,
                                               -1,
                                               -2,
                                               kMin,
                                               kMax,
                                               int64_t{1} << 31,
                                               int64_t{1} << 32,
                                               int64_t{1} << 62,
                                               3037000500,
                                               65536,
                                               17};
constexpr std::array<int64_t, 10> kWildStrides = {
    0, 1, 2, -1, 3, 7, kMax, kMin, int64_t{1} << 40, 65537};
constexpr std::array<int64_t, 6> kWildOffsets = {1, 3, -1, kMax, int64_t{1} << 33, 64};
constexpr std::array<aclDataType, 8> kDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE,
                                                ACL_INT32, ACL_INT64,   ACL_BOOL, ACL_UINT8};
constexpr std::array<int32_t, 5> kWildDtypes = {-1, 2, 13, 28, std::numeric_limits<int32_t>::max()};
constexpr std::array<aclFormat, 4> kFormats = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NC1HWC0,
                                               ACL_FORMAT_FRACTAL_Z};
constexpr std::array<int64_t, 12> kWildInts = {kMin, -2, -1, 0, 1, 2, 3, 7, 16, 17, 513, kMax};
constexpr std::array<double, 7> kWildDoubles = {0.0,
                                                -1.0,
                                                1e-300,
                                                1e300,
                                                0.5,
                                                std::numeric_limits<double>::quiet_NaN(),
                                                std::numeric_limits<double>::infinity()};
// Storage above this many bytes is declared but not allocated: such calls stop after phase 1.
constexpr uint64_t kLargestRealStorage = uint64_t{1} << 16;
constexpr uint8_t kCanary = 0xA5;
// Ranks 0..9: one past kMaxRank, which aclCreateTensor refuses.
constexpr size_t kMaxDecodedRank = kMaxRank + 1;

// The storages' bytes before the call, for all tensors of one input, in one buffer reused across
// inputs: a fresh snapshot per tensor came from fresh pages (ASan's quarantine holds the old
// ones), and faulting them in was a tenth of the target's time.
std::vector<uint8_t>& snapshot_arena() {
  thread_local std::vector<uint8_t> arena;
  return arena;
}

// The storages of one input, in one buffer reused across inputs: a fresh heap chunk per tensor
// cost a tenth of the target's time under ASan. Each storage starts on a 64-byte boundary behind a
// poisoned redzone and is unpoisoned for exactly its bytes, so ASan reports an access outside it
// as it would for a heap chunk of that size.
class StorageArena {
 public:
  static constexpr size_t kRedzone = 64;
  /// Room for `tensors` storages of up to kLargestRealStorage bytes; everything poisoned.
  void reset(size_t tensors) {
    const size_t needed = tensors * (kLargestRealStorage + 2 * kRedzone) + 2 * kRedzone;
    if (buffer_.size() < needed) {
      ASAN_UNPOISON_MEMORY_REGION(buffer_.data(), buffer_.size());
      buffer_.assign(needed, 0);
    }
    ASAN_POISON_MEMORY_REGION(buffer_.data(), buffer_.size());
    used_ = 0;
  }
  /// `bytes` (at most kLargestRealStorage) addressable bytes.
  uint8_t* take(uint64_t bytes) {
    const auto base = reinterpret_cast<uintptr_t>(buffer_.data());
    const uintptr_t start = (base + used_ + 2 * kRedzone - 1) / kRedzone * kRedzone;
    uint8_t* storage = buffer_.data() + (start - base);
    used_ = start - base + bytes;
    ASAN_UNPOISON_MEMORY_REGION(storage, bytes);
    return storage;
  }

 private:
  std::vector<uint8_t> buffer_;
  size_t used_ = 0;
};

StorageArena& storage_arena() {
  thread_local StorageArena arena;
  return arena;
}

struct RawTensor {
  aclTensor* handle = nullptr;     // the backend's tensor, passed to the call
  std::optional<aclTensor> model;  // our model of the same view, read by the oracle
  uint8_t* storage = nullptr;  // exactly `bytes` addressable (StorageArena), so ASan sees overruns
  uint64_t bytes = 0;
  bool real = true;        // false: storage only declared (phase 2 must not run)
  size_t snapshot_at = 0;  // where the storage's bytes before the call start in snapshot_arena()
  const props::AclRuntime* rt = nullptr;
  RawTensor() = default;
  RawTensor(const RawTensor&) = delete;
  RawTensor& operator=(const RawTensor&) = delete;
  ~RawTensor() { reset(); }
  void reset() {
    if (handle) rt->destroy_tensor(handle);
    handle = nullptr;
    model.reset();
    storage = nullptr;
    bytes = 0;
    real = true;
    snapshot_at = 0;
  }
  bool unchanged() const {
    return !real || bytes == 0 ||
           std::memcmp(storage, snapshot_arena().data() + snapshot_at, bytes) == 0;
  }
  void take_snapshot() {
    if (real && bytes > 0) std::memcpy(snapshot_arena().data() + snapshot_at, storage, bytes);
  }
};

aclDataType decode_dtype(FuzzedDataProvider& fdp, aclDataType coherent) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return pick(fdp, kDtypes);
    case 1:
      return static_cast<aclDataType>(pick(fdp, kWildDtypes));
    default:
      return coherent;
  }
}

aclFormat decode_format(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return pick(fdp, kFormats);
    case 1:
      return static_cast<aclFormat>(fdp.ConsumeIntegral<int32_t>());
    default:
      return ACL_FORMAT_ND;
  }
}

// The role's coherent tensor most of the time, with any part made wild. Storage holds the call's
// values where the view is still the coherent one (index tensors stay meaningful), canary bytes
// everywhere else.
//
// `read_by_validation`: an index tensor whose values phase 1 reads. Its storage must really exist:
// a caller who declares more storage than it allocated is outside any contract, so such a tensor
// is passed without data (aclCreateTensor then refuses it: a null tensor).
void decode_tensor(FuzzedDataProvider& fdp, const props::TensorSpec& spec,
                   const props::AclRuntime& rt, bool read_by_validation, RawTensor& out) {
  out.rt = &rt;
  if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) return;  // null
  // Fixed arrays, not vectors: allocations were a third of the target's time under ASan.
  std::array<int64_t, kMaxDecodedRank> dims_buffer{}, strides_buffer{};
  size_t rank = std::min(spec.dims.size(), kMaxDecodedRank);
  std::copy_n(spec.dims.begin(), rank, dims_buffer.begin());
  bool coherent = rank == spec.dims.size();
  if (fdp.ConsumeIntegralInRange<int>(0, 5) == 0) {
    rank = fdp.ConsumeIntegralInRange<size_t>(0, kMaxDecodedRank);
    for (size_t i = 0; i < rank; ++i) dims_buffer[i] = pick(fdp, kWildDims);
    coherent = false;
  } else if (rank > 0 && fdp.ConsumeIntegralInRange<int>(0, 3) == 0) {
    dims_buffer[fdp.ConsumeIntegralInRange<size_t>(0, rank - 1)] = pick(fdp, kWildDims);
    coherent = false;
  }
  const std::span<const int64_t> dims(dims_buffer.data(), rank);
  const std::span<int64_t> strides(strides_buffer.data(), rank);
  contiguous_strides(dims, strides);
  if (rank > 0 && fdp.ConsumeIntegralInRange<int>(0, 3) == 0) {
    strides[fdp.ConsumeIntegralInRange<size_t>(0, rank - 1)] = pick(fdp, kWildStrides);
    coherent = false;
  }
  if (rank > 0 && fdp.ConsumeIntegralInRange<int>(0, 7) == 0) {
    for (auto& s : strides) s = pick(fdp, kWildStrides);
    coherent = false;
  }
  const int64_t offset = fdp.ConsumeIntegralInRange<int>(0, 5) == 0 ? pick(fdp, kWildOffsets) : 0;
  const aclDataType dtype = decode_dtype(fdp, spec.dtype);
  coherent = coherent && offset == 0 && dtype == spec.dtype;
  const aclFormat format = decode_format(fdp);
  // Storage: exactly what the view needs, one element short, or a wild count.
  const auto last = checked_last_offset(dims, strides, offset);
  int64_t storage_numel = last ? checked_add(*last, 1).value_or(*last) : 1;
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      storage_numel = checked_add(storage_numel, -1).value_or(storage_numel);
      break;
    case 1:
      storage_numel = pick(fdp, kWildDims);
      break;
    default:
      break;
  }
  std::array<int64_t, kMaxDecodedRank> storage_buffer{storage_numel};
  size_t storage_rank = 1;
  if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) {
    storage_rank = fdp.ConsumeIntegralInRange<size_t>(0, kMaxDecodedRank);
    for (size_t i = 0; i < storage_rank; ++i) storage_buffer[i] = pick(fdp, kWildDims);
  }
  const std::span<const int64_t> storage_dims(storage_buffer.data(), storage_rank);
  const auto declared = checked_numel(storage_dims);
  const int64_t esize = element_size(dtype);
  const auto bytes = declared && esize > 0 ? checked_mul(*declared, esize) : std::nullopt;
  static uint8_t dummy[64];
  void* data = dummy;
  out.real = bytes && static_cast<uint64_t>(*bytes) <= kLargestRealStorage;
  if (out.real) {
    out.bytes = static_cast<uint64_t>(*bytes);
    out.storage = storage_arena().take(out.bytes);
    std::memset(out.storage, kCanary, out.bytes);
    if (coherent && !spec.output && !spec.values.empty()) {
      const auto encoded = props::encode(dtype, spec.values);
      std::memcpy(out.storage, encoded.data(), std::min<size_t>(encoded.size(), out.bytes));
    }
    out.snapshot_at = snapshot_arena().size();
    snapshot_arena().resize(out.snapshot_at + out.bytes);
    out.take_snapshot();
    data = out.bytes > 0 ? out.storage : (fdp.ConsumeBool() ? nullptr : dummy);
  }
  if (fdp.ConsumeIntegralInRange<int>(0, 31) == 0) data = nullptr;
  if (read_by_validation && !out.real) data = nullptr;
  out.handle = rt.create_tensor(dims.data(), dims.size(), dtype, strides.data(), offset, format,
                                storage_dims.data(), storage_dims.size(), data);
  out.model = make_tensor(dims.data(), dims.size(), dtype, strides.data(), offset, format,
                          storage_dims.data(), storage_dims.size(), data);
}

// Wild values by attribute kind, one attribute in four.
void wild_attrs_by_kind(FuzzedDataProvider& fdp, props::Call& call) {
  for (size_t i = 0; i < call.attrs.size(); ++i) {
    if (fdp.ConsumeIntegralInRange<int>(0, 3) != 0) continue;
    const props::AttrSpec& spec = call.entry->attrs[i];
    props::AttrValue& value = call.attrs[i];
    if (fdp.ConsumeIntegralInRange<int>(0, 5) == 0) {
      value = std::monostate{};  // null, allowed or not
      continue;
    }
    switch (spec.kind) {
      case props::AttrKind::kInt:
        value = pick(fdp, kWildInts);
        break;
      case props::AttrKind::kDouble:
        value = pick(fdp, kWildDoubles);
        break;
      case props::AttrKind::kBool:
        value = fdp.ConsumeBool();
        break;
      case props::AttrKind::kString: {
        static const std::array<std::string, 6> kStrings = {"",     "TND", "BSND",
                                                            "BNSD", "tnd", std::string(300, 'T')};
        value = pick(fdp, kStrings);
        break;
      }
      case props::AttrKind::kIntList: {
        std::vector<int64_t> list;
        if (const auto* base = std::get_if<std::vector<int64_t>>(&value)) list = *base;
        list.resize(fdp.ConsumeIntegralInRange<size_t>(0, 9));
        if (!list.empty())
          list[fdp.ConsumeIntegralInRange<size_t>(0, list.size() - 1)] = pick(fdp, kWildInts);
        value = std::move(list);
        break;
      }
      case props::AttrKind::kBoolList: {
        std::vector<bool> list(fdp.ConsumeIntegralInRange<size_t>(0, 16));
        for (size_t k = 0; k < list.size(); ++k) list[k] = fdp.ConsumeBool() || fdp.ConsumeBool();
        value = std::move(list);
        break;
      }
    }
  }
}

std::string message_of(const props::AclRuntime& rt) {
  const char* message = rt.recent_error();
  return message ? message : "";
}

// One input's call: the decoded arguments, the backend's tensors and our models of them.
struct FuzzedCall {
  props::Call call;
  std::span<std::unique_ptr<RawTensor>> tensors;
  std::vector<aclTensor*> handles, models;

  // The call as text, for findings only (formatting it for every input cost the target speed).
  std::string summary() const {
    std::string text =
        std::string(call.entry_name()) + " profile=" + std::string(profile_name(call.profile));
    for (size_t i = 0; i < tensors.size(); ++i) {
      text += " " + call.tensors[i].name + "=" + (models[i] ? describe(*models[i]) : "null");
    }
    for (size_t i = 0; i < call.attrs.size(); ++i) {
      text +=
          " " + std::string(call.entry->attrs[i].name) + "=" + props::format_attr(call.attrs[i]);
    }
    return text;
  }
  // No byte of any output (or input) storage changed since its snapshot.
  bool unchanged(bool outputs) const {
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (call.tensors[i].output == outputs && !tensors[i]->unchanged()) return false;
    }
    return true;
  }
  bool all_real() const {
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (handles[i] && !tensors[i]->real) return false;
    }
    return true;
  }
};

// Tensors (shapes, strides, dtypes, formats, storage), attributes and out-pointers from the input.
void decode_arguments(FuzzedDataProvider& fdp, const ArgsTarget& target,
                      const props::AclRuntime& rt, FuzzedCall& fc) {
  props::Call& call = fc.call;
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    const props::RoleSpec* role = call.entry->role(call.tensors[i].name);
    const bool index = role && role->index_input();
    decode_tensor(fdp, call.tensors[i], rt, index, *fc.tensors[i]);
  }
  if (target.wild_attrs && fdp.ConsumeBool()) target.wild_attrs(fdp, call);
  wild_attrs_by_kind(fdp, call);
  call.null_workspace_size = fdp.ConsumeIntegralInRange<int>(0, 31) == 0;
  call.null_executor = fdp.ConsumeIntegralInRange<int>(0, 31) == 0;
  fc.handles.resize(fc.tensors.size());
  fc.models.resize(fc.tensors.size());
  for (size_t i = 0; i < fc.tensors.size(); ++i) {
    fc.handles[i] = fc.tensors[i]->handle;
    fc.models[i] = fc.tensors[i]->model ? &*fc.tensors[i]->model : nullptr;
  }
}

struct Phase1Result {
  aclnnStatus status = ACLNN_SUCCESS;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
};

// Phase 1 on the backend against the clause table's verdict on our models: the same status, a
// message naming the predicted clause, no output written on failure.
Phase1Result check_phase1(const FuzzedCall& fc, const props::Backend& backend) {
  const props::Call& call = fc.call;
  const props::AclRuntime& rt = backend.runtime();
  uint64_t model_size = 0;
  aclOpExecutor* model_executor = nullptr;
  const props::AttrArguments model_attrs(call, nullptr);
  const Verdict predicted = call.entry->oracle(
      props::BoundArgs(call, fc.models, model_attrs.handles(), &model_size, &model_executor),
      call.profile);
  if (tags_enabled()) {
    tag(predicted.clause_id.empty() ? std::string("phase1=proceeds")
                                    : "phase1=" + std::string(predicted.clause_id));
  }
  Phase1Result r;
  const props::AttrArguments attrs(call, &rt);
  r.status = call.entry->phase1(
      backend, props::BoundArgs(call, fc.handles, attrs.handles(), &r.workspace_size, &r.executor));
  if (r.status != predicted.status) {
    finding("phase 1 returned " + std::to_string(r.status) + " (" + message_of(rt) +
            "), the clause table predicts " + std::to_string(predicted.status) + " (" +
            predicted.message + "); call: " + fc.summary());
  }
  if (r.status != ACLNN_SUCCESS) {
    const std::string message = message_of(rt);
    if (message.rfind(std::string(predicted.clause_id) + ": ", 0) != 0) {
      finding("phase 1 message '" + message + "' does not start with " +
              std::string(predicted.clause_id) + "; call: " + fc.summary());
    }
    if (!fc.unchanged(true)) finding("a failing phase 1 wrote an output; call: " + fc.summary());
  }
  return r;
}

// How phase 2 is called (spec README §1), and what it must return.
enum Phase2Mode { kRun, kNullExecutor, kShortWorkspace, kNullWorkspace, kRunTwice, kDataChanged };
constexpr const char* kModeNames[] = {
    "phase2=run",       "phase2=null-executor", "phase2=short-workspace", "phase2=null-workspace",
    "phase2=run-twice", "phase2=data-changed"};
// Phase 2's errors name their clause.
constexpr const char* kModeClauses[] = {"",           "EXEC-NULL-01",  "EXEC-WS-01",
                                        "EXEC-WS-01", "EXEC-STATE-01", ""};

// The mode; for kDataChanged the caller rewrites every index input's data (fuzzed bytes) between
// the phases (spec README, Changes: phase 2 must stay in bounds whatever they hold by then).
Phase2Mode choose_phase2_mode(FuzzedDataProvider& fdp, FuzzedCall& fc, uint64_t workspace_size) {
  std::vector<size_t> indexed;
  for (size_t i = 0; i < fc.tensors.size(); ++i) {
    const props::RoleSpec& role = fc.call.entry->roles[i];
    if (role.index_input() && fc.handles[i] && fc.tensors[i]->bytes > 0) indexed.push_back(i);
  }
  int mode = fdp.ConsumeIntegralInRange<int>(0, 8);
  if (mode == kDataChanged && indexed.empty()) mode = kRun;
  if (mode > kDataChanged ||
      ((mode == kShortWorkspace || mode == kNullWorkspace) && workspace_size == 0)) {
    mode = kRun;
  }
  tag(kModeNames[mode]);
  if (mode == kDataChanged) {
    for (size_t i : indexed) {
      RawTensor& t = *fc.tensors[i];
      const std::vector<uint8_t> bytes = fdp.ConsumeBytes<uint8_t>(t.bytes);
      if (!bytes.empty()) std::memcpy(t.storage, bytes.data(), bytes.size());
      if (fdp.ConsumeBool()) std::memset(t.storage + bytes.size(), 0x7F, t.bytes - bytes.size());
      t.take_snapshot();
    }
  }
  return static_cast<Phase2Mode>(mode);
}

struct Phase2Result {
  aclnnStatus got = ACLNN_SUCCESS, expected = ACLNN_SUCCESS;
  std::string message;  // phase 2's, read before any other call clears it
};

Phase2Result run_phase2(FuzzedDataProvider& fdp, Phase2Mode mode, const FuzzedCall& fc,
                        const Phase1Result& p1, const props::Backend& backend) {
  const props::AclRuntime& rt = backend.runtime();
  const props::Phase2 phase2 = fc.call.entry->phase2(backend);
  const uint64_t size = p1.workspace_size;
  std::unique_ptr<uint8_t[]> workspace(size > 0 ? new uint8_t[size] : nullptr);
  if (workspace) std::memset(workspace.get(), 0xEE, size);
  Phase2Result r;
  if (mode == kNullExecutor) {
    r.got = phase2(workspace.get(), size, nullptr, nullptr);
    r.expected = ACLNN_ERR_PARAM_NULLPTR;
    r.message = message_of(rt);
    rt.destroy_executor(p1.executor);
    return r;
  }
  if (mode == kShortWorkspace) {
    const uint64_t shortfall = fdp.ConsumeIntegralInRange<uint64_t>(1, size);
    r.got = phase2(workspace.get(), size - shortfall, p1.executor, nullptr);
    r.expected = ACLNN_ERR_PARAM_INVALID;
  } else if (mode == kNullWorkspace) {
    r.got = phase2(nullptr, size, p1.executor, nullptr);
    r.expected = ACLNN_ERR_PARAM_INVALID;
  } else {
    r.got = phase2(workspace.get(), size, p1.executor, nullptr);
    if (r.got == ACLNN_SUCCESS && mode == kRunTwice) {
      // Executors are single-use: a second run is refused and writes nothing.
      for (auto& t : fc.tensors) t->take_snapshot();
      r.got = phase2(workspace.get(), size, p1.executor, nullptr);
      r.expected = ACLNN_ERR_RUNTIME_ERROR;
    }
  }
  r.message = message_of(rt);
  // Data changed between the phases: success, or 161002 naming a clause (a check at use).
  if (mode == kDataChanged && r.got == ACLNN_ERR_PARAM_INVALID &&
      !props::clause_of_message(r.message).empty()) {
    r.expected = r.got;
  }
  return r;
}

void check_phase2(Phase2Mode mode, const Phase2Result& r, const FuzzedCall& fc) {
  if (r.got != r.expected) {
    finding("phase 2 (mode " + std::to_string(mode) + ") returned " + std::to_string(r.got) + " (" +
            r.message + "), expected " + std::to_string(r.expected) + "; call: " + fc.summary());
  }
  const bool refused_at_use = mode == kDataChanged && r.expected != ACLNN_SUCCESS;
  if (r.got == r.expected && r.expected != ACLNN_SUCCESS && !refused_at_use &&
      props::clause_of_message(r.message) != kModeClauses[mode]) {
    finding("phase 2 (mode " + std::to_string(mode) + ") message '" + r.message +
            "' does not name " + kModeClauses[mode] + "; call: " + fc.summary());
  }
  if (r.expected != ACLNN_SUCCESS && !fc.unchanged(true)) {
    finding("a failing phase 2 wrote an output; call: " + fc.summary());
  }
  if (!fc.unchanged(false)) finding("phase 2 wrote an input; call: " + fc.summary());
}

}  // namespace

int run_args_target(const uint8_t* data, size_t size, const ArgsTarget& target) {
  const props::Backend& backend = props::Backend::linked();
  // This target checks validation and the call contract; thread independence is the determinism
  // law's. One kernel thread spares a pool wake-up per input (14% of the target's time). Set
  // through the backend's own extension, so it acts on the library under test, not on a copy.
  [[maybe_unused]] static const bool single_threaded =
      backend.can_set_threads() && (backend.runtime().set_num_threads(1), true);
  FuzzedDataProvider fdp(data, size);
  FuzzedCall fc;
  fc.call = target.base_call(fdp);
  fc.call.profile =
      pick(fdp, std::array{SpecProfile::kSeed, SpecProfile::kExtended, SpecProfile::kCannLatest});
  const props::ScopedBackendProfile profile(backend, fc.call.profile);
  snapshot_arena().clear();
  storage_arena().reset(fc.call.tensors.size());
  // The slots live across inputs (a fresh vector of them per input came from fresh pages); each
  // input's tensors are released when it returns.
  thread_local std::vector<std::unique_ptr<RawTensor>> slots;
  while (slots.size() < fc.call.tensors.size()) slots.push_back(std::make_unique<RawTensor>());
  struct Release {
    std::span<std::unique_ptr<RawTensor>> used;
    ~Release() {
      for (auto& t : used) t->reset();
    }
  } release{std::span(slots).first(fc.call.tensors.size())};
  fc.tensors = release.used;
  decode_arguments(fdp, target, backend.runtime(), fc);

  const Phase1Result p1 = check_phase1(fc, backend);
  if (p1.status != ACLNN_SUCCESS) return 0;
  if (!fc.all_real()) {
    backend.runtime().destroy_executor(p1.executor);
    return 0;
  }
  const Phase2Mode mode = choose_phase2_mode(fdp, fc, p1.workspace_size);
  check_phase2(mode, run_phase2(fdp, mode, fc, p1, backend), fc);
  return 0;
}

}  // namespace gradconf::fuzz
