// GridSampler2D's registry entry: its two entry specs, clause table, planted faults and every law
// instantiated over GridSampler2DTraits (checked against the OpTraits concept).
#include <sstream>

#include "families/grid_sampler2d/gen.h"
#include "families/grid_sampler2d/traits.h"
#include "grid_sampler2d/clauses.h"
#include "grid_sampler2d/faults.h"
#include "laws/laws.h"
#include "op/registry.h"

namespace gradconf::props {
namespace {

using Traits = GridSampler2DTraits;
static_assert(OpTraits<Traits>);
using Problem = Traits::Problem;

rc::Gen<Problem> problems(Direction entry, bool allow_null_mask = false) {
  gs::GenOptions options;
  options.entry = entry;
  options.allow_null_mask = allow_null_mask;
  return gs::gen_problem(options);
}

// A law over problems: the extra inputs some laws take (a direction seed, scalars, a split) are
// drawn from the problem's own seed, so one problem is one case and its repro line replays it.
using ProblemLaw = LawResult (*)(const Problem&, const Backend&);

LawBinding bind(std::string_view law, Direction entry, ProblemLaw fn, std::string variant = "",
                bool allow_null_mask = false) {
  const EntrySpec& spec = gs::entry_spec(entry);
  std::string name = std::string(spec.name) + "." + std::string(law);
  if (!variant.empty()) name += "." + variant;
  return LawBinding{law, spec.name, name, [entry, fn, allow_null_mask](const Backend& backend) {
                      return rc::gen::map(
                          problems(entry, allow_null_mask),
                          [fn, &backend](const Problem& p) { return fn(p, backend); });
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
  return batch_split<Traits>(p, b, p.n > 0 ? static_cast<int64_t>(p.seed % (p.n + 1)) : 0);
}

std::vector<LawBinding> laws() {
  std::vector<LawBinding> all;
  for (Direction entry : {Direction::kForward, Direction::kBackward}) {
    all.push_back(bind("matches_reference", entry, matches_reference<Traits>));
    all.push_back(bind("stride_invariance", entry, stride_invariance<Traits>));
    all.push_back(bind("dtype_agreement", entry, dtype_agreement<Traits>));
    all.push_back(bind("determinism", entry, determinism<Traits>));
    all.push_back(bind("batch_split", entry, batch_split_law));
    all.push_back(bind("workspace_contract", entry, workspace_contract<Traits>));
  }
  all.push_back(bind("matches_reference", Direction::kBackward, matches_reference<Traits>,
                     "null_masks", true));
  all.push_back(bind("adjoint_identity", Direction::kBackward, adjoint_identity<Traits>));
  all.push_back(bind("finite_differences", Direction::kBackward, finite_differences_law));
  all.push_back(bind("linear_in_incoming_gradient", Direction::kBackward, linearity_law));
  all.push_back(LawBinding{
      "error_contract", "GridSampler2DBackward", "GridSampler2D+Backward.error_contract",
      [](const Backend& backend) {
        return rc::gen::map(gs::gen_boundary_case(), [&backend](const gs::BoundaryCase& bc) {
          const ClauseExpectation expected{bc.clause_id, bc.expected_status, bc.just_valid};
          std::ostringstream repro;
          repro << bc;
          return error_contract<Traits>(bc.call, expected, repro.str(), backend);
        });
      }});
  all.push_back(LawBinding{"repro_round_trip", "GridSampler2DBackward",
                           "GridSampler2D+Backward.repro_round_trip", [](const Backend&) {
                             gs::GenOptions options;
                             options.allow_null_mask = true;
                             return rc::gen::map(gs::gen_problem(options), [](const Problem& p) {
                               return repro_round_trip(p);
                             });
                           }});
  return all;
}

std::vector<std::string_view> faults() {
  std::vector<std::string_view> names;
  for (grid_sampler2d::Fault f : grid_sampler2d::kAllFaults) names.push_back(fault_name(f));
  return names;
}

// The law x fault table: the law each planted fault is meant to be seen by (a law may see more).
std::vector<FaultRow> fault_rows() {
  return {
      {"wrong_bilinear_weight", "GridSampler2D.matches_reference", 50},
      {"wrong_bilinear_weight", "GridSampler2DBackward.finite_differences", 50},
      {"dropped_border_clamp", "GridSampler2D.matches_reference", 100},
      {"swapped_grid_grad_xy", "GridSampler2DBackward.matches_reference", 50},
      {"swapped_grid_grad_xy", "GridSampler2DBackward.finite_differences", 50},
      {"off_by_one_tap", "GridSampler2D.matches_reference", 50},
      {"nearest_rounds_half_up", "GridSampler2D.matches_reference", 200},
      {"backward_swaps_tap_weights", "GridSampler2DBackward.matches_reference", 50},
      {"backward_swaps_tap_weights", "GridSampler2DBackward.adjoint_identity", 100},
      {"grid_of_first_batch_only", "GridSampler2DBackward.matches_reference", 100},
      {"grid_of_first_batch_only", "GridSampler2DBackward.batch_split", 200},
      {"double_computed_in_float", "GridSampler2D.matches_reference", 200},
      {"double_computed_in_float", "GridSampler2D.dtype_agreement", 100},
      {"ignores_output_mask", "GridSampler2DBackward.matches_reference", 200},
      {"abs_incoming_gradient", "GridSampler2DBackward.finite_differences", 50},
      {"abs_incoming_gradient", "GridSampler2DBackward.linear_in_incoming_gradient", 100},
      {"ignored_grid_grad_stride", "GridSampler2DBackward.stride_invariance", 300},
      {"thread_dependent_sum", "GridSampler2DBackward.determinism", 300},
      {"workspace_assumed_zero", "GridSampler2DBackward.workspace_contract", 100},
      {"phase1_writes_outputs", "GridSampler2DBackward.workspace_contract", 100},
      {"missing_clause_shape04", "GridSampler2D+Backward.error_contract", 2000},
  };
}

}  // namespace

const OpFamily& grid_sampler2d_family() {
  static const OpFamily family{"grid_sampler2d",
                               {&gs::forward_entry(), &gs::backward_entry()},
                               clause_infos(grid_sampler2d::clause_table()),
                               faults(),
                               laws(),
                               fault_rows(),
                               {},  // the common tolerance rows cover GridSampler's outputs
                               check_repro_line<Problem>};
  return family;
}

}  // namespace gradconf::props
