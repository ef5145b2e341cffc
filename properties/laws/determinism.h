// Law 7: bitwise identical outputs across repeated runs and thread counts 1, 2, 3 and 8, also
// when phase 1 and phase 2 see different thread counts (a plan sized for one count must run
// with another).
#ifndef GRADCONF_PROPERTIES_LAWS_DETERMINISM_H_
#define GRADCONF_PROPERTIES_LAWS_DETERMINISM_H_

#include "laws/law.h"

namespace gradconf::props {

/// Each run: {phase-1 threads (0: the same), phase-2 threads}.
inline constexpr int kDeterminismThreadCounts[][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 8},
                                                      {0, 2}, {8, 1}, {1, 3}};

template <typename Traits>
LawResult determinism(const typename Traits::Problem& p, const Backend& backend) {
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  LawResult result;
  std::optional<Outcome> first;
  int first_threads = 0;
  for (const auto& [phase1_threads, threads] : kDeterminismThreadCounts) {
    RunOptions options;
    options.threads = threads;
    options.phase1_threads = phase1_threads;
    Outcome run = Traits::run(call, options, backend);
    if (!run.ok()) return law_failure("determinism", repro, describe_status(run));
    if (!first) {
      first = std::move(run);
      first_threads = threads;
      continue;
    }
    for (int out : Traits::wanted_outputs(p, call)) {
      const auto o = static_cast<size_t>(out);
      result.measured.add_exact(static_cast<int64_t>(run.values[o].size()));
      const int64_t at = first_bit_difference(first->values[o], run.values[o]);
      if (at >= 0) {
        return law_failure("determinism", repro,
                           call.tensors[o].name + " with " + std::to_string(threads) +
                               " threads (phase 1: " + std::to_string(phase1_threads) +
                               ") differs from " + std::to_string(first_threads) +
                               " threads at flat index " + std::to_string(at));
      }
    }
  }
  // A problem with no output elements still checks that every run succeeds.
  result.measured.add_checks(static_cast<int64_t>(std::size(kDeterminismThreadCounts)));
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_DETERMINISM_H_
