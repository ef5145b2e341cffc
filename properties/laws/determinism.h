// Law 7: bitwise identical outputs across repeated runs and thread counts 1, 2, 3 and 8.
#ifndef GRADCONF_PROPERTIES_LAWS_DETERMINISM_H_
#define GRADCONF_PROPERTIES_LAWS_DETERMINISM_H_

#include "laws/law.h"

namespace gradconf::props {

inline constexpr int kDeterminismThreadCounts[] = {1, 2, 3, 8, 2};

template <typename Traits>
LawResult determinism(const typename Traits::Problem& p, const Backend& backend) {
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  std::optional<Outcome> first;
  int first_threads = 0;
  for (int threads : kDeterminismThreadCounts) {
    RunOptions options;
    options.threads = threads;
    Outcome run = Traits::run(call, options, backend);
    if (!run.ok()) return law_failure("determinism", repro, describe_status(run));
    if (!first) {
      first = std::move(run);
      first_threads = threads;
      continue;
    }
    for (int out : Traits::wanted_outputs(p, call)) {
      const auto o = static_cast<size_t>(out);
      const int64_t at = first_bit_difference(first->values[o], run.values[o]);
      if (at >= 0) {
        return law_failure("determinism", repro,
                           call.tensors[o].name + " with " + std::to_string(threads) +
                               " threads differs from " + std::to_string(first_threads) +
                               " threads at flat index " + std::to_string(at));
      }
    }
  }
  return {};
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_DETERMINISM_H_
