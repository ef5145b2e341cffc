// The library lives inside other people's processes (spec README, Changes 2026-11-26). These laws
// run a valid call (and a call that breaks a null clause) the ways a host process does, each in a
// forked child so that an abort, a crash or a hang is a failed law with a reason:
// - host_at_exit: calls from an atexit handler and from a static destructor, after an earlier
//   failing call in main (the thread's thread_local objects are destroyed by then);
// - host_fork_under_load: forked children call while three threads hammer phase 1, destroy and
//   full runs (every process-wide lock must be free in the child);
// - host_concurrent_calls: many threads call at once, each sees its own results and its own
//   last-error message, bit for bit what a lone call gives;
// - between_phases: every index input is rewritten between phase 1 and phase 2 (random and
//   out-of-range values): no crash, no access out of bounds (ASan sees it in sanitizer builds),
//   and the status is success or 161002 with a message naming a clause, outputs untouched then;
// - empty_problem: every size the spec allows to be 0 gives workspace 0 and zero-filled outputs.
#ifndef GRADCONF_PROPERTIES_LAWS_HOST_PROCESS_H_
#define GRADCONF_PROPERTIES_LAWS_HOST_PROCESS_H_

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "gen/boundary.h"
#include "harness/child_process.h"
#include "laws/law.h"
#include "op/op_spec.h"

namespace gradconf::props {

/// Deadlines: far above what a small problem needs on a loaded 2-core machine, far below a
/// test's timeout.
inline constexpr std::chrono::milliseconds kChildDeadline{60000};
inline constexpr std::chrono::milliseconds kForkedCallDeadline{3000};
/// Forks per host_fork_under_load case, and the load: threads, and phase-1 + phase-2 pairs each
/// runs per harness call (the executor registry's lock is taken twice per pair).
inline constexpr int kForksPerCase = 48;
inline constexpr int kHammerThreads = 3;
inline constexpr int kHammerPairs = 16;
/// host_concurrent_calls: application threads and calls per thread.
inline constexpr int kConcurrentThreads = 6;
inline constexpr int kCallsPerThread = 8;
inline constexpr int kNullExecutorBurst = 64;

/// The call with its first required input passed as nullptr: phase 1 must fail with the op's
/// null clause (a message of some length, so a message buffer on the heap gets exercised).
inline Call with_null_input(const Call& call) {
  Call broken = call;
  for (size_t t = 0; t < broken.tensors.size(); ++t) {
    const RoleSpec& role = broken.entry->roles[t];
    if (!role.output && !role.optional) {
      broken.tensors[t].null = true;
      break;
    }
  }
  return broken;
}

/// What a failing call must reproduce wherever it is made: its status and its clause id.
struct ExpectedFailure {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string clause;
};

/// "" when `outcome` failed as `expected` says, else why not.
inline std::string failed_as_expected(const Outcome& outcome, const ExpectedFailure& expected) {
  if (outcome.status != expected.status || clause_of_message(outcome.message) != expected.clause) {
    return "a call with a null input returned " + describe_status(outcome) + ", expected " +
           std::to_string(expected.status) + " naming " + expected.clause;
  }
  return {};
}

/// "" when `run` succeeded with no violation, an empty last-error message and the bits of
/// `first` on every wanted output, else why not.
inline std::string same_success(const Call& call, std::span<const int> wanted, const Outcome& first,
                                const Outcome& run) {
  if (!run.ok()) return "a valid call returned " + describe_status(run);
  if (!run.violations.empty()) return run.violations;
  if (!run.message.empty()) return "a successful call left the message '" + run.message + "'";
  for (int out : wanted) {
    const auto o = static_cast<size_t>(out);
    const int64_t at = first_bit_difference(first.values[o], run.values[o]);
    if (at >= 0) {
      return call.tensors[o].name + " differs from a lone call's at flat index " +
             std::to_string(at);
    }
  }
  return {};
}

/// Elements of the wanted outputs (what a bitwise comparison of two runs compares).
inline int64_t wanted_elements(std::span<const int> wanted, const Outcome& outcome) {
  int64_t n = 0;
  for (int out : wanted) n += static_cast<int64_t>(outcome.values[static_cast<size_t>(out)].size());
  return n;
}

/// A valid call and its failing twin, each run once: the expectations the host laws check.
template <typename Traits>
struct HostBaseline {
  Call call, broken;
  std::vector<int> wanted;
  Outcome first;
  ExpectedFailure failure;
  std::string error;  ///< why no baseline could be made (a failed law)

  HostBaseline(const typename Traits::Problem& p, const Backend& backend)
      : call(Traits::make_call(p)), broken(with_null_input(call)) {
    wanted = Traits::wanted_outputs(p, call);
    first = Traits::run(call, {}, backend);
    const Outcome bad = Traits::run(broken, values_unread(), backend);
    failure = {bad.status, clause_of_message(bad.message)};
    if (!first.ok()) {
      error = "the valid call returned " + describe_status(first);
    } else if (bad.ok() || failure.clause.empty()) {
      error = "a call with a null input returned " + describe_status(bad) +
              ", expected a status and a message naming a clause";
    }
  }

  /// "" when phase 2 with a null executor, the failing call and the valid call behave as in the
  /// baseline, else why not. The null executor goes first: it records a message before the
  /// harness allocates anything, so a destroyed message store is written at once.
  std::string check_again(const Backend& backend) const {
    if (std::string why = null_executor_fails(backend); !why.empty()) return why;
    const std::string bad =
        failed_as_expected(Traits::run(broken, values_unread(), backend), failure);
    if (!bad.empty()) return bad;
    return same_success(call, wanted, first, Traits::run(call, {}, backend));
  }

  /// "" when phase 2 with a null executor returns 161001 naming EXEC-NULL-01, else why not.
  std::string null_executor_fails(const Backend& backend) const {
    const aclnnStatus status = call.entry->phase2(backend)(nullptr, 0, nullptr, nullptr);
    const char* message = backend.runtime().recent_error();
    const std::string text = message ? message : "";
    if (status == ACLNN_ERR_PARAM_NULLPTR && clause_of_message(text) == "EXEC-NULL-01") return {};
    return "phase 2 with a null executor returned " + std::to_string(status) + " '" + text +
           "', expected 161001 naming EXEC-NULL-01";
  }
};

/// The result of a law whose work ran in a child: the child's verdict is one check, and the
/// output elements it compared bit for bit are `compared`.
inline LawResult child_verdict(std::string_view law, const std::string& repro,
                               const ChildResult& child, int64_t compared) {
  if (!child.ok()) return law_failure(law, repro, child.describe());
  LawResult result;
  result.measured.add_checks(1);
  result.measured.add_exact(compared);
  return result;
}

namespace host_detail {
// What the exit-time checks of a host_at_exit child read: set in the child before it exits.
struct AtExitProbe {
  std::function<std::string()> check;
  void run(const char* where) const {
    const std::string why = check();
    if (why.empty()) return;
    child_report(std::string("at exit, from ") + where + ": " + why);
    _exit(3);
  }
};
inline AtExitProbe* at_exit_probe = nullptr;

inline void atexit_handler() { at_exit_probe->run("an atexit handler"); }

// A static object whose destructor calls, constructed in the child after the failing call.
struct StaticDestructorCall {
  ~StaticDestructorCall() { at_exit_probe->run("a static destructor"); }
};
}  // namespace host_detail

template <typename Traits>
LawResult host_at_exit(const typename Traits::Problem& p, const Backend& backend) {
  const std::string repro = Traits::repro(p);
  const HostBaseline<Traits> base(p, backend);
  if (!base.error.empty()) return law_failure("host_at_exit", repro, base.error);
  const ChildResult child = run_in_child(
      [&] {
        // A failing call in main records a message; then calls at exit must still work.
        const std::string bad =
            failed_as_expected(Traits::run(base.broken, values_unread(), backend), base.failure);
        if (!bad.empty()) {
          child_report("in main: " + bad);
          return 3;
        }
        host_detail::at_exit_probe =
            new host_detail::AtExitProbe{[&base, &backend] { return base.check_again(backend); }};
        static host_detail::StaticDestructorCall destructor_call;
        std::atexit(host_detail::atexit_handler);
        return 0;
      },
      ChildExit::kNormal, kChildDeadline);
  return child_verdict("host_at_exit", repro, child, 2 * wanted_elements(base.wanted, base.first));
}

template <typename Traits>
LawResult host_fork_under_load(const typename Traits::Problem& p, const Backend& backend) {
  const std::string repro = Traits::repro(p);
  const HostBaseline<Traits> base(p, backend);
  if (!base.error.empty()) return law_failure("host_fork_under_load", repro, base.error);
  const ChildResult child = run_in_child(
      [&] {
        // The spec profile is process-wide: set once, so no thread's guard restores another.
        const ScopedBackendProfile profile(backend, base.call.profile);
        std::atomic<bool> stop{false};
        std::vector<std::thread> hammers;
        for (int h = 0; h < kHammerThreads; ++h) {
          hammers.emplace_back([&, h] {
            // Load only: what the hammers' calls return is not read.
            RunOptions options = values_unread();
            options.timed_repeats = kHammerPairs;
            RunOptions plan_only = values_unread();
            plan_only.skip_phase2 = true;
            while (!stop.load(std::memory_order_relaxed)) {
              Traits::run(base.call, h == 0 ? plan_only : options, backend);
            }
          });
        }
        int code = 0;
        for (int f = 0; f < kForksPerCase && code == 0; ++f) {
          const ChildResult forked = run_in_child(
              [&] {
                const std::string why = base.check_again(backend);
                if (why.empty()) return 0;
                child_report(why);
                return 3;
              },
              ChildExit::kImmediate, kForkedCallDeadline);
          if (!forked.ok()) {
            child_report("in the child of fork " + std::to_string(f + 1) + " of " +
                         std::to_string(kForksPerCase) + ": " + forked.describe());
            code = 3;
          }
        }
        stop = true;
        for (std::thread& t : hammers) t.join();
        return code;
      },
      ChildExit::kImmediate, kChildDeadline);
  return child_verdict("host_fork_under_load", repro, child,
                       kForksPerCase * wanted_elements(base.wanted, base.first));
}

/// "" when a failing call's message, read after another thread made a successful call, is still
/// the failing thread's own, else why not.
template <typename Traits>
std::string message_survives_other_threads(const HostBaseline<Traits>& base,
                                           const Backend& backend) {
  std::atomic<int> step{0};
  std::string failing_why, valid_why;
  std::thread failing([&] {
    failing_why =
        failed_as_expected(Traits::run(base.broken, values_unread(), backend), base.failure);
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    const char* message = backend.runtime().recent_error();
    const std::string text = message ? message : "";
    if (failing_why.empty() && clause_of_message(text) != base.failure.clause) {
      failing_why = "after another thread's successful call, this thread's message reads '" + text +
                    "', expected its own failure naming " + base.failure.clause;
    }
  });
  std::thread valid([&] {
    while (step.load() != 1) std::this_thread::yield();
    valid_why =
        same_success(base.call, base.wanted, base.first, Traits::run(base.call, {}, backend));
    step = 2;
  });
  failing.join();
  valid.join();
  return !failing_why.empty() ? failing_why : valid_why;
}

template <typename Traits>
LawResult host_concurrent_calls(const typename Traits::Problem& p, const Backend& backend) {
  const std::string repro = Traits::repro(p);
  const HostBaseline<Traits> base(p, backend);
  if (!base.error.empty()) return law_failure("host_concurrent_calls", repro, base.error);
  const ChildResult child = run_in_child(
      [&] {
        // The spec profile is process-wide: set once, so no thread's guard restores another.
        const ScopedBackendProfile profile(backend, base.call.profile);
        // First a handshake, deterministic: a thread's message must survive another thread's
        // successful call made after it (aclGetRecentErrMsg is per thread).
        if (std::string why = message_survives_other_threads(base, backend); !why.empty()) {
          child_report(why);
          return 3;
        }
        std::vector<std::string> why(kConcurrentThreads);
        std::vector<std::thread> threads;
        for (int t = 0; t < kConcurrentThreads; ++t) {
          threads.emplace_back([&, t] {
            // Valid, failing and null-executor calls interleave across threads, so each thread's
            // message must be its own: "" after its success, its clause after its failure. The
            // bursts of null-executor calls (no allocation, microseconds each) record messages
            // while other threads' calls clear theirs.
            for (int c = 0; c < kCallsPerThread && why[t].empty(); ++c) {
              if ((t + c) % 2 == 0) {
                why[t] = same_success(base.call, base.wanted, base.first,
                                      Traits::run(base.call, {}, backend));
              } else {
                why[t] = failed_as_expected(Traits::run(base.broken, values_unread(), backend),
                                            base.failure);
              }
              for (int b = 0; b < kNullExecutorBurst && why[t].empty(); ++b) {
                why[t] = base.null_executor_fails(backend);
              }
            }
          });
        }
        for (std::thread& t : threads) t.join();
        for (int t = 0; t < kConcurrentThreads; ++t) {
          if (!why[t].empty()) {
            child_report("thread " + std::to_string(t) + ": " + why[t]);
            return 3;
          }
        }
        return 0;
      },
      ChildExit::kImmediate, kChildDeadline);
  const int64_t valid_calls = kConcurrentThreads * kCallsPerThread / 2;
  return child_verdict("host_concurrent_calls", repro, child,
                       valid_calls * wanted_elements(base.wanted, base.first));
}

/// Index inputs (DtypeClass::kIndex, not null, not empty) of a call, by TensorSpec index.
inline std::vector<size_t> index_inputs(const Call& call) {
  std::vector<size_t> found;
  for (size_t t = 0; t < call.tensors.size(); ++t) {
    const RoleSpec& role = call.entry->roles[t];
    const TensorSpec& spec = call.tensors[t];
    if (!role.index_input() || spec.null) continue;
    int64_t n = 1;
    for (int64_t d : spec.dims) n *= d;
    if (n > 0) found.push_back(t);
  }
  return found;
}

/// New values for an index input: each element kept, or replaced by a random or out-of-range
/// value (negative, one past a plausible bound, huge), as `seed` draws; `seed % 4 == 0` replaces
/// every element.
inline std::vector<double> scrambled_indices(const TensorSpec& spec, uint64_t seed) {
  std::vector<double> values = spec.values;
  int64_t n = 1;
  for (int64_t d : spec.dims) n *= d;
  values.resize(static_cast<size_t>(n), 0.0);
  const double largest = spec.dtype == ACL_INT32 ? 2147483647.0 : 9.0e15;
  double bound = 1;
  for (double v : values) bound = std::max(bound, std::fabs(v));
  const double choices[] = {-1,  -bound - 1, bound,   bound + 1, 2 * bound + 7,
                            1e8, largest,    -largest};
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  auto next = [&state] {
    state ^= state >> 33;
    state *= 0xFF51AFD7ED558CCDull;
    state ^= state >> 29;
    return state;
  };
  const bool all = seed % 4 == 0;
  for (double& v : values) {
    const uint64_t r = next();
    if (!all && r % 3 != 0) continue;
    const uint64_t pick = (r >> 8) % 10;
    if (pick < 8) {
      v = std::min(choices[pick], largest);
    } else {
      v = static_cast<double>(
          static_cast<int64_t>((r >> 16) % static_cast<uint64_t>(3 * bound + 3)) -
          static_cast<int64_t>(bound));
    }
  }
  return values;
}

template <typename Traits>
LawResult between_phases(const typename Traits::Problem& p, const Backend& backend) {
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  const std::vector<size_t> targets = index_inputs(call);
  if (targets.empty()) return law_failure("between_phases", repro, "the call has no index input");
  RunOptions options;
  for (size_t i = 0; i < targets.size(); ++i) {
    options.rewrite_between_phases.emplace_back(
        targets[i], scrambled_indices(call.tensors[targets[i]], p.seed + 977 * i));
  }
  const ChildResult child = run_in_child(
      [&] {
        const Outcome run = Traits::run(call, options, backend);
        std::string why;
        if (!run.violations.empty()) {
          why = run.violations;
        } else if (run.status != ACLNN_SUCCESS && (run.status != ACLNN_ERR_PARAM_INVALID ||
                                                   clause_of_message(run.message).empty())) {
          why = "expected success or 161002 naming a clause, got " + describe_status(run);
        } else if (!run.ok()) {
          for (size_t t = 0; t < call.tensors.size() && why.empty(); ++t) {
            if (call.tensors[t].output && !call.tensors[t].null && !run.view_untouched[t]) {
              why =
                  "phase 2 failed (" + describe_status(run) + ") but wrote " + call.tensors[t].name;
            }
          }
        }
        if (why.empty()) return 0;
        child_report(why);
        return 3;
      },
      ChildExit::kImmediate, kChildDeadline);
  int64_t rewritten = 0;
  for (const auto& [t, values] : options.rewrite_between_phases) {
    rewritten += static_cast<int64_t>(values.size());
  }
  LawResult result = child_verdict("between_phases", repro, child, rewritten);
  if (!child.ok()) {
    result.detail += " (index inputs rewritten between the phases:";
    for (const auto& [t, values] : options.rewrite_between_phases) {
      result.detail += " " + call.tensors[t].name;
    }
    result.detail += ")";
  }
  return result;
}

/// The call with empty size `size` set to zero everywhere it appears (and the attributes an
/// empty problem needs), under a profile that allows it.
inline Call emptied(const Call& call, const EmptySize& size) {
  Call empty = call;
  if (!contains(size.profiles, empty.profile)) {
    for (SpecProfile profile :
         {SpecProfile::kSeed, SpecProfile::kExtended, SpecProfile::kCannLatest}) {
      if (contains(size.profiles, profile)) {
        empty.profile = profile;
        break;
      }
    }
  }
  resize_sites(empty, size.dims, 0);
  for (const auto& [name, value] : size.attrs) empty.attr(name) = value;
  return empty;
}

template <typename Traits>
LawResult empty_problem(const typename Traits::Problem& p, const Backend& backend) {
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  const auto& sizes = call.entry->empty_sizes;
  if (sizes.empty()) return law_failure("empty_problem", repro, "the entry has no empty size");
  const EmptySize& size = sizes[p.seed % sizes.size()];
  const Call empty = emptied(call, size);
  auto fail = [&](const std::string& why) {
    return law_failure(
        "empty_problem", repro,
        "with " + std::string(size.name) + " = 0 (" + summarize(empty) + "): " + why);
  };
  RunOptions options;
  options.workspace_fill = WorkspaceFill::kGarbage;
  const Outcome run = Traits::run(empty, options, backend);
  if (!run.ok()) return fail(describe_status(run));
  if (run.workspace_size != 0) {
    return fail("phase 1 asked for " + std::to_string(run.workspace_size) +
                " bytes of workspace, expected 0");
  }
  if (!run.violations.empty()) return fail(run.violations);
  LawResult result;
  result.measured.add_checks(2);  // the status and the workspace size
  for (size_t t = 0; t < empty.tensors.size(); ++t) {
    const TensorSpec& spec = empty.tensors[t];
    if (!spec.output || spec.null) continue;
    if (empty.entry->written && !empty.entry->written(empty, spec.name)) continue;
    const std::vector<double>& values = run.values[t];
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] != 0.0) {
        return fail(spec.name + " holds " + std::to_string(values[i]) + " at flat index " +
                    std::to_string(i) + ", expected zero-filled");
      }
    }
    result.measured.add_exact(static_cast<int64_t>(values.size()));
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_HOST_PROCESS_H_
