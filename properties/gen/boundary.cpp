#include "gen/boundary.h"

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
    spec.layout = LayoutSpec{};
    if (!spec.output) spec.values.clear();
  }
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

aclnnStatus clause_status(std::span<const ClauseInfo> clauses, std::string_view clause_id) {
  for (const ClauseInfo& c : clauses) {
    if (c.id == clause_id) return c.status;
  }
  return ACLNN_ERR_INNER;
}

}  // namespace gradconf::props
