// Table-driven validation (spec grid_sampler2d.md "Validation", README §2): one row per clause of
// gradconf::grid_sampler2d::clause_table(). Each row breaks exactly its clause at the boundary
// (just-invalid) and also sets the allowed boundary value (just-valid), for the forward and the
// backward where the clause applies. A just-invalid call must return the clause's status, record a
// message starting with the clause id, leave *workspaceSize / *executor alone and write no byte
// of any output storage (view, gaps, canary tail); a just-valid call must succeed and run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/layout.h"
#include "core/parallel.h"
#include "core/profile.h"
#include "grid_sampler2d/clauses.h"
#include "grid_sampler2d/workspace.h"
#include "laws/law.h"
#include "support/device_tensor.h"
#include "support/grid_sampler2d_tester.h"

namespace {

using gradconf::testing::BoolArray;
using gradconf::testing::DeviceBuffer;
using gradconf::testing::DeviceTensor;
using gradconf::testing::Fill;

enum Dir : unsigned { kFwd = 1, kBwd = 2, kBoth = 3 };

struct TensorDesc {
  bool null = false;
  std::vector<int64_t> dims;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> strides;  ///< empty: contiguous
};

struct Call {
  bool forward = false;
  TensorDesc grad_output, input, grid, input_grad, grid_grad, out;
  int64_t interpolation = 0, padding = 0;
  bool align_corners = false;
  std::optional<std::vector<bool>> mask = std::vector<bool>{true, true};
  bool null_workspace_size = false, null_executor = false;

  std::vector<TensorDesc*> tensors() {
    if (forward) return {&input, &grid, &out};
    return {&grad_output, &input, &grid, &input_grad, &grid_grad};
  }
};

constexpr int64_t kN = 2, kC = 3, kHin = 4, kWin = 5, kHout = 3, kWout = 2;

Call base_call(bool forward) {
  Call c;
  c.forward = forward;
  c.grad_output.dims = {kN, kC, kHout, kWout};
  c.input.dims = {kN, kC, kHin, kWin};
  c.grid.dims = {kN, kHout, kWout, 2};
  c.input_grad.dims = c.input.dims;
  c.grid_grad.dims = c.grid.dims;
  c.out.dims = c.grad_output.dims;
  return c;
}

constexpr uint64_t kWorkspaceSentinel = 0xDEADBEEFCAFEull;
aclOpExecutor* const kExecutorSentinel = reinterpret_cast<aclOpExecutor*>(uintptr_t{0x5A5A5A50});

// A materialized call: device tensors for every non-null descriptor.
struct Materialized {
  std::optional<DeviceTensor> grad_output, input, grid, input_grad, grid_grad, out;
  std::optional<BoolArray> mask;

  static std::optional<DeviceTensor> make(const TensorDesc& d, Fill fill) {
    if (d.null) return std::nullopt;
    const bool floating = gradconf::is_floating(d.dtype);
    std::vector<double> values;
    if (fill == Fill::kInput && floating) {
      values.resize(static_cast<size_t>(gradconf::testing::numel(d.dims)));
      for (size_t i = 0; i < values.size(); ++i)
        values[i] = 0.1 * static_cast<double>(i % 17) - 0.8;
    }
    // A later mutation may change the rank under explicit strides: fall back to contiguous.
    if (!d.strides.empty() && d.strides.size() == d.dims.size()) {
      return DeviceTensor(d.dims, d.dtype, d.strides, 0, fill, values, d.format);
    }
    return DeviceTensor(d.dims, d.dtype, gradconf::LayoutSpec{}, fill, values, d.format);
  }

  explicit Materialized(const Call& c) {
    input = make(c.input, Fill::kInput);
    grid = make(c.grid, Fill::kInput);
    if (c.forward) {
      out = make(c.out, Fill::kCanary);
    } else {
      grad_output = make(c.grad_output, Fill::kInput);
      input_grad = make(c.input_grad, Fill::kCanary);
      grid_grad = make(c.grid_grad, Fill::kCanary);
      if (c.mask) mask.emplace(*c.mask);
    }
  }

  static aclTensor* get(const std::optional<DeviceTensor>& t) { return t ? t->get() : nullptr; }

  std::vector<const DeviceTensor*> outputs() const {
    std::vector<const DeviceTensor*> v;
    for (const auto* t : {&out, &input_grad, &grid_grad}) {
      if (*t) v.push_back(&**t);
    }
    return v;
  }
  bool outputs_untouched() const {
    for (const auto* t : outputs()) {
      if (!t->untouched()) return false;
    }
    return true;
  }
};

struct Phase1 {
  aclnnStatus status = -1;
  std::string message;
  uint64_t workspace_size = kWorkspaceSentinel;
  aclOpExecutor* executor = kExecutorSentinel;
};

Phase1 run_phase1(const Call& c, const Materialized& m) {
  Phase1 r;
  uint64_t* ws = c.null_workspace_size ? nullptr : &r.workspace_size;
  aclOpExecutor** ex = c.null_executor ? nullptr : &r.executor;
  if (c.forward) {
    r.status = aclnnGridSampler2DGetWorkspaceSize(
        Materialized::get(m.input), Materialized::get(m.grid), c.interpolation, c.padding,
        c.align_corners, Materialized::get(m.out), ws, ex);
  } else {
    r.status = aclnnGridSampler2DBackwardGetWorkspaceSize(
        Materialized::get(m.grad_output), Materialized::get(m.input), Materialized::get(m.grid),
        c.interpolation, c.padding, c.align_corners, m.mask ? m.mask->get() : nullptr,
        Materialized::get(m.input_grad), Materialized::get(m.grid_grad), ws, ex);
  }
  r.message = aclGetRecentErrMsg();
  return r;
}

aclnnStatus run_phase2(const Call& c, const Phase1& p) {
  std::optional<DeviceBuffer> workspace;
  if (p.workspace_size > 0) workspace.emplace(p.workspace_size, uint8_t{0xFF});
  void* ws = workspace ? workspace->data() : nullptr;
  const aclnnStatus status =
      c.forward ? aclnnGridSampler2D(ws, p.workspace_size, p.executor, nullptr)
                : aclnnGridSampler2DBackward(ws, p.workspace_size, p.executor, nullptr);
  if (workspace) {
    EXPECT_TRUE(workspace->tail_untouched(p.workspace_size));
  }
  return status;
}

std::string_view status_text(aclnnStatus s) {
  switch (s) {
    case ACLNN_SUCCESS:
      return "SUCCESS";
    case ACLNN_ERR_PARAM_NULLPTR:
      return "161001";
    case ACLNN_ERR_PARAM_INVALID:
      return "161002";
    default:
      return "other";
  }
}

// Just-invalid: the clause's status, its id first in the message, nothing written.
void expect_rejected(const Call& c, std::string_view id, aclnnStatus status) {
  const Materialized m(c);
  const int64_t live = gradconf::live_executor_count();
  const Phase1 r = run_phase1(c, m);
  EXPECT_EQ(r.status, status) << "expected " << status_text(status) << " from " << id
                              << ", message: " << r.message;
  EXPECT_EQ(r.message.rfind(std::string(id) + ": ", 0), 0u)
      << "message does not start with " << id << ": \"" << r.message << "\"";
  EXPECT_EQ(r.workspace_size, kWorkspaceSentinel) << "*workspaceSize written on error";
  EXPECT_EQ(r.executor, kExecutorSentinel) << "*executor written on error";
  EXPECT_TRUE(m.outputs_untouched()) << "an output byte was written on error";
  EXPECT_EQ(gradconf::live_executor_count(), live) << "an executor was created on error";
  if (r.status == ACLNN_SUCCESS && r.executor != kExecutorSentinel) {
    aclDestroyAclOpExecutor(r.executor);
  }
}

// GS-MASK-01: success, workspace 0, an executor that runs and writes nothing.
void expect_early_out(const Call& c, std::string_view id) {
  const Materialized m(c);
  const int64_t live = gradconf::live_executor_count();
  Phase1 r = run_phase1(c, m);
  ASSERT_EQ(r.status, ACLNN_SUCCESS) << id << ": " << r.message;
  EXPECT_EQ(r.workspace_size, 0u);
  ASSERT_NE(r.executor, kExecutorSentinel);
  ASSERT_NE(r.executor, nullptr);
  EXPECT_EQ(run_phase2(c, r), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(m.outputs_untouched()) << id << ": the early-out executor wrote an output";
  EXPECT_EQ(gradconf::live_executor_count(), live);
}

// Just-valid: phase 1 succeeds, phase 2 runs and writes the wanted, non-empty outputs only.
void expect_accepted(const Call& c) {
  const Materialized m(c);
  const int64_t live = gradconf::live_executor_count();
  Phase1 r = run_phase1(c, m);
  ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
  ASSERT_NE(r.executor, kExecutorSentinel);
  ASSERT_NE(r.workspace_size, kWorkspaceSentinel);
  EXPECT_TRUE(m.outputs_untouched()) << "phase 1 wrote an output";
  ASSERT_EQ(run_phase2(c, r), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(gradconf::live_executor_count(), live);
  auto written = [](const std::optional<DeviceTensor>& t) {
    return gradconf::testing::numel(t->dims()) > 0 && !t->untouched();
  };
  if (c.forward) {
    EXPECT_TRUE(written(m.out)) << "out not written";
  } else {
    EXPECT_EQ(written(m.input_grad), (*c.mask)[0]) << "inputGrad written iff outputMask[0]";
    EXPECT_EQ(written(m.grid_grad), (*c.mask)[1]) << "gridGrad written iff outputMask[1]";
  }
  for (const auto* t : m.outputs()) {
    EXPECT_TRUE(t->outside_view_untouched()) << "a byte outside an output view was written";
  }
}

struct Mutation {
  std::string name;
  unsigned dirs;
  std::function<void(Call&)> apply;
};

struct Row {
  std::string id;
  aclnnStatus status;  ///< from the spec's table, not from clause_table()
  std::vector<Mutation> invalid;
  std::vector<Mutation> valid;
  /// The profile the row runs under; a clause whose rows differ per profile has one row each.
  gradconf::SpecProfile profile = gradconf::SpecProfile::kSeed;
  /// The row's test name: the id, suffixed by the profile where it is not seed.
  std::string key() const {
    if (profile == gradconf::SpecProfile::kSeed) return id;
    return id + "@" + std::string(gradconf::profile_name(profile));
  }
};

// Sets the same field on a tensor and on its gradient so only the intended clause breaks.
void set_dim(TensorDesc& a, TensorDesc& b, size_t d, int64_t v) {
  a.dims[d] = v;
  b.dims[d] = v;
}

std::vector<Mutation> every_tensor_dtype(aclDataType dtype) {
  std::vector<Mutation> m;
  const char* names[] = {"gradOutput", "input", "grid", "inputGrad", "gridGrad", "out"};
  for (int t = 0; t < 6; ++t) {
    const unsigned dirs = t == 5 ? kFwd : (t == 1 || t == 2) ? kBoth : kBwd;
    m.push_back({std::string(names[t]) + " " + std::string(gradconf::dtype_name(dtype)) + "(" +
                     std::to_string(dtype) + ")",
                 dirs, [t, dtype](Call& c) {
                   TensorDesc* all[] = {&c.grad_output, &c.input,     &c.grid,
                                        &c.input_grad,  &c.grid_grad, &c.out};
                   all[t]->dtype = dtype;
                 }});
  }
  return m;
}

std::vector<Mutation> every_tensor_format(aclFormat format) {
  std::vector<Mutation> m;
  const char* names[] = {"gradOutput", "input", "grid", "inputGrad", "gridGrad", "out"};
  for (int t = 0; t < 6; ++t) {
    const unsigned dirs = t == 5 ? kFwd : (t == 1 || t == 2) ? kBoth : kBwd;
    m.push_back(
        {std::string(names[t]) + " format " + std::to_string(format), dirs, [t, format](Call& c) {
           TensorDesc* all[] = {&c.grad_output, &c.input,     &c.grid,
                                &c.input_grad,  &c.grid_grad, &c.out};
           all[t]->format = format;
         }});
  }
  return m;
}

std::vector<Mutation> all_tensors_dtype(std::initializer_list<aclDataType> dtypes) {
  std::vector<Mutation> m;
  for (aclDataType dtype : dtypes) {
    m.push_back({"all tensors " + std::string(gradconf::dtype_name(dtype)) + "(" +
                     std::to_string(dtype) + ")",
                 kBoth, [dtype](Call& c) {
                   for (TensorDesc* t : c.tensors()) t->dtype = dtype;
                 }});
  }
  return m;
}

template <typename... V>
std::vector<Mutation> concat(std::vector<Mutation> a, V... rest) {
  (a.insert(a.end(), rest.begin(), rest.end()), ...);
  return a;
}

const Mutation kBase = {"base call", kBoth, [](Call&) {}};

std::vector<Row> rows() {
  constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR, kInvalid = ACLNN_ERR_PARAM_INVALID;
  std::vector<Row> r;
  r.push_back({"GS-NULL-01",
               kNull,
               {{"gradOutput null", kBwd, [](Call& c) { c.grad_output.null = true; }},
                {"input null", kBoth, [](Call& c) { c.input.null = true; }},
                {"grid null", kBoth, [](Call& c) { c.grid.null = true; }},
                {"inputGrad null", kBwd, [](Call& c) { c.input_grad.null = true; }},
                {"gridGrad null", kBwd, [](Call& c) { c.grid_grad.null = true; }},
                {"out null", kFwd, [](Call& c) { c.out.null = true; }}},
               {kBase}});
  r.push_back({"GS-NULL-02",
               kNull,
               {{"workspaceSize null", kBoth, [](Call& c) { c.null_workspace_size = true; }},
                {"executor null", kBoth, [](Call& c) { c.null_executor = true; }}},
               {kBase}});
  r.push_back({"GS-MASK-01",
               ACLNN_SUCCESS,
               {{"outputMask null", kBwd, [](Call& c) { c.mask.reset(); }}},
               {kBase}});
  r.push_back({"GS-MASK-02",
               kInvalid,
               {{"outputMask size 0", kBwd, [](Call& c) { c.mask = std::vector<bool>{}; }},
                {"outputMask size 1", kBwd, [](Call& c) { c.mask = std::vector<bool>{true}; }},
                {"outputMask size 3", kBwd,
                 [](Call& c) {
                   c.mask = std::vector<bool>{true, true, true};
                 }}},
               {{"outputMask {1,1}", kBwd,
                 [](Call& c) {
                   c.mask = std::vector<bool>{true, true};
                 }},
                {"outputMask {1,0}", kBwd,
                 [](Call& c) {
                   c.mask = std::vector<bool>{true, false};
                 }},
                {"outputMask {0,1}", kBwd,
                 [](Call& c) {
                   c.mask = std::vector<bool>{false, true};
                 }},
                {"outputMask {0,0}", kBwd, [](Call& c) {
                   c.mask = std::vector<bool>{false, false};
                 }}}});
  r.push_back({"GS-DTYPE-01", kInvalid,
               concat(every_tensor_dtype(ACL_INT32),
                      all_tensors_dtype({ACL_INT32, ACL_INT64, ACL_BOOL, ACL_UINT8, ACL_INT8,
                                         ACL_INT16, ACL_COMPLEX64, ACL_DT_UNDEFINED})),
               all_tensors_dtype({ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE})});
  r.push_back({"GS-DTYPE-02",
               kInvalid,
               concat(every_tensor_dtype(ACL_FLOAT16),
                      std::vector<Mutation>{{"all double, gridGrad bfloat16", kBwd,
                                             [](Call& c) {
                                               for (TensorDesc* t : c.tensors())
                                                 t->dtype = ACL_DOUBLE;
                                               c.grid_grad.dtype = ACL_BF16;
                                             }},
                                            {"all bfloat16, out float16", kFwd,
                                             [](Call& c) {
                                               for (TensorDesc* t : c.tensors())
                                                 t->dtype = ACL_BF16;
                                               c.out.dtype = ACL_FLOAT16;
                                             }}}),
               {kBase}});
  r.push_back(
      {"GS-FORMAT-01",
       kInvalid,
       concat(
           every_tensor_format(ACL_FORMAT_NC1HWC0),
           std::vector<Mutation>{
               {"input FRACTAL_Z", kBoth, [](Call& c) { c.input.format = ACL_FORMAT_FRACTAL_Z; }},
               {"grid UNDEFINED", kBoth, [](Call& c) { c.grid.format = ACL_FORMAT_UNDEFINED; }}}),
       {{"all NCHW", kBoth,
         [](Call& c) {
           for (TensorDesc* t : c.tensors()) t->format = ACL_FORMAT_NCHW;
         }},
        {"all NHWC", kBoth,
         [](Call& c) {
           for (TensorDesc* t : c.tensors()) t->format = ACL_FORMAT_NHWC;
         }},
        {"mixed ND/NCHW/NHWC", kBoth, [](Call& c) {
           c.input.format = ACL_FORMAT_NCHW;
           c.grid.format = ACL_FORMAT_NHWC;
           c.grad_output.format = ACL_FORMAT_NHWC;
         }}}});
  r.push_back(
      {"GS-ATTR-01",
       kInvalid,
       {{"interpolationMode 2", kBoth, [](Call& c) { c.interpolation = 2; }},
        {"interpolationMode -1", kBoth, [](Call& c) { c.interpolation = -1; }},
        {"interpolationMode INT64_MAX", kBoth, [](Call& c) { c.interpolation = INT64_MAX; }}},
       {{"interpolationMode 0", kBoth, [](Call& c) { c.interpolation = 0; }},
        {"interpolationMode 1", kBoth, [](Call& c) { c.interpolation = 1; }}}});
  // cann-latest adds bicubic (E-GS-5).
  r.push_back({"GS-ATTR-01",
               kInvalid,
               {{"interpolationMode 3", kBoth, [](Call& c) { c.interpolation = 3; }},
                {"interpolationMode -1", kBoth, [](Call& c) { c.interpolation = -1; }}},
               {{"interpolationMode 0", kBoth, [](Call& c) { c.interpolation = 0; }},
                {"interpolationMode 2", kBoth, [](Call& c) { c.interpolation = 2; }}},
               gradconf::SpecProfile::kCannLatest});
  r.push_back({"GS-ATTR-02",
               kInvalid,
               {{"paddingMode 2", kBoth, [](Call& c) { c.padding = 2; }},
                {"paddingMode -1", kBoth, [](Call& c) { c.padding = -1; }},
                {"paddingMode INT64_MIN", kBoth, [](Call& c) { c.padding = INT64_MIN; }}},
               {{"paddingMode 0", kBoth, [](Call& c) { c.padding = 0; }},
                {"paddingMode 1", kBoth, [](Call& c) { c.padding = 1; }}}});
  // cann-latest adds reflection (E-GS-5).
  r.push_back({"GS-ATTR-02",
               kInvalid,
               {{"paddingMode 3", kBoth, [](Call& c) { c.padding = 3; }},
                {"paddingMode -1", kBoth, [](Call& c) { c.padding = -1; }}},
               {{"paddingMode 1", kBoth, [](Call& c) { c.padding = 1; }},
                {"paddingMode 2", kBoth, [](Call& c) { c.padding = 2; }}},
               gradconf::SpecProfile::kCannLatest});
  r.push_back({"GS-RANK-01",
               kInvalid,
               {{"gradOutput rank 3", kBwd,
                 [](Call& c) {
                   c.grad_output.dims = {kN, kC, kHout * kWout};
                 }},
                {"gradOutput rank 5", kBwd,
                 [](Call& c) {
                   c.grad_output.dims = {kN, kC, kHout, kWout, 1};
                 }},
                {"out rank 3", kFwd,
                 [](Call& c) {
                   c.out.dims = {kN, kC, kHout * kWout};
                 }},
                {"out rank 5", kFwd,
                 [](Call& c) {
                   c.out.dims = {kN, kC, kHout, kWout, 1};
                 }},
                {"input rank 3", kBoth,
                 [](Call& c) {
                   c.input.dims = c.input_grad.dims = {kN, kC, kHin * kWin};
                 }},
                {"input rank 5", kBoth,
                 [](Call& c) {
                   c.input.dims = c.input_grad.dims = {kN, kC, kHin, kWin, 1};
                 }},
                {"grid rank 3", kBoth,
                 [](Call& c) {
                   c.grid.dims = c.grid_grad.dims = {kN, kHout * kWout, 2};
                 }},
                {"grid rank 5", kBoth,
                 [](Call& c) {
                   c.grid.dims = c.grid_grad.dims = {kN, kHout, kWout, 2, 1};
                 }}},
               {kBase}});
  r.push_back(
      {"GS-SHAPE-01",
       kInvalid,
       {{"grid.dim0 = N-1", kBoth, [](Call& c) { set_dim(c.grid, c.grid_grad, 0, kN - 1); }},
        {"grid.dim0 = N+1", kBoth, [](Call& c) { set_dim(c.grid, c.grid_grad, 0, kN + 1); }},
        {"gradOutput.dim0 = N-1", kBwd, [](Call& c) { c.grad_output.dims[0] = kN - 1; }},
        {"gradOutput.dim0 = N+1", kBwd, [](Call& c) { c.grad_output.dims[0] = kN + 1; }}},
       {kBase}});
  r.push_back({"GS-SHAPE-02",
               kInvalid,
               {{"gradOutput.dim1 = C-1", kBwd, [](Call& c) { c.grad_output.dims[1] = kC - 1; }},
                {"gradOutput.dim1 = C+1", kBwd, [](Call& c) { c.grad_output.dims[1] = kC + 1; }}},
               {kBase}});
  r.push_back(
      {"GS-SHAPE-03",
       kInvalid,
       {{"gradOutput.dim2 = Hout-1", kBwd, [](Call& c) { c.grad_output.dims[2] = kHout - 1; }},
        {"gradOutput.dim2 = Hout+1", kBwd, [](Call& c) { c.grad_output.dims[2] = kHout + 1; }},
        {"gradOutput.dim3 = Wout-1", kBwd, [](Call& c) { c.grad_output.dims[3] = kWout - 1; }},
        {"gradOutput.dim3 = Wout+1", kBwd, [](Call& c) { c.grad_output.dims[3] = kWout + 1; }},
        {"grid.dim1 = Hout+1", kBwd, [](Call& c) { set_dim(c.grid, c.grid_grad, 1, kHout + 1); }}},
       {kBase}});
  r.push_back({"GS-SHAPE-04",
               kInvalid,
               {{"grid.dim3 = 3", kBoth, [](Call& c) { set_dim(c.grid, c.grid_grad, 3, 3); }},
                {"grid.dim3 = 1", kBoth, [](Call& c) { set_dim(c.grid, c.grid_grad, 3, 1); }},
                {"grid.dim3 = 0", kBoth, [](Call& c) { set_dim(c.grid, c.grid_grad, 3, 0); }}},
               {kBase}});
  r.push_back({"GS-SHAPE-05",
               kInvalid,
               {{"input.dim2 = 0", kBoth, [](Call& c) { set_dim(c.input, c.input_grad, 2, 0); }},
                {"input.dim3 = 0", kBoth, [](Call& c) { set_dim(c.input, c.input_grad, 3, 0); }},
                {"input 0x0", kBoth,
                 [](Call& c) {
                   set_dim(c.input, c.input_grad, 2, 0);
                   set_dim(c.input, c.input_grad, 3, 0);
                 }}},
               {{"input.dim2 = 1", kBoth, [](Call& c) { set_dim(c.input, c.input_grad, 2, 1); }},
                {"input.dim3 = 1", kBoth, [](Call& c) { set_dim(c.input, c.input_grad, 3, 1); }},
                {"input 1x1", kBoth, [](Call& c) {
                   set_dim(c.input, c.input_grad, 2, 1);
                   set_dim(c.input, c.input_grad, 3, 1);
                 }}}});
  {
    std::vector<Mutation> invalid;
    for (size_t d = 0; d < 4; ++d) {
      for (int delta : {-1, 1}) {
        const std::string tag = "dim" + std::to_string(d) + (delta < 0 ? "-1" : "+1");
        invalid.push_back(
            {"inputGrad." + tag, kBwd, [d, delta](Call& c) { c.input_grad.dims[d] += delta; }});
        invalid.push_back({"out." + tag, kFwd, [d, delta](Call& c) { c.out.dims[d] += delta; }});
        invalid.push_back(
            {"gridGrad." + tag, kBwd, [d, delta](Call& c) { c.grid_grad.dims[d] += delta; }});
      }
    }
    invalid.push_back({"inputGrad rank 5", kBwd, [](Call& c) {
                         c.input_grad.dims = {kN, kC, kHin, kWin, 1};
                       }});
    invalid.push_back({"gridGrad rank 3", kBwd, [](Call& c) {
                         c.grid_grad.dims = {kN, kHout * kWout, 2};
                       }});
    r.push_back({"GS-SHAPE-06", kInvalid, invalid, {kBase}});
  }
  r.push_back({"GS-OUT-01",
               kInvalid,
               {{"inputGrad zero stride on C", kBwd,
                 [](Call& c) {
                   c.input_grad.strides = {kHin * kWin, 0, kWin, 1};
                 }},
                {"inputGrad zero stride on W", kBwd,
                 [](Call& c) {
                   c.input_grad.strides = {kC * kHin, kHin, 1, 0};
                 }},
                {"gridGrad zero stride on the xy dim", kBwd,
                 [](Call& c) {
                   c.grid_grad.strides = {kHout * kWout, kWout, 1, 0};
                 }},
                {"inputGrad interleaved overlap (H,W strides 3,2)", kBwd,
                 [](Call& c) {
                   c.input_grad.strides = {72, 24, 3, 2};
                 }},
                {"gridGrad w and xy strides both 1", kBwd,
                 [](Call& c) {
                   c.grid_grad.strides = {12, 4, 1, 1};
                 }},
                {"out zero stride on H", kFwd,
                 [](Call& c) {
                   c.out.strides = {kC * kWout, kWout, 0, 1};
                 }},
                {"out H,W strides 1,1", kFwd,
                 [](Call& c) {
                   c.out.strides = {kC * 4, 4, 1, 1};
                 }}},
               {{"inputGrad interleaved, disjoint (H,W strides 5,2)", kBwd,
                 [](Call& c) {
                   c.input_grad.strides = {72, 24, 5, 2};
                 }},
                {"gridGrad xy outermost", kBwd,
                 [](Call& c) {
                   c.grid_grad.strides = {6, 2, 1, 12};
                 }},
                {"zero stride on a size-1 dim", kBoth,
                 [](Call& c) {
                   for (TensorDesc* t : c.tensors()) t->dims[0] = 1;
                   c.input_grad.strides = {0, kHin * kWin, kWin, 1};
                   c.grid_grad.strides = {0, kWout * 2, 2, 1};
                   c.out.strides = {0, kHout * kWout, kWout, 1};
                 }},
                {"out padded strides", kFwd, [](Call& c) {
                   c.out.strides = {40, 10, 3, 1};
                 }}}});
  return r;
}

const Row& row(std::string_view id) {
  static const std::vector<Row> all = rows();
  for (const auto& r : all) {
    if (r.key() == id) return r;
  }
  throw std::runtime_error("no row " + std::string(id));
}

// Limits whose boundary lies at sizes no test can allocate: each has its own test below on views
// with declared (never touched) storage, named here so the coverage check still sees them.
const std::vector<std::string> kClausesWithDeclaredStorageTests = {"GS-LIMIT-01", "GS-LIMIT-02"};

// The table and the rows cover exactly the same clauses, in the spec's order, with the spec's
// statuses: a clause added to the table without a row here fails this test.
TEST(GridSampler2DValidation, rows_cover_exactly_the_clause_table) {
  const auto table = gradconf::grid_sampler2d::clause_table();
  std::vector<std::string> table_ids, row_ids;
  for (const auto& clause : table) table_ids.emplace_back(clause.id);
  for (const auto& r : rows()) row_ids.push_back(r.id);
  row_ids.insert(row_ids.end(), kClausesWithDeclaredStorageTests.begin(),
                 kClausesWithDeclaredStorageTests.end());
  EXPECT_EQ(std::set<std::string>(table_ids.begin(), table_ids.end()),
            std::set<std::string>(row_ids.begin(), row_ids.end()));
  EXPECT_EQ(table_ids, row_ids) << "clause order differs from the spec's (null, dtype, attrs, "
                                   "ranks, shapes)";
  // An id has one row per profile set, and the sets of its rows never overlap.
  for (size_t i = 0; i < table.size(); ++i) {
    for (size_t j = i + 1; j < table.size(); ++j) {
      if (table[i].id != table[j].id) continue;
      EXPECT_EQ(table[i].profiles & table[j].profiles, 0) << "overlapping rows of " << table[i].id;
    }
  }
  for (const auto& clause : table) {
    if (std::find(row_ids.begin(), row_ids.end(), clause.id) == row_ids.end()) continue;
    const bool declared =
        std::find(kClausesWithDeclaredStorageTests.begin(), kClausesWithDeclaredStorageTests.end(),
                  clause.id) != kClausesWithDeclaredStorageTests.end();
    const auto rows_of_clause = std::count(table_ids.begin(), table_ids.end(), clause.id);
    const auto profile =
        rows_of_clause > 1 && !gradconf::contains(clause.profiles, gradconf::SpecProfile::kSeed)
            ? gradconf::SpecProfile::kCannLatest
            : gradconf::SpecProfile::kSeed;
    const std::string key = profile == gradconf::SpecProfile::kSeed
                                ? std::string(clause.id)
                                : std::string(clause.id) + "@cann-latest";
    if (declared) {
      EXPECT_EQ(clause.status, ACLNN_ERR_PARAM_INVALID) << clause.id;
      continue;
    }
    EXPECT_EQ(clause.status, row(key).status) << clause.id;
    EXPECT_TRUE(gradconf::contains(clause.profiles, row(key).profile)) << clause.id;
    EXPECT_FALSE(clause.source.empty()) << clause.id;
    EXPECT_FALSE(clause.condition.empty()) << clause.id;
  }
}

TEST(GridSampler2DValidation, base_call_is_valid_in_both_directions) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  expect_accepted(base_call(false));
  expect_accepted(base_call(true));
}

class ClauseRow : public ::testing::TestWithParam<std::string> {};

TEST_P(ClauseRow, just_invalid_fails_and_just_valid_runs) {
  const Row& r = row(GetParam());
  gradconf::ScopedSpecProfile profile(r.profile);
  ASSERT_FALSE(r.invalid.empty());
  ASSERT_FALSE(r.valid.empty());
  for (bool forward : {false, true}) {
    const unsigned dir = forward ? kFwd : kBwd;
    for (const Mutation& m : r.invalid) {
      if (!(m.dirs & dir)) continue;
      SCOPED_TRACE((forward ? "forward: " : "backward: ") + m.name);
      Call c = base_call(forward);
      m.apply(c);
      if (r.status == ACLNN_SUCCESS) {
        expect_early_out(c, r.id);
      } else {
        expect_rejected(c, r.id, r.status);
      }
    }
    for (const Mutation& m : r.valid) {
      if (!(m.dirs & dir)) continue;
      SCOPED_TRACE((forward ? "forward valid: " : "backward valid: ") + m.name);
      Call c = base_call(forward);
      m.apply(c);
      expect_accepted(c);
    }
  }
}

std::vector<std::string> row_ids() {
  std::vector<std::string> ids;
  for (const auto& r : rows()) ids.push_back(r.key());
  return ids;
}

INSTANTIATE_TEST_SUITE_P(GridSampler2DValidation, ClauseRow, ::testing::ValuesIn(row_ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           std::replace(name.begin(), name.end(), '@', '_');
                           return name;
                         });

// A call that breaks two clauses reports the earlier one (in the table's order): every pair of
// just-invalid mutations from two different rows, applied later row first so that the earlier
// row's mutation wins where both touch the same field.
TEST(GridSampler2DValidation, two_broken_clauses_report_the_earlier) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const auto all = rows();
  int pairs = 0;
  const auto seed_row = [](const Row& r) { return r.profile == gradconf::SpecProfile::kSeed; };
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) {
      if (!seed_row(all[i]) || !seed_row(all[j])) continue;
      for (bool forward : {false, true}) {
        const unsigned dir = forward ? kFwd : kBwd;
        for (const Mutation& a : all[i].invalid) {
          if (!(a.dirs & dir)) continue;
          for (const Mutation& b : all[j].invalid) {
            if (!(b.dirs & dir)) continue;
            SCOPED_TRACE((forward ? "forward: " : "backward: ") + a.name + " + " + b.name);
            Call c = base_call(forward);
            b.apply(c);
            a.apply(c);
            if (all[i].status == ACLNN_SUCCESS) {
              expect_early_out(c, all[i].id);
            } else {
              expect_rejected(c, all[i].id, all[i].status);
            }
            ++pairs;
            if (::testing::Test::HasFailure()) return;  // one clear failure, not thousands
          }
        }
      }
    }
  }
  EXPECT_GT(pairs, 1000);
}

// The spec's own example message.
TEST(GridSampler2DValidation, message_names_expected_and_got) {
  Call c = base_call(false);
  set_dim(c.grid, c.grid_grad, 3, 3);
  const Materialized m(c);
  const Phase1 r = run_phase1(c, m);
  EXPECT_EQ(r.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(r.message.find("expected grid.dim(3) == 2"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("[2, 3, 2, 3]"), std::string::npos) << r.message;
}

// Phase 1 only, over storage that is declared but never touched (phase 1 performs no
// computation): lets a test present views far bigger than the test allocates.
struct DeclaredTensor {
  aclTensor* tensor = nullptr;
  DeclaredTensor(std::vector<int64_t> dims, std::vector<int64_t> strides, aclDataType dtype,
                 int64_t storage_numel) {
    static float dummy[16];
    const std::vector<int64_t> storage = {storage_numel};
    tensor = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND,
                             storage.data(), 1, dummy);
  }
  ~DeclaredTensor() { aclDestroyTensor(tensor); }
};

// Phase 1 (bilinear, zeros, unaligned) on declared tensors; returns its status and message.
aclnnStatus declared_backward_phase1(const DeclaredTensor& grad_output, const DeclaredTensor& input,
                                     const DeclaredTensor& grid, const DeclaredTensor& input_grad,
                                     const DeclaredTensor& grid_grad, std::vector<bool> mask_values,
                                     std::string* message) {
  BoolArray mask(std::move(mask_values));
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnGridSampler2DBackwardGetWorkspaceSize(
      grad_output.tensor, input.tensor, grid.tensor, 0, 0, false, mask.get(), input_grad.tensor,
      grid_grad.tensor, &ws, &executor);
  *message = aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

// Phase 1 of a backward call whose inputGrad has the given (disjoint) view; returns its status.
aclnnStatus backward_phase1_with_input_grad(std::vector<int64_t> dims, std::vector<int64_t> strides,
                                            int64_t storage_numel, std::string* message) {
  const int64_t n = dims[0], c = dims[1], h = dims[2], w = dims[3];
  DeclaredTensor input({n, c, h, w}, {0, 0, 0, 0}, ACL_FLOAT, 1);
  DeclaredTensor input_grad(dims, strides, ACL_FLOAT, storage_numel);
  DeclaredTensor grid({n, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT, 2 * n);
  DeclaredTensor grid_grad({n, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT, 2 * n);
  DeclaredTensor grad_output({n, c, 1, 1}, {c, 1, 1, 1}, ACL_FLOAT, n * c);
  EXPECT_NE(input_grad.tensor, nullptr);
  return declared_backward_phase1(grad_output, input, grid, input_grad, grid_grad, {true, true},
                                  message);
}

// GS-OUT-01 must reject overlap only (spec README §3). A 3x3 inputGrad plane with strides
// (H 3K, W 2K) addresses K * {0,2,4,3,5,7,6,8,10}: nine distinct elements, interleaved (not
// provably disjoint by nested strides). With K = 2^23 the largest offset exceeds has_overlap's
// bitmap limit (2^26) and the view is reported as overlapping.
TEST(GridSampler2DValidation, small_interleaved_disjoint_output_with_large_strides_is_valid) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  for (int64_t k : {int64_t{1}, int64_t{1} << 10, int64_t{1} << 23}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    std::string message;
    const aclnnStatus status = backward_phase1_with_input_grad(
        {1, 1, 3, 3}, {10 * k + 1, 10 * k + 1, 3 * k, 2 * k}, 10 * k + 1, &message);
    EXPECT_EQ(status, ACLNN_SUCCESS) << message;
  }
}

// Same contract for a large interleaved view: H and W strides p = 4097, q = 4099 are coprime and
// at least the other dim's size, so i*p + j*q never repeats (p | (j - j') and q | (i - i') force
// equality), yet q <= p * (4097 - 1) so nested strides cannot prove it. 4097^2 > 2^24 elements.
TEST(GridSampler2DValidation, large_interleaved_disjoint_output_is_valid) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t p = 4097, q = 4099, size = 4097;
  const int64_t last = (size - 1) * p + (size - 1) * q;
  std::string message;
  const aclnnStatus status = backward_phase1_with_input_grad(
      {1, 1, size, size}, {last + 1, last + 1, q, p}, last + 1, &message);
  EXPECT_EQ(status, ACLNN_SUCCESS) << message;
}

// A valid problem whose workspace is huge: phase 1 may refuse it, but then (spec README §2) the
// message must start with the id of a clause that the call actually violates. grid and gradOutput
// broadcast (zero strides, inputs); gridGrad (1, 2^28, 2^s, 2) is a real disjoint view.
TEST(GridSampler2DValidation, huge_valid_problem_names_a_violated_clause_if_refused) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  for (int shift : {24, 28, 29, 30}) {
    SCOPED_TRACE("Wout = 2^" + std::to_string(shift));
    const int64_t h = int64_t{1} << 28, w = int64_t{1} << shift;
    DeclaredTensor input({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT16, 4);
    DeclaredTensor input_grad({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT16, 4);
    DeclaredTensor grid({1, h, w, 2}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
    DeclaredTensor grid_grad({1, h, w, 2}, {2 * h * w, 2 * w, 2, 1}, ACL_FLOAT16, 2 * h * w);
    DeclaredTensor grad_output({1, 1, h, w}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
    ASSERT_NE(grid_grad.tensor, nullptr);
    BoolArray mask({true, true});
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnGridSampler2DBackwardGetWorkspaceSize(
        grad_output.tensor, input.tensor, grid.tensor, 0, 0, false, mask.get(), input_grad.tensor,
        grid_grad.tensor, &ws, &executor);
    const std::string message = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    // Shapes, dtypes, formats and attributes are valid and the views disjoint: the only clauses
    // such a call can break are the size limits (spec README §3), whatever the clause table says.
    const std::string clause = gradconf::props::clause_of_message(message);
    EXPECT_TRUE(status == ACLNN_SUCCESS || (status == ACLNN_ERR_PARAM_INVALID &&
                                            (clause == "GS-LIMIT-01" || clause == "GS-LIMIT-02")))
        << "status " << status << ", message \"" << message << "\"";
  }
}

// Empty tensors may have null data (aclCreateTensor accepts them): C = 0 with null data for
// gradOutput, input and inputGrad is valid, needs no workspace, and zero-fills gridGrad.
TEST(GridSampler2DValidation, empty_tensors_with_null_data_are_valid) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  auto empty = [](std::vector<int64_t> dims) {
    const std::vector<int64_t> strides = gradconf::contiguous_strides(dims);
    const int64_t storage = 0;
    return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                           &storage, 1, nullptr);
  };
  aclTensor* grad_output = empty({2, 0, 3, 2});
  aclTensor* input = empty({2, 0, 4, 5});
  aclTensor* input_grad = empty({2, 0, 4, 5});
  ASSERT_NE(grad_output, nullptr);
  ASSERT_NE(input, nullptr);
  ASSERT_NE(input_grad, nullptr);
  const std::vector<double> grid_values(2 * 3 * 2 * 2, 0.25);
  DeviceTensor grid({2, 3, 2, 2}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kInput, grid_values);
  DeviceTensor grid_grad({2, 3, 2, 2}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kCanary);
  BoolArray mask({true, true});
  uint64_t ws = kWorkspaceSentinel;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnGridSampler2DBackwardGetWorkspaceSize(grad_output, input, grid.get(), 0, 0, false,
                                                       mask.get(), input_grad, grid_grad.get(), &ws,
                                                       &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  for (double v : grid_grad.values()) EXPECT_EQ(v, 0.0);
  EXPECT_TRUE(grid_grad.outside_view_untouched());
  aclDestroyTensor(grad_output);
  aclDestroyTensor(input);
  aclDestroyTensor(input_grad);
}

}  // namespace

namespace {
// Phase 1 of a backward call with only gridGrad wanted, N = Hout = 1 and the given Wout; inputs
// broadcast (zero strides), so only gridGrad's declared storage is large.
aclnnStatus grid_grad_only_phase1(int64_t wout, std::string* message) {
  DeclaredTensor input({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT16, 4);
  DeclaredTensor input_grad({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT16, 4);
  DeclaredTensor grid({1, 1, wout, 2}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
  DeclaredTensor grid_grad({1, 1, wout, 2}, {2 * wout, 2 * wout, 2, 1}, ACL_FLOAT16, 2 * wout);
  DeclaredTensor grad_output({1, 1, 1, wout}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
  EXPECT_NE(grid_grad.tensor, nullptr);
  return declared_backward_phase1(grad_output, input, grid, input_grad, grid_grad, {false, true},
                                  message);
}
}  // namespace

// GS-LIMIT-01 at its exact boundary: with inputGrad masked off the workspace is one located-point
// record per grid point, so Wout = 2^62 / record size is the largest accepted grid.
TEST(GridSampler2DValidation, limit_01_workspace_boundary_is_exact) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t largest =
      static_cast<int64_t>(gradconf::kMaxWorkspaceBytes) / gradconf::grid_sampler2d::kPointBytes;
  std::string message;
  EXPECT_EQ(grid_grad_only_phase1(largest, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grid_grad_only_phase1(largest + 1, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("GS-LIMIT-01: ", 0), 0u) << message;
}

// GS-LIMIT-01 sizes accumulator planes only for a wanted inputGrad: an input plane of 2^60 pixels
// (whose double plane no workspace could hold) is fine when outputMask[0] is false, and refused,
// by name, when it is true.
TEST(GridSampler2DValidation, limit_01_ignores_accumulator_planes_that_are_not_wanted) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t side = int64_t{1} << 30;  // 2^60 pixels: 8-byte accumulators overflow int64
  for (bool want_input_grad : {false, true}) {
    DeclaredTensor input({1, 1, side, side}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
    DeclaredTensor input_grad({1, 1, side, side}, {side * side, side * side, side, 1}, ACL_FLOAT16,
                              side * side);
    DeclaredTensor grid({1, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT16, 2);
    DeclaredTensor grid_grad({1, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT16, 2);
    DeclaredTensor grad_output({1, 1, 1, 1}, {1, 1, 1, 1}, ACL_FLOAT16, 1);
    ASSERT_NE(input_grad.tensor, nullptr);
    std::string message;
    const aclnnStatus status = declared_backward_phase1(
        grad_output, input, grid, input_grad, grid_grad, {want_input_grad, true}, &message);
    if (want_input_grad) {
      EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
      EXPECT_EQ(message.rfind("GS-LIMIT-01: ", 0), 0u) << message;
    } else {
      EXPECT_EQ(status, ACLNN_SUCCESS) << message;
    }
  }
}

// The workspace holds one accumulator plane per worker that can have work: with a single (n, c)
// plane it is the same at 1 and at 8 threads.
TEST(GridSampler2DValidation, workspace_is_sized_by_the_workers_that_can_work) {
  auto workspace_at = [](int threads, int64_t channels) {
    gradconf::set_num_threads(threads);
    gradconf::testing::GridSampler2DBackwardTester t;
    const auto run = t.batch(1).channels(channels).input_size(40, 50).output_size(3, 4).Run();
    gradconf::set_num_threads(0);
    EXPECT_EQ(run.phase2, ACLNN_SUCCESS) << run.message;
    return run.workspace_size;
  };
  EXPECT_EQ(workspace_at(1, 1), workspace_at(8, 1));
  EXPECT_LT(workspace_at(2, 3), workspace_at(3, 3));  // 3 planes can use a third worker
  EXPECT_EQ(workspace_at(3, 3), workspace_at(8, 3));
}

// GS-LIMIT-02: two interleaved axes are decided in closed form at any span (strides 4097/4099
// and 2^16 + 1/2^16 + 3 over 4097^2 elements: both disjoint, valid). A third interleaved axis
// (C of size 2, stride 2^16 + 5, pairwise colliding with neither) over more than 2^28 elements
// cannot be decided within the budget (it does overlap: 65541 = 2 * 65539 - 65537, which only
// enumeration finds): refused by name, as GS-LIMIT-02 and not GS-OUT-01.
TEST(GridSampler2DValidation, limit_02_undecidable_interleaved_output_is_refused_by_name) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t size = 4097;
  for (auto [channels, p, q, r, expected] :
       {std::tuple{int64_t{1}, int64_t{4097}, int64_t{4099}, int64_t{0}, ACLNN_SUCCESS},
        std::tuple{int64_t{1}, int64_t{65537}, int64_t{65539}, int64_t{0}, ACLNN_SUCCESS},
        std::tuple{int64_t{2}, int64_t{65537}, int64_t{65539}, int64_t{65541},
                   ACLNN_ERR_PARAM_INVALID}}) {
    SCOPED_TRACE("C " + std::to_string(channels) + ", strides " + std::to_string(r) + ", " +
                 std::to_string(q) + ", " + std::to_string(p));
    const int64_t last = (size - 1) * p + (size - 1) * q + (channels - 1) * r;
    std::string message;
    const aclnnStatus status = backward_phase1_with_input_grad(
        {1, channels, size, size}, {last + 1, channels > 1 ? r : last + 1, q, p}, last + 1,
        &message);
    EXPECT_EQ(status, expected) << message;
    if (expected != ACLNN_SUCCESS) {
      EXPECT_EQ(message.rfind("GS-LIMIT-02: ", 0), 0u) << message;
    }
  }
}
