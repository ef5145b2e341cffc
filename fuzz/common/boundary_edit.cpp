#include "common/api_target.h"

namespace gradconf::fuzz {

BoundaryEdit decode_boundary_edit(FuzzedDataProvider& fdp,
                                  std::span<const props::ClauseBreaker> breakers,
                                  Direction direction) {
  std::vector<const props::ClauseBreaker*> usable;
  for (const auto& breaker : breakers) {
    if (breaker.applies_to(direction)) usable.push_back(&breaker);
  }
  BoundaryEdit edit;
  edit.breaker = pick(fdp, std::span<const props::ClauseBreaker* const>(usable));
  edit.just_valid = fdp.ConsumeBool();
  edit.choice = fdp.ConsumeIntegral<uint64_t>();
  return edit;
}

}  // namespace gradconf::fuzz
