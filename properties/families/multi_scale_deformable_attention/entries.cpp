#include "families/multi_scale_deformable_attention/entries.h"

#include "core/checked_math.h"

#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "harness/backend.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "ops/multi_scale_deformable_attention/reference/reference.h"

namespace gradconf::props::msda {
namespace {
namespace op = gradconf::msda;

const std::vector<aclDataType> kFloatDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
const std::vector<aclDataType> kIndexDtypes = {ACL_INT32, ACL_INT64};

RoleSpec role(std::string_view name, int rank, DtypeClass dtype_class, Batching batching) {
  RoleSpec r;
  r.name = name;
  r.rank = rank;
  r.dtype_class = dtype_class;
  r.batching = batching;
  r.dtypes = dtype_class == DtypeClass::kIndex ? kIndexDtypes : kFloatDtypes;
  return r;
}

RoleSpec output(std::string_view name, int rank, std::string_view shape_rule) {
  RoleSpec r = role(name, rank, DtypeClass::kFloat, Batching::kDim);
  r.output = true;
  r.dtypes.clear();
  r.shape_rule = shape_rule;
  r.dtype_rule = "dtype(value)";
  return r;
}

std::vector<RoleSpec> inputs(bool backward) {
  std::vector<RoleSpec> roles = {role("value", 4, DtypeClass::kFloat, Batching::kDim),
                                 role("spatialShape", 2, DtypeClass::kIndex, Batching::kNone),
                                 role("levelStartIndex", 1, DtypeClass::kIndex, Batching::kNone),
                                 role("location", 6, DtypeClass::kFloat, Batching::kDim),
                                 role("attnWeight", 5, DtypeClass::kFloat, Batching::kDim)};
  if (backward) roles.push_back(role("gradOutput", 4, DtypeClass::kFloat, Batching::kDim));
  return roles;
}

op::CallArgs call_args(const BoundArgs& a, Direction direction) {
  op::CallArgs args;
  args.direction = direction;
  args.value = a.tensor("value");
  args.spatial_shape = a.tensor("spatialShape");
  args.level_start_index = a.tensor("levelStartIndex");
  args.location = a.tensor("location");
  args.attn_weight = a.tensor("attnWeight");
  args.grad_output = a.tensor("gradOutput");
  args.output = a.tensor("output");
  args.grad_value = a.tensor("gradValue");
  args.grad_location = a.tensor("gradLocation");
  args.grad_attn_weight = a.tensor("gradAttnWeight");
  args.workspace_size = a.workspace_size();
  args.executor = a.executor();
  return args;
}

template <Direction kDirection>
Verdict oracle(const BoundArgs& a, SpecProfile profile) {
  return run_clauses(op::clause_table(), call_args(a, kDirection), profile);
}

aclnnStatus forward_phase1(const Backend& backend, const BoundArgs& a) {
  return GRADCONF_ENTRY(backend, aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize)(
      a.tensor("value"), a.tensor("spatialShape"), a.tensor("levelStartIndex"),
      a.tensor("location"), a.tensor("attnWeight"), a.tensor("output"), a.workspace_size(),
      a.executor());
}

aclnnStatus backward_phase1(const Backend& backend, const BoundArgs& a) {
  return GRADCONF_ENTRY(backend, aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize)(
      a.tensor("value"), a.tensor("spatialShape"), a.tensor("levelStartIndex"),
      a.tensor("location"), a.tensor("attnWeight"), a.tensor("gradOutput"), a.tensor("gradValue"),
      a.tensor("gradLocation"), a.tensor("gradAttnWeight"), a.workspace_size(), a.executor());
}

Phase2 forward_phase2(const Backend& backend) {
  return GRADCONF_ENTRY(backend, aclnnMultiScaleDeformableAttnFunction);
}
Phase2 backward_phase2(const Backend& backend) {
  return GRADCONF_ENTRY(backend, aclnnMultiScaleDeformableAttentionGrad);
}

std::vector<int64_t> dims_of(const Call& call, std::string_view role) {
  const int i = call.index_of(role);
  return i < 0 ? std::vector<int64_t>{} : call.tensors[static_cast<size_t>(i)].dims;
}

int64_t dim_or(const Call& call, std::string_view role, size_t d) {
  const auto dims = dims_of(call, role);
  return d < dims.size() ? dims[d] : 1;
}

OutputShape output_shape(const Call& call, std::string_view role) {
  const int v = call.index_of("value");
  const aclDataType dtype = v < 0 ? ACL_FLOAT : call.tensors[static_cast<size_t>(v)].dtype;
  if (role == "output") {
    const int64_t heads = dim_or(call, "value", 2), channels = dim_or(call, "value", 3);
    // cann-latest: (bs, Q, heads * C) (errata E-MSDA-4).
    if (call.profile == SpecProfile::kCannLatest) {
      return {{dim_or(call, "value", 0), dim_or(call, "location", 1),
               checked_mul(heads, channels).value_or(-1)},
              dtype};
    }
    return {{dim_or(call, "value", 0), dim_or(call, "location", 1), heads, channels}, dtype};
  }
  if (role == "gradValue") return {dims_of(call, "value"), dtype};
  if (role == "gradLocation") return {dims_of(call, "location"), dtype};
  return {dims_of(call, "attnWeight"), dtype};
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
  static const EntrySpec spec = [] {
    EntrySpec e{"MultiScaleDeformableAttention",
                "multi_scale_deformable_attention",
                Direction::kForward,
                inputs(false),
                {},
                forward_phase1,
                forward_phase2,
                oracle<Direction::kForward>,
                output_shape};
    e.roles.push_back(output("output", 4,
                             "(value.bs, location.Q, value.heads, value.C); cann-latest: "
                             "(value.bs, location.Q, value.heads * value.C)"));
    e.empty_sizes = empty_sizes();
    return e;
  }();
  return spec;
}

const EntrySpec& backward_entry() {
  static const EntrySpec spec = [] {
    EntrySpec e{"MultiScaleDeformableAttentionGrad",
                "multi_scale_deformable_attention",
                Direction::kBackward,
                inputs(true),
                {},
                backward_phase1,
                backward_phase2,
                oracle<Direction::kBackward>,
                output_shape};
    e.roles.push_back(output("gradValue", 4, "shape(value)"));
    e.roles.push_back(output("gradLocation", 6, "shape(location)"));
    e.roles.push_back(output("gradAttnWeight", 5, "shape(attnWeight)"));
    e.empty_sizes = empty_sizes();
    return e;
  }();
  return spec;
}

const EntrySpec& entry_spec(Direction direction) {
  return direction == Direction::kForward ? forward_entry() : backward_entry();
}

Call make_call(const Problem& p) {
  Call call = entry_spec(p.entry).blank_call();
  call.profile = p.profile;
  const std::vector<Role> roles = p.roles();
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    TensorSpec& spec = call.tensors[i];
    const Role r = roles[i];
    spec.dims = p.dims(r);
    spec.dtype = p.dtype_of(r);
    spec.layout = p.layout(r);
    if (!spec.output) {
      spec.values = gradconf::msda::make_values(p, r);
      make_broadcast_consistent(spec);
    }
  }
  return call;
}

std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& p,
                                                                    const Call& call) {
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
    return {{Role::kOutput, ref::forward(d, levels, value, location, attn)}};
  }
  auto g = ref::backward(d, levels, value, location, attn, values_of(call, "gradOutput"));
  return {{Role::kGradValue, std::move(g.value)},
          {Role::kGradLocation, std::move(g.location)},
          {Role::kGradAttnWeight, std::move(g.attn_weight)}};
}

}  // namespace gradconf::props::msda
