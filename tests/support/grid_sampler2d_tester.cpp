#include "support/grid_sampler2d_tester.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

#include "acl/acl.h"
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "compare/tolerance.h"
#include "core/parallel.h"
#include "grid_sampler2d/problem.h"
#include "ops/grid_sampler2d/reference/reference.h"
#include "support/device_tensor.h"

namespace gradconf::testing {

namespace ref = gradconf::grid_sampler2d::reference;

bool Evaluation::any_comparison_failed() const {
  for (const auto& c : comparisons) {
    if (c.comparison.status == gradconf::props::CompareStatus::kFailed) return true;
  }
  return false;
}

std::string Evaluation::report() const {
  std::ostringstream s;
  for (const auto& p : problems) s << "  problem: " << p << "\n";
  for (const auto& c : comparisons) s << "  " << c.name << ": " << c.comparison.summary() << "\n";
  return s.str();
}

GridSampler2DBackwardTester::GridSampler2DBackwardTester()
    : backend_(&gradconf::props::Backend::linked()) {}

std::string GridSampler2DBackwardTester::describe() const {
  std::ostringstream s;
  s << (forward_ ? "GridSampler2D" : "GridSampler2DBackward") << " "
    << gradconf::grid_sampler2d::dtype_repro_name(dtype_) << " N=" << n_ << " C=" << c_
    << " in=" << in_h_ << "x" << in_w_ << " out=" << out_h_ << "x" << out_w_
    << " interp=" << interpolation_ << " pad=" << padding_ << " align=" << align_corners_;
  if (!forward_) {
    if (mask_) {
      s << " mask=" << (*mask_)[0] << (*mask_)[1];
    } else {
      s << " mask=null";
    }
  }
  for (int r = 0; r < kRoleCount; ++r) {
    const auto text = layouts_[r].to_string();
    if (!text.empty()) s << " " << role_name(static_cast<Role>(r)) << "=" << text;
  }
  s << " seed=" << seed_;
  return s.str();
}

std::vector<double> GridSampler2DBackwardTester::values_or_random(const std::vector<double>& given,
                                                                  int64_t count, uint64_t stream,
                                                                  bool grid) const {
  if (!given.empty()) return given;
  std::mt19937_64 rng(seed_ * 7919 + stream);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> pick(0.0, 1.0);
  std::vector<double> v(static_cast<size_t>(count));
  for (auto& x : v) {
    if (grid) {
      x = unit(rng) * (pick(rng) < 0.1 ? 2.0 : 1.2);
    } else {
      x = unit(rng);
    }
  }
  return v;
}

namespace {
// Sets the kernels' thread count for a scope; 0 keeps the current one.
using ThreadScope = gradconf::props::ScopedBackendThreads;

// A NaN in every float16, bfloat16, float32 and float64 lane of an aligned buffer.
constexpr uint64_t kNaNPattern = 0x7FF87FC07FF87FC0ull;
}  // namespace

RunResult GridSampler2DBackwardTester::Run() const {
  RunResult r;
  const auto layout = [&](Role role) -> const gradconf::LayoutSpec& {
    return layouts_[static_cast<int>(role)];
  };
  const auto in_dims = input_dims();
  const auto g_dims = grid_dims();
  const auto o_dims = output_dims();

  const auto input_v = values_or_random(input_, numel(in_dims), 1, false);
  const auto grid_v = values_or_random(grid_, numel(g_dims), 2, true);
  DeviceTensor input(in_dims, dtype_, layout(Role::kInput), Fill::kInput, input_v);
  DeviceTensor grid(g_dims, dtype_, layout(Role::kGrid), Fill::kInput, grid_v);
  r.input = input.values();
  r.grid = grid.values();

  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) throw std::runtime_error("aclrtCreateStream");

  ThreadScope phase1_threads(*backend_, threads_phase1_);
  aclOpExecutor* executor = nullptr;
  DeviceTensor grad_output, input_grad, grid_grad, out;
  std::optional<BoolArray> mask;
  if (forward_) {
    out = DeviceTensor(o_dims, dtype_, layout(Role::kOut), Fill::kCanary);
    r.phase1 = GRADCONF_ENTRY(*backend_, aclnnGridSampler2DGetWorkspaceSize)(
        input.get(), grid.get(), interpolation_, padding_, align_corners_, out.get(),
        &r.workspace_size, &executor);
  } else {
    const auto go_v = values_or_random(grad_output_, numel(o_dims), 3, false);
    grad_output = DeviceTensor(o_dims, dtype_, layout(Role::kGradOutput), Fill::kInput, go_v);
    r.grad_output = grad_output.values();
    input_grad = DeviceTensor(in_dims, dtype_, layout(Role::kInputGrad), Fill::kCanary);
    grid_grad = DeviceTensor(g_dims, dtype_, layout(Role::kGridGrad), Fill::kCanary);
    if (mask_) mask.emplace(std::vector<bool>{(*mask_)[0], (*mask_)[1]});
    r.phase1 = GRADCONF_ENTRY(*backend_, aclnnGridSampler2DBackwardGetWorkspaceSize)(
        grad_output.get(), input.get(), grid.get(), interpolation_, padding_, align_corners_,
        mask ? mask->get() : nullptr, input_grad.get(), grid_grad.get(), &r.workspace_size,
        &executor);
  }
  r.message = backend_->runtime().recent_error();
  if (r.phase1 == ACLNN_SUCCESS) {
    ThreadScope phase2_threads(*backend_, threads_phase2_);
    const size_t bytes = misalign_ + r.workspace_size;
    std::optional<DeviceBuffer> workspace;
    switch (fill_) {
      case WorkspaceFill::kZero:
        workspace.emplace(bytes, uint8_t{0});
        break;
      case WorkspaceFill::kOnes:
        workspace.emplace(bytes, uint8_t{0xFF});
        break;
      case WorkspaceFill::kNaN:
        workspace.emplace(bytes, kNaNPattern);
        break;
    }
    void* ws_ptr =
        r.workspace_size > 0 ? static_cast<uint8_t*>(workspace->data()) + misalign_ : nullptr;
    r.phase2 = forward_ ? GRADCONF_ENTRY(*backend_, aclnnGridSampler2D)(ws_ptr, r.workspace_size,
                                                                        executor, stream)
                        : GRADCONF_ENTRY(*backend_, aclnnGridSampler2DBackward)(
                              ws_ptr, r.workspace_size, executor, stream);
    if (r.phase2 != ACLNN_SUCCESS) r.message = backend_->runtime().recent_error();
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) throw std::runtime_error("sync");
    r.workspace_tail_intact = workspace->tail_untouched(bytes);
  }
  aclrtDestroyStream(stream);

  auto collect = [&](const DeviceTensor& t, std::vector<double>& values,
                     std::vector<uint8_t>& bytes, bool& untouched) {
    values = t.values();
    bytes = t.storage_bytes();
    untouched = bytes == t.initial_bytes();
    r.gaps_intact = r.gaps_intact && t.outside_view_untouched();
  };
  if (forward_) {
    collect(out, r.out, r.out_bytes, r.out_untouched);
  } else {
    collect(input_grad, r.input_grad, r.input_grad_bytes, r.input_grad_untouched);
    collect(grid_grad, r.grid_grad, r.grid_grad_bytes, r.grid_grad_untouched);
  }
  return r;
}

Evaluation GridSampler2DBackwardTester::Evaluate() const {
  Evaluation e;
  e.run = Run();
  const RunResult& r = e.run;
  if (r.phase1 != ACLNN_SUCCESS) {
    e.problems.push_back("phase 1 returned " + std::to_string(r.phase1) + ": " + r.message);
    return e;
  }
  if (r.phase2 != ACLNN_SUCCESS) {
    e.problems.push_back("phase 2 returned " + std::to_string(r.phase2) + ": " + r.message);
  }
  if (!r.gaps_intact) e.problems.push_back("a byte outside an output view was written");
  if (!r.workspace_tail_intact) e.problems.push_back("a byte beyond workspaceSize was written");
  if (is_empty() && r.workspace_size != 0) {
    e.problems.push_back("empty problem with workspaceSize " + std::to_string(r.workspace_size));
  }

  const ref::Dims dims{n_, c_, in_h_, in_w_, out_h_, out_w_};
  const ref::Attrs attrs{interpolation_, padding_, align_corners_, dtype_ != ACL_DOUBLE};
  const std::string op = forward_ ? "GridSampler2D" : "GridSampler2DBackward";
  auto check = [&](const char* name, const std::vector<double>& got,
                   const std::vector<double>& expected, const std::vector<int64_t>& shape) {
    const auto& tolerance = gradconf::props::tolerance_for(op, name, dtype_);
    e.comparisons.push_back({name, gradconf::props::compare(got, expected, shape, tolerance)});
    if (is_empty()) {
      for (double v : got) {
        if (v != 0.0) {
          e.problems.push_back(std::string(name) + " of an empty problem is not zero-filled");
          break;
        }
      }
    }
  };
  if (forward_) {
    check("out", r.out, ref::forward(dims, attrs, r.input, r.grid), output_dims());
    return e;
  }
  if (!mask_) {
    if (!r.input_grad_untouched || !r.grid_grad_untouched) {
      e.problems.push_back("outputMask null but an output was written");
    }
    if (r.workspace_size != 0) e.problems.push_back("outputMask null but workspaceSize != 0");
    return e;
  }
  const auto expected = ref::backward(dims, attrs, r.grad_output, r.input, r.grid);
  if ((*mask_)[0]) {
    check("inputGrad", r.input_grad, expected.input_grad, input_dims());
  } else if (!r.input_grad_untouched) {
    e.problems.push_back("inputGrad written although outputMask[0] is false");
  }
  if ((*mask_)[1]) {
    check("gridGrad", r.grid_grad, expected.grid_grad, grid_dims());
    if (interpolation_ == 1) {
      // Spec: nearest's gridGrad is exactly 0 (a tolerance would let small garbage through).
      for (double v : r.grid_grad) {
        if (v != 0.0) {
          e.problems.push_back("nearest gridGrad is not exactly 0");
          break;
        }
      }
    }
  } else if (!r.grid_grad_untouched) {
    e.problems.push_back("gridGrad written although outputMask[1] is false");
  }
  return e;
}

void GridSampler2DBackwardTester::Test() const {
  const Evaluation e = Evaluate();
  if (std::getenv("GRADCONF_TEST_VERBOSE") != nullptr) {
    std::printf("%s\n%s", describe().c_str(), e.report().c_str());
  }
  EXPECT_FALSE(e.failed()) << describe() << "\n" << e.report();
}

}  // namespace gradconf::testing
