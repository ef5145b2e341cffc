#include "gen/boundary.h"

#include <stdexcept>

#include <array>
#include <vector>

namespace gradconf::props {

const ClauseBreaker* find_breaker(std::span<const ClauseBreaker> breakers,
                                  std::string_view clause_id) {
  for (const ClauseBreaker& b : breakers) {
    if (b.clause_id == clause_id) return &b;
  }
  return nullptr;
}

void resize_sites(Call& call, const SizeSites& sites, int64_t value) {
  for (const auto& [role, dim] : sites) {
    const int t = call.index_of(role);
    if (t < 0) continue;
    TensorSpec& spec = call.tensors[static_cast<size_t>(t)];
    if (dim >= static_cast<int>(spec.dims.size())) continue;
    spec.dims[static_cast<size_t>(dim)] = value;
    reset_after_reshape(spec);
  }
}

void reset_after_reshape(TensorSpec& t) {
  t.layout = LayoutSpec{};
  if (!t.output) t.values.clear();
}

void break_format_nd(Call& call, uint64_t bits, bool just_valid) {
  Choice choice(bits);
  std::vector<TensorSpec*> present;
  for (TensorSpec& t : call.tensors) {
    if (!t.null) present.push_back(&t);
  }
  if (present.empty()) return;
  if (just_valid) {
    for (TensorSpec* t : present) {
      static constexpr std::array<aclFormat, 3> kFourD = {ACL_FORMAT_ND, ACL_FORMAT_NCHW,
                                                          ACL_FORMAT_NHWC};
      t->format = t->dims.size() == 4 ? choice.of(kFourD) : ACL_FORMAT_ND;
    }
    return;
  }
  TensorSpec& target = *present[choice.below(present.size())];
  std::vector<aclFormat> wrong = {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_UNDEFINED,
                                  static_cast<aclFormat>(29)};
  if (target.dims.size() != 4) {
    wrong.push_back(ACL_FORMAT_NCHW);
    wrong.push_back(ACL_FORMAT_NHWC);
  }
  target.format = choice.of(wrong);
}

void resize_dim(TensorSpec& t, size_t dim, int64_t size) {
  if (dim >= t.dims.size() || t.dims[dim] == size) return;
  t.dims[dim] = size;
  reset_after_reshape(t);
}

void resize_dims(Call& call, std::span<const char* const> names, size_t dim, int64_t size) {
  for (TensorSpec* t : present_tensors(call, names)) resize_dim(*t, dim, size);
}

void add_unit_dim(TensorSpec& t) {
  t.dims.insert(t.dims.begin(), 1);
  reset_after_reshape(t);
}

void null_required_argument(Call& call, uint64_t choice) {
  std::vector<size_t> required;
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    const RoleSpec* role = call.entry ? call.entry->role(call.tensors[i].name) : nullptr;
    if (!role || !role->optional) required.push_back(i);
  }
  const uint64_t which = choice % (required.size() + 2);
  if (which < required.size()) {
    call.tensors[required[which]].null = true;
  } else if (which == required.size()) {
    call.null_workspace_size = true;
  } else {
    call.null_executor = true;
  }
}

std::vector<TensorSpec*> present_tensors(Call& call, std::span<const char* const> names) {
  std::vector<TensorSpec*> present;
  for (const char* name : names) {
    if (call.index_of(name) >= 0 && !call.tensor(name).null) present.push_back(&call.tensor(name));
  }
  return present;
}

TensorSpec& pick_tensor(Call& call, std::span<const char* const> names, uint64_t choice) {
  const std::vector<TensorSpec*> present = present_tensors(call, names);
  if (present.empty()) throw std::logic_error("pick_tensor: none of the named tensors is present");
  return *present[choice % present.size()];
}

void break_outputs_overlap(Call& call, uint64_t choice, bool just_valid) {
  std::vector<std::pair<TensorSpec*, size_t>> candidates;
  for (TensorSpec& t : call.tensors) {
    if (!t.output || t.null) continue;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      if (just_valid ? t.dims[d] == 1 : t.dims[d] > 1) candidates.emplace_back(&t, d);
    }
  }
  if (candidates.empty()) return;
  const auto [t, d] = candidates[choice % candidates.size()];
  t->layout.broadcast |= 1u << d;
}

aclnnStatus clause_status(std::span<const ClauseInfo> clauses, std::string_view clause_id) {
  for (const ClauseInfo& c : clauses) {
    if (c.id == clause_id) return c.status;
  }
  return ACLNN_ERR_INNER;
}

ProfileSet clause_profiles(std::span<const ClauseInfo> clauses, std::string_view clause_id) {
  ProfileSet active = 0;
  for (const ClauseInfo& c : clauses) {
    if (c.id == clause_id) active |= c.profiles;
  }
  return active;
}

}  // namespace gradconf::props
