#include "families/multi_scale_deformable_attention/entries.h"

#include "core/checked_math.h"

#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "harness/backend.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "multi_scale_deformable_attention/params.h"
#include "op/entry_params.h"
#include "op/problem_call.h"
#include "ops/multi_scale_deformable_attention/reference/reference.h"

namespace gradconf::props::msda {
namespace {
namespace op = gradconf::msda;

const std::vector<aclDataType> kFloatDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
const std::vector<aclDataType> kIndexDtypes = {ACL_INT32, ACL_INT64};

// Ranks, dtype classes and batching of MSDA's tensors; outputs with their shape rules.
RoleSpec role(std::string_view name) {
  RoleSpec r;
  const bool table = name == "spatialShape" || name == "levelStartIndex";
  // value, gradOutput, output and gradValue are 4-D.
  r.rank = name == "spatialShape"                             ? 2
           : name == "levelStartIndex"                        ? 1
           : name == "location" || name == "gradLocation"     ? 6
           : name == "attnWeight" || name == "gradAttnWeight" ? 5
                                                              : 4;
  r.dtype_class = table ? DtypeClass::kIndex : DtypeClass::kFloat;
  r.batching = table ? Batching::kNone : Batching::kDim;
  r.dtypes = table ? kIndexDtypes : kFloatDtypes;
  const std::string_view shape_rule =
      name == "output"           ? "(value.bs, location.Q, value.heads, value.C); cann-latest: "
                                   "(value.bs, location.Q, value.heads * value.C)"
      : name == "gradValue"      ? "shape(value)"
      : name == "gradLocation"   ? "shape(location)"
      : name == "gradAttnWeight" ? "shape(attnWeight)"
                                 : "";
  if (!shape_rule.empty()) {
    r.dtypes.clear();
    r.shape_rule = shape_rule;
    r.dtype_rule = "dtype(value)";
  }
  return r;
}

// MSDA has no attributes.
AttrSpec no_attr(std::string_view) { return {}; }

OutputShape output_shape(const Call& call, std::string_view role) {
  const int v = call.index_of("value");
  const aclDataType dtype = v < 0 ? ACL_FLOAT : call.tensors[static_cast<size_t>(v)].dtype;
  if (role == "output") {
    const int64_t heads = call.dim_or("value", 2), channels = call.dim_or("value", 3);
    // cann-latest: (bs, Q, heads * C) (errata E-MSDA-4).
    if (call.profile == SpecProfile::kCannLatest) {
      return {{call.dim_or("value", 0), call.dim_or("location", 1),
               checked_mul(heads, channels).value_or(-1)},
              dtype};
    }
    return {{call.dim_or("value", 0), call.dim_or("location", 1), heads, channels}, dtype};
  }
  if (role == "gradValue") return {call.dims_of("value"), dtype};
  if (role == "gradLocation") return {call.dims_of("location"), dtype};
  return {call.dims_of("attnWeight"), dtype};
}

std::vector<double> values_of(const Call& call, std::string_view role) {
  return call.tensor(role).values;
}
}  // namespace

const SizeSites& batch_sites() {
  static const SizeSites sites = {{"value", 0},        {"location", 0},      {"attnWeight", 0},
                                  {"gradOutput", 0},   {"output", 0},        {"gradValue", 0},
                                  {"gradLocation", 0}, {"gradAttnWeight", 0}};
  return sites;
}

const SizeSites& query_sites() {
  static const SizeSites sites = {{"location", 1}, {"attnWeight", 1},   {"gradOutput", 1},
                                  {"output", 1},   {"gradLocation", 1}, {"gradAttnWeight", 1}};
  return sites;
}

namespace {
// Spec multi_scale_deformable_attention.md: bs or Q = 0 is valid (workspace 0, non-empty outputs
// zero-filled). num_keys = 0 cannot be stated with levels of at least 1 x 1 (MSDA-DATA-01).
std::vector<EmptySize> empty_sizes() { return {{"bs", batch_sites()}, {"Q", query_sites()}}; }
}  // namespace

const EntrySpec& forward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kForwardParams, &aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize,
                        &aclnnMultiScaleDeformableAttnFunction, &op::clause_table>(
          "MultiScaleDeformableAttention", "multi_scale_deformable_attention", role, no_attr,
          {.output_shape = output_shape, .empty_sizes = empty_sizes()});
  return spec;
}

const EntrySpec& backward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kBackwardParams,
                        &aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize,
                        &aclnnMultiScaleDeformableAttentionGrad, &op::clause_table>(
          "MultiScaleDeformableAttentionGrad", "multi_scale_deformable_attention", role, no_attr,
          {.output_shape = output_shape, .empty_sizes = empty_sizes()});
  return spec;
}

const EntrySpec& entry_spec(Direction direction) {
  return direction == Direction::kForward ? forward_entry() : backward_entry();
}

Call make_call(const Problem& p) {
  Call call = shaped_call(entry_spec(p.entry), p);
  fill_inputs(call, p, gradconf::msda::make_values);
  return call;
}

namespace {

// The reference's sums over `p`'s call, or (magnitudes) the sums of their terms' magnitudes.
std::vector<std::pair<Role, std::vector<double>>> reference_sums(const Problem& p, const Call& call,
                                                                 bool magnitudes) {
  namespace ref = gradconf::msda::reference;
  const ref::Dims d{p.batch,    p.keys(),  p.heads,
                    p.channels, p.queries, static_cast<int64_t>(p.levels.size()),
                    p.points};
  ref::LevelTable levels;
  for (const auto& [h, w] : p.levels) {
    levels.height.push_back(h);
    levels.width.push_back(w);
  }
  levels.start = p.level_starts();
  const auto value = values_of(call, "value");
  const auto location = values_of(call, "location");
  const auto attn = values_of(call, "attnWeight");
  if (p.entry == Direction::kForward) {
    return {{Role::kOutput, magnitudes
                                ? ref::forward_term_magnitudes(d, levels, value, location, attn)
                                : ref::forward(d, levels, value, location, attn)}};
  }
  const auto grad_output = values_of(call, "gradOutput");
  auto g = magnitudes ? ref::backward_term_magnitudes(d, levels, value, location, attn, grad_output)
                      : ref::backward(d, levels, value, location, attn, grad_output);
  return {{Role::kGradValue, std::move(g.value)},
          {Role::kGradLocation, std::move(g.location)},
          {Role::kGradAttnWeight, std::move(g.attn_weight)}};
}

}  // namespace

std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& p,
                                                                    const Call& call) {
  return reference_sums(p, call, false);
}

std::vector<TermMagnitudes<Role>> reference_term_magnitudes(const Problem& p, const Call& call) {
  // Products per element: a point's 4 corners per level and point (output), every sample that
  // can reach a key (gradValue), a point's 4 corners per channel (the other two).
  const int64_t samples = static_cast<int64_t>(p.levels.size()) * p.points;
  std::vector<TermMagnitudes<Role>> all;
  for (auto& [role, sums] : reference_sums(p, call, true)) {
    const int64_t terms = role == Role::kOutput      ? 4 * samples
                          : role == Role::kGradValue ? 4 * samples * p.queries
                                                     : 4 * p.channels;
    all.push_back({role, std::move(sums), terms});
  }
  return all;
}

}  // namespace gradconf::props::msda
