// fuzz_grid_sampler2d_backward_args: raw arguments straight into the C API. Null pointers in
// every position, ranks 0..8, negative/huge/overflowing dims, strides and offsets (views that fit
// their storage and views that do not), wrong dtypes and formats, enum values such as INT64_MIN,
// outputMask of any size, workspaces too small or null, executors reused or null.
// Oracles: no crash and no sanitizer report; phase 1's status is the clause table's prediction
// for the same arguments and its message names the clause; failing phases leave every output
// byte as it was; phase 2's status follows spec README §1; inputs are never written.
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "common/fuzz_support.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/layout.h"
#include "core/profile.h"
#include "core/tensor.h"
#include "harness/backend.h"
#include "gen/grid_sampler2d_ranges.h"
#include "grid_sampler2d/clauses.h"

namespace {

using gradconf::fuzz::finding;
using gradconf::fuzz::tag;
using gradconf::fuzz::pick;
namespace ranges = gradconf::props::gs_ranges;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr std::array<int64_t, 16> kWildDims = {0, 1, 2, 3, 4, 5, -1, -2, kMin, kMax,
                                               int64_t{1} << 31, int64_t{1} << 32, int64_t{1} << 62,
                                               3037000500, 65536, 17};
constexpr std::array<int64_t, 10> kWildStrides = {0, 1, 2, -1, 3, 7, kMax, kMin, int64_t{1} << 40, 65537};
constexpr std::array<int64_t, 6> kWildOffsets = {1, 3, -1, kMax, int64_t{1} << 33, 64};
constexpr std::array<int, 6> kExtraDtypes = {-1, 9999, 28, 0x7fffffff, 17, 26};
// Storage above this many bytes is declared but not allocated: such calls stop after phase 1.
constexpr uint64_t kLargestRealStorage = uint64_t{1} << 16;
constexpr uint8_t kCanary = 0xA5;

const char* const kNames[5] = {"gradOutput", "input", "grid", "inputGrad", "gridGrad"};

struct DecodedTensor {
  aclTensor* handle = nullptr;         // the backend's tensor, passed to the call
  std::optional<aclTensor> model;      // our model of the same view, read by the oracle
  std::unique_ptr<uint8_t[]> storage;  // exactly `bytes` long, so ASan sees any overrun
  uint64_t bytes = 0;
  bool real = true;  // false: storage only declared (phase 2 must not run)
  std::vector<uint8_t> snapshot;
  ~DecodedTensor() { aclDestroyTensor(handle); }
  bool unchanged() const { return !real || bytes == 0 || std::memcmp(storage.get(), snapshot.data(), bytes) == 0; }
};

aclDataType decode_dtype(FuzzedDataProvider& fdp, aclDataType common) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return pick(fdp, ranges::kFloatDtypes);
    case 1: return pick(fdp, ranges::kNonFloatingDtypes);
    case 2: return static_cast<aclDataType>(pick(fdp, kExtraDtypes));
    default: return common;
  }
}

aclFormat decode_format(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return pick(fdp, ranges::kInvalidFormats);
    case 1: return pick(fdp, ranges::kNdFormats);
    case 2: return static_cast<aclFormat>(fdp.ConsumeIntegral<int32_t>());
    default: return ACL_FORMAT_ND;
  }
}

// A tensor of the role's coherent shape most of the time, with any part made wild.
void decode_tensor(FuzzedDataProvider& fdp, std::vector<int64_t> dims, aclDataType common,
                   DecodedTensor& out) {
  if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) return;  // null
  if (fdp.ConsumeIntegralInRange<int>(0, 5) == 0) {
    dims.resize(fdp.ConsumeIntegralInRange<size_t>(0, 9));  // rank 0..9 (9 > kMaxRank)
    for (auto& d : dims) d = pick(fdp, kWildDims);
  } else if (fdp.ConsumeIntegralInRange<int>(0, 3) == 0) {
    dims[fdp.ConsumeIntegralInRange<size_t>(0, dims.size() - 1)] = pick(fdp, kWildDims);
  }
  std::vector<int64_t> strides = gradconf::contiguous_strides(dims);
  if (!dims.empty() && fdp.ConsumeIntegralInRange<int>(0, 3) == 0) {
    strides[fdp.ConsumeIntegralInRange<size_t>(0, dims.size() - 1)] = pick(fdp, kWildStrides);
  }
  if (!dims.empty() && fdp.ConsumeIntegralInRange<int>(0, 7) == 0) {
    for (auto& s : strides) s = pick(fdp, kWildStrides);
  }
  const int64_t offset = fdp.ConsumeIntegralInRange<int>(0, 5) == 0 ? pick(fdp, kWildOffsets) : 0;
  const aclDataType dtype = decode_dtype(fdp, common);
  const aclFormat format = decode_format(fdp);
  // Storage: exactly what the view needs, one element short, or a wild count.
  const auto last = gradconf::checked_last_offset(dims, strides, offset);
  int64_t storage_numel = last ? gradconf::checked_add(*last, 1).value_or(*last) : 1;
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: storage_numel = gradconf::checked_add(storage_numel, -1).value_or(storage_numel); break;
    case 1: storage_numel = pick(fdp, kWildDims); break;
    default: break;
  }
  std::vector<int64_t> storage_dims = {storage_numel};
  if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) {
    storage_dims.resize(fdp.ConsumeIntegralInRange<size_t>(0, 9));
    for (auto& d : storage_dims) d = pick(fdp, kWildDims);
  }
  const auto declared = gradconf::checked_numel(storage_dims);
  const int64_t esize = gradconf::element_size(dtype);
  const auto bytes = declared && esize > 0 ? gradconf::checked_mul(*declared, esize) : std::nullopt;
  static uint8_t dummy[64];
  void* data = dummy;
  out.real = bytes && static_cast<uint64_t>(*bytes) <= kLargestRealStorage;
  if (out.real) {
    out.bytes = static_cast<uint64_t>(*bytes);
    out.storage.reset(new uint8_t[out.bytes > 0 ? out.bytes : 1]);
    std::memset(out.storage.get(), kCanary, out.bytes);
    out.snapshot.assign(out.storage.get(), out.storage.get() + out.bytes);
    data = out.bytes > 0 ? out.storage.get() : (fdp.ConsumeBool() ? nullptr : dummy);
  }
  if (fdp.ConsumeIntegralInRange<int>(0, 31) == 0) data = nullptr;
  out.handle = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), offset, format,
                               storage_dims.data(), storage_dims.size(), data);
  out.model = gradconf::make_tensor(dims.data(), dims.size(), dtype, strides.data(), offset, format,
                                    storage_dims.data(), storage_dims.size(), data);
}

int64_t decode_mode(FuzzedDataProvider& fdp) {
  if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) return pick(fdp, ranges::kInvalidModes);
  return fdp.ConsumeIntegralInRange<int64_t>(0, 1);
}

std::string status_text(aclnnStatus status) {
  return std::to_string(status) + " (" + aclGetRecentErrMsg() + ")";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const gradconf::SpecProfile profile =
      fdp.ConsumeBool() ? gradconf::SpecProfile::kExtended : gradconf::SpecProfile::kSeed;
  const gradconf::props::ScopedBackendProfile backend_profile(gradconf::props::Backend::linked(),
                                                              profile);
  const int64_t n = fdp.ConsumeIntegralInRange<int64_t>(0, 3), c = fdp.ConsumeIntegralInRange<int64_t>(0, 3);
  const int64_t ih = fdp.ConsumeIntegralInRange<int64_t>(0, 4), iw = fdp.ConsumeIntegralInRange<int64_t>(0, 4);
  const int64_t oh = fdp.ConsumeIntegralInRange<int64_t>(0, 4), ow = fdp.ConsumeIntegralInRange<int64_t>(0, 4);
  const aclDataType common = pick(fdp, ranges::kFloatDtypes);
  const std::vector<int64_t> shapes[5] = {{n, c, oh, ow}, {n, c, ih, iw}, {n, oh, ow, 2}, {n, c, ih, iw}, {n, oh, ow, 2}};
  DecodedTensor tensors[5];
  for (int i = 0; i < 5; ++i) decode_tensor(fdp, shapes[i], common, tensors[i]);
  const int64_t interpolation = decode_mode(fdp), padding = decode_mode(fdp);
  const bool align_corners = fdp.ConsumeBool();
  std::unique_ptr<aclBoolArray, decltype(&aclDestroyBoolArray)> mask(nullptr, aclDestroyBoolArray);
  std::optional<aclBoolArray> mask_model;
  if (fdp.ConsumeIntegralInRange<int>(0, 7) != 0) {
    const size_t count = fdp.ConsumeBool() ? 2 : fdp.ConsumeIntegralInRange<size_t>(0, 16);
    bool values[16] = {};
    for (size_t i = 0; i < count; ++i) values[i] = fdp.ConsumeBool() || fdp.ConsumeBool();
    mask.reset(aclCreateBoolArray(values, count));
    mask_model = aclBoolArray{std::vector<bool>(values, values + count)};
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  uint64_t* workspace_size_arg = fdp.ConsumeIntegralInRange<int>(0, 31) == 0 ? nullptr : &workspace_size;
  aclOpExecutor** executor_arg = fdp.ConsumeIntegralInRange<int>(0, 31) == 0 ? nullptr : &executor;

  gradconf::grid_sampler2d::CallArgs args;
  auto model = [&](int i) { return tensors[i].model ? &*tensors[i].model : nullptr; };
  args.grad_output = model(0);
  args.input = model(1);
  args.grid = model(2);
  args.input_grad = model(3);
  args.grid_grad = model(4);
  args.interpolation_mode = interpolation;
  args.padding_mode = padding;
  args.align_corners = align_corners;
  args.output_mask = mask_model ? &*mask_model : nullptr;
  args.workspace_size = workspace_size_arg;
  args.executor = executor_arg;
  const gradconf::Verdict predicted =
      gradconf::run_clauses(gradconf::grid_sampler2d::clause_table(), args, profile);

  std::string call = "profile=" + std::string(gradconf::profile_name(profile));
  for (int i = 0; i < 5; ++i) {
    call += std::string(" ") + kNames[i] + "=" +
            (tensors[i].model ? gradconf::describe(*tensors[i].model) : std::string("null"));
  }
  call += " interp=" + std::to_string(interpolation) + " pad=" + std::to_string(padding) +
          " mask=" + (mask_model ? std::to_string(mask_model->values.size()) + " values" : std::string("null"));

  gradconf::fuzz::tag(predicted.clause_id.empty() ? std::string("phase1=proceeds")
                                                 : "phase1=" + std::string(predicted.clause_id));
  const aclnnStatus status = aclnnGridSampler2DBackwardGetWorkspaceSize(
      tensors[0].handle, tensors[1].handle, tensors[2].handle, interpolation, padding, align_corners,
      mask.get(), tensors[3].handle, tensors[4].handle, workspace_size_arg, executor_arg);
  if (status != predicted.status) {
    finding("phase 1 returned " + status_text(status) + ", the clause table predicts " +
            std::to_string(predicted.status) + " (" + predicted.message + "); call: " + call);
  }
  auto outputs_unchanged = [&] { return tensors[3].unchanged() && tensors[4].unchanged(); };
  auto inputs_unchanged = [&] { return tensors[0].unchanged() && tensors[1].unchanged() && tensors[2].unchanged(); };
  if (status != ACLNN_SUCCESS) {
    const std::string message = aclGetRecentErrMsg();
    if (message.rfind(std::string(predicted.clause_id) + ": ", 0) != 0) {
      finding("phase 1 message '" + message + "' does not start with " + std::string(predicted.clause_id) + "; call: " + call);
    }
    if (!outputs_unchanged()) finding("a failing phase 1 wrote an output; call: " + call);
    return 0;
  }
  bool all_real = true;
  for (const auto& t : tensors) all_real = all_real && (t.handle == nullptr || t.real);
  if (!all_real) {
    aclDestroyAclOpExecutor(executor);
    return 0;
  }
  // Phase 2, per spec README §1.
  int phase2 = fdp.ConsumeIntegralInRange<int>(0, 7);
  if (phase2 > 4 || ((phase2 == 2 || phase2 == 3) && workspace_size == 0)) phase2 = 0;
  static constexpr const char* kPhase2Names[] = {"phase2=run", "phase2=null-executor", "phase2=short-workspace",
                                                 "phase2=null-workspace", "phase2=run-twice"};
  gradconf::fuzz::tag(kPhase2Names[phase2]);
  std::unique_ptr<uint8_t[]> workspace(workspace_size > 0 ? new uint8_t[workspace_size] : nullptr);
  if (workspace) std::memset(workspace.get(), 0xEE, workspace_size);
  aclnnStatus expected = ACLNN_SUCCESS;
  aclnnStatus got = ACLNN_SUCCESS;
  if (phase2 == 1) {
    got = aclnnGridSampler2DBackward(workspace.get(), workspace_size, nullptr, nullptr);
    expected = ACLNN_ERR_PARAM_NULLPTR;
    aclDestroyAclOpExecutor(executor);
  } else if (phase2 == 2) {
    const uint64_t shortfall = fdp.ConsumeIntegralInRange<uint64_t>(1, workspace_size);
    got = aclnnGridSampler2DBackward(workspace.get(), workspace_size - shortfall, executor, nullptr);
    expected = ACLNN_ERR_PARAM_INVALID;
  } else if (phase2 == 3) {
    got = aclnnGridSampler2DBackward(nullptr, workspace_size, executor, nullptr);
    expected = ACLNN_ERR_PARAM_INVALID;
  } else {
    got = aclnnGridSampler2DBackward(workspace.get(), workspace_size, executor, nullptr);
    if (got == ACLNN_SUCCESS && phase2 == 4) {
      // Executors are single-use: a second run is refused and writes nothing.
      for (auto& t : tensors) {
        if (t.real && t.bytes > 0) t.snapshot.assign(t.storage.get(), t.storage.get() + t.bytes);
      }
      got = aclnnGridSampler2DBackward(workspace.get(), workspace_size, executor, nullptr);
      expected = ACLNN_ERR_RUNTIME_ERROR;
    }
  }
  if (got != expected) {
    finding("phase 2 (mode " + std::to_string(phase2) + ") returned " + status_text(got) +
            ", expected " + std::to_string(expected) + "; call: " + call);
  }
  if (expected != ACLNN_SUCCESS && !outputs_unchanged()) {
    finding("a failing phase 2 wrote an output; call: " + call);
  }
  if (!inputs_unchanged()) finding("phase 2 wrote an input; call: " + call);
  return 0;
}
