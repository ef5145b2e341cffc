// MultiScaleDeformableAttention's registry entry: its two entry specs, clause table, planted
// faults and every law instantiated over MsdaTraits (checked against the OpTraits concept).
#include <sstream>

#include "families/multi_scale_deformable_attention/gen.h"
#include "families/multi_scale_deformable_attention/traits.h"
#include "laws/laws.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "multi_scale_deformable_attention/faults.h"
#include "op/registry.h"

namespace gradconf::props {
namespace {

using Traits = MsdaTraits;
static_assert(OpTraits<Traits>);
using Problem = Traits::Problem;
using ProblemLaw = LawResult (*)(const Problem&, const Backend&);

rc::Gen<Problem> problems(Direction direction) {
  msda::GenOptions options;
  options.entry = direction;
  return msda::gen_problem(options);
}

LawBinding bind(std::string_view law, Direction direction, ProblemLaw fn) {
  const EntrySpec& spec = msda::entry_spec(direction);
  return LawBinding{law, spec.name, std::string(spec.name) + "." + std::string(law),
                    [direction, fn](const Backend& backend) {
                      return rc::gen::map(problems(direction), [fn, &backend](const Problem& p) {
                        return fn(p, backend);
                      });
                    }};
}

LawResult finite_differences_law(const Problem& p, const Backend& b) {
  return finite_differences<Traits>(p, b, p.seed * 0x9E3779B97F4A7C15ull + 7);
}

LawResult linearity_law(const Problem& p, const Backend& b) {
  static constexpr double kA[] = {-2.0, -0.5, 0.25, 1.0, 3.0};
  static constexpr double kB[] = {-1.0, 0.5, 2.0};
  return linear_in_incoming_gradient<Traits>(p, b, kA[p.seed % 5], kB[(p.seed / 5) % 3]);
}

LawResult batch_split_law(const Problem& p, const Backend& b) {
  return batch_split<Traits>(p, b, p.batch > 0 ? static_cast<int64_t>(p.seed % (p.batch + 1)) : 0);
}

std::vector<LawBinding> laws() {
  std::vector<LawBinding> all;
  for (Direction d : {Direction::kForward, Direction::kBackward}) {
    all.push_back(bind("matches_reference", d, matches_reference<Traits>));
    all.push_back(bind("stride_invariance", d, stride_invariance<Traits>));
    all.push_back(bind("dtype_agreement", d, dtype_agreement<Traits>));
    all.push_back(bind("determinism", d, determinism<Traits>));
    all.push_back(bind("batch_split", d, batch_split_law));
    all.push_back(bind("workspace_contract", d, workspace_contract<Traits>));
  }
  all.push_back(bind("adjoint_identity", Direction::kBackward, adjoint_identity<Traits>));
  all.push_back(bind("finite_differences", Direction::kBackward, finite_differences_law));
  all.push_back(bind("linear_in_incoming_gradient", Direction::kBackward, linearity_law));
  all.push_back(LawBinding{
      "error_contract", "MultiScaleDeformableAttentionGrad",
      "MultiScaleDeformableAttention+Grad.error_contract", [](const Backend& backend) {
        std::function<rc::Gen<Problem>(Direction)> base = [](Direction d) {
          msda::GenOptions o;
          o.entry = d;
          o.allow_empty = false;
          o.strided = false;
          return msda::gen_problem(o);
        };
        return rc::gen::map(
            gen_boundary_case<Problem>(msda::clause_breakers(),
                                       clause_infos(gradconf::msda::clause_table()), base,
                                       msda::make_call),
            [&backend](const BoundaryCase<Problem>& bc) {
              const ClauseExpectation expected{bc.clause_id, bc.expected_status, bc.just_valid};
              std::ostringstream repro;
              repro << bc;
              return error_contract<Traits>(bc.call, expected, repro.str(), backend);
            });
      }});
  all.push_back(
      LawBinding{"repro_round_trip", "MultiScaleDeformableAttentionGrad",
                 "MultiScaleDeformableAttention+Grad.repro_round_trip", [](const Backend&) {
                   return rc::gen::map(msda::gen_problem(),
                                       [](const Problem& p) { return repro_round_trip(p); });
                 }});
  return all;
}

std::vector<std::string_view> faults() {
  std::vector<std::string_view> names;
  for (gradconf::msda::Fault f : gradconf::msda::kAllFaults) names.push_back(fault_name(f));
  return names;
}

std::vector<FaultRow> fault_rows() {
  return {
      {"swapped_xy", "MultiScaleDeformableAttention.matches_reference", 100},
      {"missing_width_factor", "MultiScaleDeformableAttentionGrad.finite_differences", 100},
      {"guard_inclusive", "MultiScaleDeformableAttentionGrad.matches_reference", 400},
      {"level_start_ignored", "MultiScaleDeformableAttention.matches_reference", 200},
      {"swapped_tap_weights", "MultiScaleDeformableAttention.matches_reference", 100},
      {"dropped_channel_block", "MultiScaleDeformableAttentionGrad.adjoint_identity", 100},
      {"thread_dependent_scatter", "MultiScaleDeformableAttentionGrad.determinism", 300},
  };
}

}  // namespace

const OpFamily& multi_scale_deformable_attention_family() {
  static const OpFamily family{"multi_scale_deformable_attention",
                               {&msda::forward_entry(), &msda::backward_entry()},
                               clause_infos(gradconf::msda::clause_table()),
                               faults(),
                               laws(),
                               fault_rows(),
                               {},
                               check_repro_line<Problem>};
  return family;
}

}  // namespace gradconf::props
