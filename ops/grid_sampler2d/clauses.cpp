// Each check returns nullopt when its clause holds, else "expected ..., but got ...". Checks may
// assume that every earlier clause held (e.g. shape checks run on non-null, 4-D tensors).
#include "grid_sampler2d/clauses.h"

#include <array>
#include <string>
#include <vector>

#include "core/clause_checks.h"
#include "core/dtype.h"
#include "core/parallel.h"
#include "core/status.h"
#include "grid_sampler2d/params.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {
namespace {
using Check = std::optional<std::string>;
constexpr ProfileSet kEvery = kAllProfiles;
constexpr ProfileSet kSeedAndExtended =
    profiles(SpecProfile::kSeed) | profiles(SpecProfile::kExtended);
constexpr ProfileSet kCannLatest = profiles(SpecProfile::kCannLatest);

bool backward(const CallArgs& a) { return a.direction == Direction::kBackward; }

std::vector<NamedTensor> tensors(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kAll);
}
std::vector<NamedTensor> outputs(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kOutputs);
}

std::string got(const char* name, const aclTensor& t) {
  return std::string(name) + " " + describe(t);
}

Check null_tensors(const CallArgs& a) {
  for (const auto& [name, t] : tensors(a)) {
    if (t == nullptr) return std::string("expected ") + name + " to be non-null, but got nullptr";
  }
  return std::nullopt;
}

Check null_out_pointers(const CallArgs& a) {
  if (a.workspace_size == nullptr) return "expected workspaceSize to be non-null, but got nullptr";
  if (a.executor == nullptr) return "expected executor to be non-null, but got nullptr";
  return std::nullopt;
}

Check mask_null(const CallArgs& a) {
  if (backward(a) && a.output_mask == nullptr) {
    return "outputMask is null: nothing is computed (CANN behaviour)";
  }
  return std::nullopt;
}

Check mask_size(const CallArgs& a) {
  if (!backward(a) || a.output_mask->values.size() == 2) return std::nullopt;
  return "expected outputMask of size 2, but got size " +
         std::to_string(a.output_mask->values.size());
}

Check dtype_supported(const CallArgs& a) {
  for (const auto& [name, t] : tensors(a)) {
    if (!is_floating(t->dtype)) {
      return std::string("expected ") + name +
             " dtype in {float32, float16, bfloat16, float64}, but got " + got(name, *t) +
             " (aclDataType " + std::to_string(static_cast<int>(t->dtype)) + ")";
    }
  }
  return std::nullopt;
}

Check dtype_same(const CallArgs& a) {
  for (const auto& [name, t] : tensors(a)) {
    if (t->dtype != a.input->dtype) {
      return std::string("expected ") + name + " to have input's dtype " +
             std::string(dtype_name(a.input->dtype)) + ", but got " + got(name, *t);
    }
  }
  return std::nullopt;
}

Check format_nd(const CallArgs& a) {
  std::vector<NamedTensor> all;
  for (const auto& [name, t] : tensors(a)) all.push_back({name, t});
  return check_format_nd(all);
}

// The two profile rows of GS-ATTR-01 and GS-ATTR-02 differ only in the largest mode: cann-latest
// adds bicubic and reflection (E-GS-5).
template <bool kCannLatest>
Check interpolation(const CallArgs& a) {
  const int64_t last = kCannLatest ? 2 : 1;
  if (a.interpolation_mode >= 0 && a.interpolation_mode <= last) return std::nullopt;
  return std::string("expected interpolationMode in {0 bilinear, 1 nearest") +
         (kCannLatest ? ", 2 bicubic" : "") + "}, but got " + std::to_string(a.interpolation_mode);
}

template <bool kCannLatest>
Check padding(const CallArgs& a) {
  const int64_t last = kCannLatest ? 2 : 1;
  if (a.padding_mode >= 0 && a.padding_mode <= last) return std::nullopt;
  return std::string("expected paddingMode in {0 zeros, 1 border") +
         (kCannLatest ? ", 2 reflection" : "") + "}, but got " + std::to_string(a.padding_mode);
}

Check ranks(const CallArgs& a) {
  std::vector<NamedTensor> checked = {{"input", a.input}, {"grid", a.grid}};
  checked.insert(checked.begin(), NamedTensor{backward(a) ? "gradOutput" : "out",
                                              backward(a) ? a.grad_output : a.out});
  for (const auto& [name, t] : checked) {
    if (rank(*t) != 4)
      return std::string("expected ") + name + " to be 4-D, but got " + got(name, *t);
  }
  return std::nullopt;
}

Check batch(const CallArgs& a) {
  const int64_t n = a.input->view_dims[0];
  if (a.grid->view_dims[0] != n) {
    return "expected grid.dim(0) == input.dim(0), but got " + got("input", *a.input) + " and " +
           got("grid", *a.grid);
  }
  if (backward(a) && a.grad_output->view_dims[0] != n) {
    return "expected gradOutput.dim(0) == input.dim(0), but got " + got("input", *a.input) +
           " and " + got("gradOutput", *a.grad_output);
  }
  return std::nullopt;
}

Check channels(const CallArgs& a) {
  if (!backward(a) || a.grad_output->view_dims[1] == a.input->view_dims[1]) return std::nullopt;
  return "expected gradOutput.dim(1) == input.dim(1), but got " + got("input", *a.input) + " and " +
         got("gradOutput", *a.grad_output);
}

Check output_size(const CallArgs& a) {
  if (!backward(a)) return std::nullopt;
  const auto& g = a.grid->view_dims;
  const auto& go = a.grad_output->view_dims;
  if (g[1] == go[2] && g[2] == go[3]) return std::nullopt;
  return "expected grid.dim(1), grid.dim(2) == gradOutput.dim(2), gradOutput.dim(3), but got " +
         got("grid", *a.grid) + " and " + got("gradOutput", *a.grad_output);
}

Check grid_last_dim(const CallArgs& a) {
  if (a.grid->view_dims[3] == 2) return std::nullopt;
  return "expected grid.dim(3) == 2, but got " + got("grid", *a.grid);
}

Check input_spatial(const CallArgs& a) {
  if (a.input->view_dims[2] != 0 && a.input->view_dims[3] != 0) return std::nullopt;
  return "expected input.dim(2) and input.dim(3) to be non-zero, but got " + got("input", *a.input);
}

Check output_shapes(const CallArgs& a) {
  if (backward(a)) {
    if (a.input_grad->view_dims != a.input->view_dims) {
      return "expected inputGrad shape == input shape, but got " + got("input", *a.input) +
             " and " + got("inputGrad", *a.input_grad);
    }
    if (a.grid_grad->view_dims != a.grid->view_dims) {
      return "expected gridGrad shape == grid shape, but got " + got("grid", *a.grid) + " and " +
             got("gridGrad", *a.grid_grad);
    }
    return std::nullopt;
  }
  const std::vector<int64_t> expected = {a.input->view_dims[0], a.input->view_dims[1],
                                         a.grid->view_dims[1], a.grid->view_dims[2]};
  if (a.out->view_dims == expected) return std::nullopt;
  return "expected out sizes " + format_dims(expected.data(), expected.size()) + ", but got " +
         got("out", *a.out);
}

Check output_overlap_is(const CallArgs& a, Overlap verdict, const char* expectation) {
  for (const auto& [name, t] : outputs(a)) {
    if (overlap_of(*t) == verdict) {
      return std::string("expected ") + name + " " + expectation + ", but got strides " +
             format_dims(t->strides.data(), t->strides.size()) + " for sizes " +
             format_dims(t->view_dims.data(), t->view_dims.size());
    }
  }
  return std::nullopt;
}

Check outputs_disjoint(const CallArgs& a) {
  return output_overlap_is(a, Overlap::kOverlapping, "to address each element once");
}

Check outputs_decidable(const CallArgs& a) {
  return output_overlap_is(a, Overlap::kUndecided,
                           "to be nested, to interleave at most two axes, or to span fewer than "
                           "2^28 elements (such views are checked element by element)");
}

Check workspace_representable(const CallArgs& a) {
  if (!backward(a)) return std::nullopt;
  const bool want_input_grad = a.output_mask->values[0];
  const SamplerLayout layout(*a.input, *a.grid);
  const int workers = accumulator_workers(layout, num_threads());
  if (backward_workspace(layout, wants_of(a), workers, point_workers(layout, num_threads())))
    return std::nullopt;
  std::string got = std::to_string(a.input->view_dims[0]) + " x " +
                    std::to_string(a.grid->view_dims[1]) + " x " +
                    std::to_string(a.grid->view_dims[2]) + " grid points";
  if (want_input_grad) {
    got += " and " + std::to_string(workers) + " accumulator planes of " + describe(*a.input);
  }
  return "expected a workspace of at most 2^62 bytes, but got " + got;
}

constexpr const char* kSeed = "002 aclnnGridSampler2DBackwardGetWorkspaceSize 返回值";

constexpr const char* kE_GS_5 = "errata E-GS-5 (CANN code; PyTorch formulas)";

const std::array<Clause<CallArgs>, 21> kClauses = {{
    {"GS-NULL-01", kEvery, ACLNN_ERR_PARAM_NULLPTR, kSeed, "a tensor argument is null",
     null_tensors},
    {"GS-NULL-02", kEvery, ACLNN_ERR_PARAM_NULLPTR, "spec README §1",
     "workspaceSize or executor out-pointer is null", null_out_pointers},
    {"GS-MASK-01", kEvery, ACLNN_SUCCESS, "Decision E-GS-7 (CANN code)",
     "outputMask is null: success, workspace 0, nothing computed", mask_null},
    {"GS-MASK-02", kEvery, ACLNN_ERR_PARAM_INVALID, "CANN code (op_api)", "outputMask size != 2",
     mask_size},
    {"GS-DTYPE-01", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed,
     "a tensor's dtype is not FLOAT/FLOAT16/BFLOAT16/DOUBLE", dtype_supported},
    {"GS-DTYPE-02", kEvery, ACLNN_ERR_PARAM_INVALID, "002 参数说明 (same dtype as input)",
     "a tensor's dtype differs from input's", dtype_same},
    {"GS-FORMAT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision)",
     "a tensor's format is not ND (NCHW/NHWC accepted as aliases)", format_nd},
    {"GS-ATTR-01", kSeedAndExtended, ACLNN_ERR_PARAM_INVALID, kSeed,
     "interpolationMode not in {0,1}", interpolation<false>},
    {"GS-ATTR-01", kCannLatest, ACLNN_ERR_PARAM_INVALID, kE_GS_5,
     "interpolationMode not in {0,1,2} (2 bicubic)", interpolation<true>},
    {"GS-ATTR-02", kSeedAndExtended, ACLNN_ERR_PARAM_INVALID, kSeed, "paddingMode not in {0,1}",
     padding<false>},
    {"GS-ATTR-02", kCannLatest, ACLNN_ERR_PARAM_INVALID, kE_GS_5,
     "paddingMode not in {0,1,2} (2 reflection)", padding<true>},
    {"GS-RANK-01", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed,
     "gradOutput (or out), input or grid is not 4-D", ranks},
    {"GS-SHAPE-01", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed,
     "input.dim0 != grid.dim0 or != gradOutput.dim0", batch},
    {"GS-SHAPE-02", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed, "input.dim1 != gradOutput.dim1",
     channels},
    {"GS-SHAPE-03", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed,
     "grid.dim1 != gradOutput.dim2 or grid.dim2 != gradOutput.dim3", output_size},
    {"GS-SHAPE-04", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed, "grid.dim3 != 2", grid_last_dim},
    {"GS-SHAPE-05", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed, "input.dim2 == 0 or input.dim3 == 0",
     input_spatial},
    {"GS-SHAPE-06", kEvery, ACLNN_ERR_PARAM_INVALID, kSeed,
     "inputGrad/gridGrad (or out) shape differs from input/grid (or (N,C,Hout,Wout))",
     output_shapes},
    {"GS-OUT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3",
     "an output view has overlapping elements", outputs_disjoint},
    {"GS-LIMIT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision, documented limit)",
     "the backward's workspace exceeds 2^62 bytes", workspace_representable},
    {"GS-LIMIT-02", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision, documented limit)",
     "an output view interleaving three or more axes spans 2^28 elements or more "
     "(disjointness undecided)",
     outputs_decidable},
}};
}  // namespace

std::span<const Clause<CallArgs>> clause_table() { return kClauses; }

}  // namespace gradconf::grid_sampler2d
