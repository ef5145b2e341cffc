// fuzz_grid_sampler2d_api / fuzz_grid_sampler2d_backward_api (GRADCONF_FUZZ_BACKWARD): bytes ->
// Problem -> harness -> the laws' oracles. The first byte picks what is checked:
//   reference  the outputs match the double reference under the tolerance table, unwanted
//              outputs and everything outside the views keep their canaries;
//   boundary   one clause broken at its boundary (or the edit kept valid): the status is the one
//              the clause table predicts, the message names the clause, outputs are untouched;
//   workspace  phase 1 is pure, phase 2 works on a garbage workspace, a short one is refused.
// Any violation prints the law's detail (with the repro line) and traps.
#include <algorithm>
#include <sstream>

#include "common/fuzz_support.h"
#include "gen/grid_sampler2d_gen.h"
#include "grid_sampler2d/decode.h"
#include "laws/grid_sampler2d_traits.h"
#include "laws/laws.h"

namespace {

using gradconf::fuzz::require;
using gradconf::props::GridSampler2DTraits;
using Traits = GridSampler2DTraits;

#ifdef GRADCONF_FUZZ_BACKWARD
constexpr gradconf::grid_sampler2d::Entry kEntry = gradconf::grid_sampler2d::Entry::kBackward;
#else
constexpr gradconf::grid_sampler2d::Entry kEntry = gradconf::grid_sampler2d::Entry::kForward;
#endif

enum class Check { kReference, kBoundary, kWorkspace };

void check_boundary(const Traits::Problem& p, const gradconf::fuzz::gs::BoundaryEdit& edit,
                    const gradconf::props::Backend& backend) {
  namespace pgs = gradconf::props::gs;
  gradconf::props::Call call = Traits::make_call(p);
  edit.breaker->apply(call, edit.choice, edit.just_valid);
  const gradconf::props::ExpectedVerdict verdict = gradconf::props::predict(call);
  std::ostringstream repro;
  repro << p.to_repro() << " --break=" << edit.breaker->clause_id
        << " --side=" << (edit.just_valid ? "just-valid" : "just-invalid") << " --choice=" << edit.choice
        << "\n  call: " << gradconf::props::summarize(call);
  // The harness cannot hand the operator a view aclCreateTensor refused.
  if (!verdict.views_created) return;
  if (!edit.just_valid && verdict.clause_id != edit.breaker->clause_id) {
    gradconf::fuzz::finding("breaker " + std::string(edit.breaker->clause_id) +
                            " made a call whose first violated clause is '" + verdict.clause_id +
                            "': " + repro.str());
  }
  gradconf::fuzz::tag("clause=" + std::string(edit.breaker->clause_id) +
                      (edit.just_valid ? " just-valid" : " just-invalid"));
  const gradconf::props::ClauseExpectation expected{verdict.clause_id, verdict.status, verdict.proceeds()};
  require(gradconf::props::error_contract<Traits>(call, expected, repro.str(), backend));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gradconf::props::Backend& backend = Traits::default_backend();
  FuzzedDataProvider fdp(data, size);
  const auto check = static_cast<Check>(fdp.ConsumeIntegralInRange<int>(0, 2));
  const Traits::Problem p = gradconf::fuzz::gs::decode_problem(fdp, kEntry);
  static constexpr const char* kCheckNames[] = {"check=reference", "check=boundary", "check=workspace"};
  gradconf::fuzz::tag(kCheckNames[static_cast<int>(check)]);
  for (const std::string& t : gradconf::props::gs::problem_tags(p)) gradconf::fuzz::tag(t);
  switch (check) {
    case Check::kReference:
      require(gradconf::props::matches_reference<Traits>(p, backend));
      break;
    case Check::kBoundary: {
      // Breakers start from a non-empty problem (an edit of an empty dim can fire an earlier
      // clause than its own).
      Traits::Problem base = p;
      for (int64_t* dim : {&base.n, &base.c, &base.out_h, &base.out_w}) *dim = std::max<int64_t>(*dim, 1);
      check_boundary(base, gradconf::fuzz::gs::decode_boundary_edit(fdp, kEntry), backend);
      break;
    }
    case Check::kWorkspace:
      require(gradconf::props::workspace_contract<Traits>(p, backend));
      break;
  }
  return 0;
}
