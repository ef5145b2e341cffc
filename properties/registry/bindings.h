// Every law bound to an op's entries for the registry, written once for every op (an op's
// family.cpp names its generators and adds what is its own). A law over problems takes its extra
// inputs (a direction seed, scalars, a split) from the problem's own seed, so one problem is one
// case and its repro line replays it.
#ifndef GRADCONF_PROPERTIES_REGISTRY_BINDINGS_H_
#define GRADCONF_PROPERTIES_REGISTRY_BINDINGS_H_

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/repro.h"
#include "gen/boundary.h"
#include "laws/host_process.h"
#include "laws/laws.h"
#include "registry/registry.h"

namespace gradconf::props {

template <OpTraits Traits>
struct LawBinder {
  using Problem = typename Traits::Problem;
  using ProblemLaw = LawResult (*)(const Problem&, const Backend&);

  /// Problems of a direction, and the entry spec of a direction.
  std::function<rc::Gen<Problem>(Direction)> problems;
  std::function<const EntrySpec&(Direction)> entry;

  /// "<entry>.<law>[.<variant>]" over problems drawn by `gen` (default: problems(direction)).
  LawBinding bind(std::string_view law, Direction direction, ProblemLaw fn,
                  std::string variant = "", std::function<rc::Gen<Problem>()> gen = {}) const {
    const EntrySpec& spec = entry(direction);
    std::string name = std::string(spec.name) + "." + std::string(law);
    if (!variant.empty()) name += "." + variant;
    auto draw = gen ? gen : [problems = problems, direction] { return problems(direction); };
    return LawBinding{law,
                      spec.name,
                      name,
                      [draw, fn](const Backend& backend) {
                        return rc::gen::map(draw(), [fn, &backend](const Problem& p) {
                          return labelled(fn(p, backend), p);
                        });
                      },
                      [draw] { return rc::gen::map(draw(), record_of); },
                      [entry = spec.name](std::string_view line) -> std::optional<CaseRecord> {
                        const auto p = Problem::parse_repro(line);
                        if (!p || Traits::op_name(*p) != entry) return std::nullopt;
                        return record_of(*p);
                      }};
  }

  /// The result with its case's dtype, repro line and coverage tags (for reports).
  static LawResult labelled(LawResult result, const Problem& p) {
    result.dtype = std::string(dtype_repro_name(Traits::dtype(p)));
    result.repro = Traits::repro(p);
    if constexpr (requires { Traits::tags(p); }) result.tags = Traits::tags(p);
    return result;
  }

  /// A valid problem as data: its call and the reference of the outputs it wants.
  static CaseRecord record_of(const Problem& p) {
    CaseRecord record;
    record.call = Traits::make_call(p);
    record.op = std::string(Traits::op_name(p));
    record.dtype = Traits::dtype(p);
    record.expected = Traits::reference(p, record.call);
    record.repro = Traits::repro(p);
    return record;
  }

  static LawResult finite_differences_law(const Problem& p, const Backend& b) {
    return finite_differences<Traits>(p, b, p.seed * 0x9E3779B97F4A7C15ull + 7);
  }
  static LawResult linearity_law(const Problem& p, const Backend& b) {
    static constexpr double kA[] = {-2.0, -0.5, 0.25, 1.0, 3.0};
    static constexpr double kB[] = {-1.0, 0.5, 2.0};
    return linear_in_incoming_gradient<Traits>(p, b, kA[p.seed % 5], kB[(p.seed / 5) % 3]);
  }
  /// Splits at 1..n-1 (from the seed); drawn over problems of at least two batches.
  static LawResult batch_split_law(const Problem& p, const Backend& b) {
    const int64_t n = Traits::batch_size(p);
    return batch_split<Traits>(p, b, n >= 2 ? 1 + static_cast<int64_t>(p.seed % (n - 1)) : 0);
  }
  /// Problems of `direction` with at least two batches (about half or more of the draws of
  /// every family's generator have them, so filtering retries rarely).
  std::function<rc::Gen<Problem>()> multi_batch(Direction direction) const {
    return [problems = problems, direction] {
      return rc::gen::suchThat(problems(direction),
                               [](const Problem& p) { return Traits::batch_size(p) >= 2; });
    };
  }

  static LawBinding capped(LawBinding binding, int max_cases) {
    binding.max_cases = max_cases;
    return binding;
  }
  static LawBinding differential(LawBinding binding) {
    binding.differential = true;
    return binding;
  }

  /// Cases per run of the host-process laws: each forks and loads a child (host_fork_under_load:
  /// kForksPerCase forks under kHammerThreads threads of calls), so a few cases hold many
  /// process-level trials; between_phases forks once per case.
  static constexpr int kHostCases = 12;
  static constexpr int kForkCases = 4;
  static constexpr int kBetweenPhasesCases = 300;

  /// The laws of a library inside a host process (laws/host_process.h), for both entries; the
  /// between-phases law where the entry has an index input, the empty-problem law where the spec
  /// allows an empty size.
  std::vector<LawBinding> host_laws() const {
    std::vector<LawBinding> all;
    for (Direction d : {Direction::kForward, Direction::kBackward}) {
      all.push_back(capped(bind("host_at_exit", d, host_at_exit<Traits>), kHostCases));
      all.push_back(
          capped(bind("host_fork_under_load", d, host_fork_under_load<Traits>), kForkCases));
      all.push_back(
          capped(bind("host_concurrent_calls", d, host_concurrent_calls<Traits>), kHostCases));
      const EntrySpec& spec = entry(d);
      const bool indexed = std::any_of(spec.roles.begin(), spec.roles.end(),
                                       [](const RoleSpec& r) { return r.index_input(); });
      if (indexed) {
        all.push_back(
            capped(bind("between_phases", d, between_phases<Traits>), kBetweenPhasesCases));
      }
      if (!spec.empty_sizes.empty()) all.push_back(bind("empty_problem", d, empty_problem<Traits>));
    }
    return all;
  }

  /// Laws 1, 5-9 and the differential law for both entries, laws 2-4 for the backward, and the
  /// host-process laws.
  std::vector<LawBinding> problem_laws() const {
    std::vector<LawBinding> all;
    for (Direction d : {Direction::kForward, Direction::kBackward}) {
      all.push_back(bind("matches_reference", d, matches_reference<Traits>));
      all.push_back(bind("stride_invariance", d, stride_invariance<Traits>));
      all.push_back(bind("dtype_agreement", d, dtype_agreement<Traits>));
      all.push_back(bind("determinism", d, determinism<Traits>));
      all.push_back(bind("batch_split", d, batch_split_law, "", multi_batch(d)));
      all.push_back(bind("workspace_contract", d, workspace_contract<Traits>));
      all.push_back(differential(bind("matches_backend", d, matches_backend<Traits>)));
    }
    all.push_back(bind("adjoint_identity", Direction::kBackward, adjoint_identity<Traits>));
    all.push_back(bind("finite_differences", Direction::kBackward, finite_differences_law));
    all.push_back(bind("linear_in_incoming_gradient", Direction::kBackward, linearity_law));
    for (LawBinding& host : host_laws()) all.push_back(std::move(host));
    return all;
  }

  /// Law 10 over boundary cases of both entries, named "<forward>+<suffix>.error_contract".
  LawBinding error_contract_law(std::string name,
                                std::function<rc::Gen<BoundaryCase<Problem>>()> cases) const {
    return LawBinding{
        "error_contract",
        entry(Direction::kBackward).name,
        std::move(name),
        [cases](const Backend& backend) {
          return rc::gen::map(cases(), [&backend](const BoundaryCase<Problem>& bc) {
            const ClauseExpectation expected{bc.clause_id, bc.expected_status, bc.just_valid};
            std::ostringstream repro;
            repro << bc;
            LawResult result = labelled(
                error_contract<Traits>(bc.call, expected, repro.str(), backend), bc.problem);
            result.clause = bc.clause_id;
            result.just_valid = bc.just_valid;
            return result;
          });
        },
        [cases] {
          return rc::gen::map(cases(), [](const BoundaryCase<Problem>& bc) {
            CaseRecord record;
            record.call = bc.call;
            record.op = std::string(Traits::op_name(bc.problem));
            record.dtype = Traits::dtype(bc.problem);
            record.expected_status = bc.expected_status;
            std::ostringstream repro;
            repro << bc;
            record.repro = repro.str();
            record.clause = bc.clause_id;
            record.just_valid = bc.just_valid;
            return record;
          });
        },
        nullptr};
  }

  /// The repro round trip over `problems`.
  LawBinding repro_law(std::string name, std::function<rc::Gen<Problem>()> problems) const {
    return LawBinding{"repro_round_trip",
                      entry(Direction::kBackward).name,
                      std::move(name),
                      [problems](const Backend&) {
                        return rc::gen::map(problems(), [](const Problem& p) {
                          return labelled(repro_round_trip(p), p);
                        });
                      },
                      [problems] { return rc::gen::map(problems(), record_of); },
                      nullptr};
  }
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_REGISTRY_BINDINGS_H_
