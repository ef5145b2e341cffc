#include "families/grid_sampler2d/entries.h"

#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "grid_sampler2d/clauses.h"
#include "grid_sampler2d/params.h"
#include "op/entry_params.h"
#include "op/problem_call.h"
#include "ops/grid_sampler2d/reference/reference.h"

namespace gradconf::props::gs {
namespace {
namespace op = gradconf::grid_sampler2d;

const std::vector<aclDataType> kFloatDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

// Every GridSampler2D tensor is 4-D; outputs with their shape and outputMask rules.
RoleSpec role(std::string_view name) {
  RoleSpec r;
  r.rank = 4;
  if (name == "out" || name == "inputGrad" || name == "gridGrad") {
    r.shape_rule = name == "out"         ? "(input.N, input.C, grid.Hout, grid.Wout)"
                   : name == "inputGrad" ? "shape(input)"
                                         : "shape(grid)";
    r.dtype_rule = "dtype(input)";
    r.written_rule = name == "inputGrad"  ? "outputMask[0]"
                     : name == "gridGrad" ? "outputMask[1]"
                                          : "";
  } else {
    r.dtypes = kFloatDtypes;
  }
  return r;
}

// Every output has input's dtype (GS-DTYPE-02 makes all tensors agree).
OutputShape output_shape(const Call& call, std::string_view role) {
  const int input = call.index_of("input");
  const aclDataType dtype = input < 0 ? ACL_FLOAT : call.tensors[static_cast<size_t>(input)].dtype;
  if (role == "out") {
    return {{call.dim_or("input", 0), call.dim_or("input", 1), call.dim_or("grid", 1),
             call.dim_or("grid", 2)},
            dtype};
  }
  const std::string_view like = role == "inputGrad" ? "input" : "grid";
  const int i = call.index_of(like);
  return {i < 0 ? std::vector<int64_t>{} : call.tensors[static_cast<size_t>(i)].dims, dtype};
}

// outputMask[k]; a null mask computes nothing (GS-MASK-01).
bool written(const Call& call, std::string_view role) {
  if (call.attr_index("outputMask") < 0) return true;
  const auto* mask = std::get_if<std::vector<bool>>(&call.attr("outputMask"));
  const size_t k = role == "inputGrad" ? 0 : 1;
  return mask != nullptr && k < mask->size() && (*mask)[k];
}

// Defaults are PyTorch's grid_sample defaults: bilinear, zeros, align_corners=False.
AttrSpec attr(std::string_view name) {
  if (name == "outputMask") return {.default_value = std::monostate{}, .nullable = true};
  if (name == "alignCorners") return {.default_value = false};
  return {.default_value = int64_t{0}};
}

// Spec grid_sampler2d.md: N, C, Hout or Wout = 0 is valid (workspace 0, written outputs
// zero-filled). Input's H and W may not be 0 (GS-SHAPE-05).
std::vector<EmptySize> empty_sizes() {
  return {{"N",
           {{"gradOutput", 0},
            {"input", 0},
            {"grid", 0},
            {"out", 0},
            {"inputGrad", 0},
            {"gridGrad", 0}}},
          {"C", {{"gradOutput", 1}, {"input", 1}, {"out", 1}, {"inputGrad", 1}}},
          {"Hout", {{"gradOutput", 2}, {"grid", 1}, {"out", 2}, {"gridGrad", 1}}},
          {"Wout", {{"gradOutput", 3}, {"grid", 2}, {"out", 3}, {"gridGrad", 2}}}};
}
}  // namespace

const EntrySpec& forward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kForwardParams, &aclnnGridSampler2DGetWorkspaceSize,
                        &aclnnGridSampler2D, &op::clause_table>(
          "GridSampler2D", "grid_sampler2d", role, attr,
          {.output_shape = output_shape, .empty_sizes = empty_sizes()});
  return spec;
}

const EntrySpec& backward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kBackwardParams, &aclnnGridSampler2DBackwardGetWorkspaceSize,
                        &aclnnGridSampler2DBackward, &op::clause_table>(
          "GridSampler2DBackward", "grid_sampler2d", role, attr,
          {.output_shape = output_shape, .written = written, .empty_sizes = empty_sizes()});
  return spec;
}

const EntrySpec& entry_spec(Direction entry) {
  return entry == Direction::kForward ? forward_entry() : backward_entry();
}

Direction entry_of(const Call& call) {
  return call.entry == &forward_entry() ? Direction::kForward : Direction::kBackward;
}

Role role_at(const Call& call, size_t i) {
  for (int r = 0; r < grid_sampler2d::kRoleCount; ++r) {
    if (grid_sampler2d::role_name(static_cast<Role>(r)) == call.tensors[i].name) {
      return static_cast<Role>(r);
    }
  }
  return Role::kInput;
}

std::optional<std::vector<bool>> output_mask(const Call& call) {
  if (call.attr_index("outputMask") < 0) return std::nullopt;
  const auto* mask = std::get_if<std::vector<bool>>(&call.attr("outputMask"));
  return mask ? std::optional<std::vector<bool>>(*mask) : std::nullopt;
}

void set_output_mask(Call& call, std::optional<std::vector<bool>> mask) {
  if (call.attr_index("outputMask") < 0) return;
  if (mask) {
    call.attr("outputMask") = std::move(*mask);
  } else {
    call.attr("outputMask") = std::monostate{};
  }
}

Call make_call(const Problem& p) {
  Call call = shaped_call(entry_spec(p.entry), p);
  call.attr("interpolationMode") = static_cast<int64_t>(p.interpolation);
  call.attr("paddingMode") = static_cast<int64_t>(p.padding);
  call.attr("alignCorners") = p.align_corners;
  if (p.entry == Direction::kBackward) {
    set_output_mask(call, p.output_mask ? std::optional<std::vector<bool>>(std::vector<bool>{
                                              (*p.output_mask)[0], (*p.output_mask)[1]})
                                        : std::nullopt);
  }
  fill_inputs(call, p, grid_sampler2d::make_values);
  return call;
}

const std::vector<double>& output_of(const Call& call, const Outcome& outcome, Role role) {
  return props::output_of(call, outcome, grid_sampler2d::role_name(role));
}

std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& p,
                                                                    const Call& call) {
  namespace ref = grid_sampler2d::reference;
  const ref::Dims dims{p.n, p.c, p.in_h, p.in_w, p.out_h, p.out_w};
  const ref::Attrs attrs{static_cast<int64_t>(p.interpolation), static_cast<int64_t>(p.padding),
                         p.align_corners, p.dtype != ACL_DOUBLE};
  const auto& input = tensor(call, Role::kInput).values;
  const auto& grid = tensor(call, Role::kGrid).values;
  if (p.entry == Direction::kForward) return {{Role::kOut, ref::forward(dims, attrs, input, grid)}};
  auto grads = ref::backward(dims, attrs, tensor(call, Role::kGradOutput).values, input, grid);
  return {{Role::kInputGrad, std::move(grads.input_grad)},
          {Role::kGridGrad, std::move(grads.grid_grad)}};
}

}  // namespace gradconf::props::gs
