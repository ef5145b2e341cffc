// Clause breakers and boundary cases for any op (spec ARCHITECTURE.md law 10). A breaker edits a
// valid role-keyed Call so that exactly its clause is the first to fire (just-invalid), or makes
// the same kind of edit on the allowed side of the boundary (just-valid). Choices come in as a
// plain uint64_t, so RapidCheck generators and libFuzzer byte decoders drive the same code.
//
// An op provides its breakers (one per clause, in table order) and a generator of small valid
// base problems; gen_boundary_case and decode_boundary_edit do the rest for every op alike.
#ifndef GRADCONF_PROPERTIES_GEN_BOUNDARY_H_
#define GRADCONF_PROPERTIES_GEN_BOUNDARY_H_

#include <rapidcheck.h>

#include <array>
#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::props {

/// Draws small decisions from one uint64_t, least significant first, so that a choice of 0 picks
/// the first (simplest) option of every decision and small choices differ in early decisions.
class Choice {
 public:
  explicit Choice(uint64_t bits) : bits_(bits) {}

  /// A value in [0, count), count > 0.
  uint64_t below(uint64_t count) {
    const uint64_t value = bits_ % count;
    bits_ /= count;
    return value;
  }
  bool coin() { return below(2) == 1; }
  template <typename T, size_t kCount>
  const T& of(const std::array<T, kCount>& options) {
    return options[below(kCount)];
  }
  template <typename T>
  const T& of(const std::vector<T>& options) {
    return options[below(options.size())];
  }

 private:
  uint64_t bits_;
};

/// The directions a clause can fire for (some clauses only exist in the backward).
enum class Directions : uint8_t { kForward = 1, kBackward = 2, kBoth = 3 };

/// Edits a call made from a valid problem at one clause's boundary. Every choice is valid; 0
/// picks the simplest way.
using BreakFn = void (*)(Call& call, uint64_t choice, bool just_valid);

struct ClauseBreaker {
  std::string_view clause_id;  ///< e.g. "GS-SHAPE-04"
  Directions directions = Directions::kBoth;
  BreakFn apply = nullptr;

  bool applies_to(Direction direction) const {
    const auto bit = static_cast<uint8_t>(direction == Direction::kForward ? Directions::kForward
                                                                           : Directions::kBackward);
    return (static_cast<uint8_t>(directions) & bit) != 0;
  }
};

/// A breaker written as data: the attribute set to one of `wrong` (just-invalid) or of `valid`
/// (just-valid), `choice` picking which (break_attr_value).
struct AttrChoices {
  std::string_view attr;
  std::vector<AttrValue> wrong, valid;
};

template <const AttrChoices& kChoices>
void break_attr_value(Call& call, uint64_t choice, bool just_valid) {
  const std::vector<AttrValue>& from = just_valid ? kChoices.valid : kChoices.wrong;
  call.attr(kChoices.attr) = from[choice % from.size()];
}

/// The breaker of `clause_id` in `breakers`, or nullptr.
const ClauseBreaker* find_breaker(std::span<const ClauseBreaker> breakers,
                                  std::string_view clause_id);

/// One call at one clause's boundary, made by a breaker from a valid base problem.
template <typename Problem>
struct BoundaryCase {
  Problem problem;  ///< the valid base problem
  Call call;        ///< the problem's call edited by the clause's breaker
  std::string clause_id;
  /// Just-invalid: the clause's status. Just-valid: ACLNN_SUCCESS.
  aclnnStatus expected_status = ACLNN_SUCCESS;
  bool just_valid = false;
  uint64_t choice = 0;  ///< (problem, clause_id, just_valid, choice) replays the case

  /// "<problem repro> --break=<clause> --side=<just-valid|just-invalid> --choice=<n>" and, on a
  /// second line, summarize(call): what a counterexample prints.
  friend std::ostream& operator<<(std::ostream& os, const BoundaryCase& c) {
    return os << c.problem.to_repro() << " --break=" << c.clause_id
              << " --side=" << (c.just_valid ? "just-valid" : "just-invalid")
              << " --choice=" << c.choice << "\n  call: " << summarize(c.call);
  }
};

/// Sets a size to `value` everywhere it lives (roles absent from the call are skipped), with
/// default layouts and, for inputs, values dropped (the harness then fills zeros).
void resize_sites(Call& call, const SizeSites& sites, int64_t value);

/// After a shape edit of `t`: the default layout and, for an input, its values dropped (the
/// harness then fills zeros), so the tensor's storage follows its new dims.
void reset_after_reshape(TensorSpec& t);
/// Sets dim `dim` of `t` to `size` (nothing when it already is, or the dim does not exist), with
/// the default layout and, for an input, its values dropped (the harness then fills zeros).
void resize_dim(TensorSpec& t, size_t dim, int64_t size);
/// The same dim of every tensor named in `names` that the call has.
void resize_dims(Call& call, std::span<const char* const> names, size_t dim, int64_t size);
/// One unit dim more (rank breakers), with the default layout and an input's values dropped.
void add_unit_dim(TensorSpec& t);

/// The just-invalid side of every <OP>-NULL-01 (161001): a required tensor (a role that is not
/// optional), the workspaceSize out-pointer or the executor out-pointer passed as null; `choice`
/// picks which.
void null_required_argument(Call& call, uint64_t choice);

/// The generic <OP>-FORMAT-01 breaker (spec README §3), for any op. Just-invalid: one present
/// tensor in a format that is not ND: a device format (NC1HWC0, FRACTAL_Z), UNDEFINED, a value
/// outside the enum, or NCHW/NHWC on a tensor that is not 4-D. Just-valid: every present tensor
/// in ND, or in NCHW/NHWC where it is 4-D.
void break_format_nd(Call& call, uint64_t choice, bool just_valid);

/// The tensors named in `names` that the call has and that are not null, in `names` order.
std::vector<TensorSpec*> present_tensors(Call& call, std::span<const char* const> names);
/// One of them, by `choice` (the call must have at least one).
TensorSpec& pick_tensor(Call& call, std::span<const char* const> names, uint64_t choice);

/// The generic <OP>-OUT-01 breaker (spec README §3): a zero stride (broadcast bit) on a dim of
/// size >= 2 of one present output, whose elements then overlap. Just-valid: a zero stride on a
/// dim of size 1 (or the call as it is when no output has one).
void break_outputs_overlap(Call& call, uint64_t choice, bool just_valid);

/// The status `clause_id` has in `clauses` (ACLNN_ERR_INNER for an unknown id).
aclnnStatus clause_status(std::span<const ClauseInfo> clauses, std::string_view clause_id);

/// The profiles in which some row of the clause applies (cann-latest, for one, has no
/// MSDA-LIMIT-04): a boundary case needs a base problem of one of them.
ProfileSet clause_profiles(std::span<const ClauseInfo> clauses, std::string_view clause_id);

/// Boundary cases: a clause drawn uniformly among the breakers that apply to `directions`, then a
/// direction it applies to, a small valid base problem of that direction, either side of the
/// boundary, and a choice among the breaker's ways.
template <typename Problem>
rc::Gen<BoundaryCase<Problem>> gen_boundary_case(
    std::span<const ClauseBreaker> breakers, std::span<const ClauseInfo> clauses,
    std::function<rc::Gen<Problem>(Direction)> base_problems,
    std::function<Call(const Problem&)> make_call, Directions directions = Directions::kBoth) {
  std::vector<const ClauseBreaker*> usable;
  auto wanted = [directions](Direction d) {
    return ClauseBreaker{{}, directions, nullptr}.applies_to(d);
  };
  for (const ClauseBreaker& b : breakers) {
    if ((b.applies_to(Direction::kForward) && wanted(Direction::kForward)) ||
        (b.applies_to(Direction::kBackward) && wanted(Direction::kBackward))) {
      usable.push_back(&b);
    }
  }
  const std::vector<ClauseInfo> table(clauses.begin(), clauses.end());
  return rc::gen::mapcat(rc::gen::elementOf(usable), [=](const ClauseBreaker* breaker) {
    std::vector<Direction> options;
    for (Direction d : {Direction::kBackward, Direction::kForward}) {
      if (breaker->applies_to(d) && wanted(d)) options.push_back(d);
    }
    // The base problem's profile must apply the clause.
    const ProfileSet active = clause_profiles(table, breaker->clause_id);
    return rc::gen::mapcat(rc::gen::elementOf(options), [=](Direction d) {
      const auto base = rc::gen::suchThat(
          base_problems(d), [active](const Problem& p) { return contains(active, p.profile); });
      return rc::gen::map(
          rc::gen::tuple(base, rc::gen::arbitrary<uint64_t>(), rc::gen::arbitrary<bool>()),
          [=](const std::tuple<Problem, uint64_t, bool>& drawn) {
            BoundaryCase<Problem> c;
            c.problem = std::get<0>(drawn);
            c.choice = std::get<1>(drawn);
            c.just_valid = std::get<2>(drawn);
            c.clause_id = std::string(breaker->clause_id);
            c.call = make_call(c.problem);
            breaker->apply(c.call, c.choice, c.just_valid);
            c.expected_status =
                c.just_valid ? ACLNN_SUCCESS : clause_status(table, breaker->clause_id);
            return c;
          });
    });
  });
}

/// RC_TAGs the clause id, the side and the direction of a boundary case.
template <typename Problem>
void classify_boundary(const BoundaryCase<Problem>& c) {
  RC_TAG(c.clause_id);
  RC_TAG(c.just_valid ? "just-valid" : "just-invalid");
  RC_TAG(c.call.entry ? std::string(direction_name(c.call.entry->direction)) : std::string("?"));
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_GEN_BOUNDARY_H_
