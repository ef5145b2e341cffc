#include "gen/boundary.h"

namespace gradconf::props {

const ClauseBreaker* find_breaker(std::span<const ClauseBreaker> breakers,
                                  std::string_view clause_id) {
  for (const ClauseBreaker& b : breakers) {
    if (b.clause_id == clause_id) return &b;
  }
  return nullptr;
}

aclnnStatus clause_status(std::span<const ClauseInfo> clauses, std::string_view clause_id) {
  for (const ClauseInfo& c : clauses) {
    if (c.id == clause_id) return c.status;
  }
  return ACLNN_ERR_INNER;
}

}  // namespace gradconf::props
