// Planted faults (mutation testing). An op's kernels and phase 1 are templates on its own
// `enum class Fault { kNone, ..., kCount }`, named once by `kFaultNames` (enum order, "none"
// first) in the op's namespace; fault_name(Fault) and planted_faults<Fault>() derive from it. The
// shipped backend instantiates Fault::kNone only, so every fault branch is an `if constexpr` that
// compiles away. The planted-fault backend library (built from the same sources with
// GRADCONF_PLANTED_FAULTS=1) instantiates every fault and runs the one selected at run time by
// name, "<family>.<fault_name>" (e.g. "grid_sampler2d.swapped_grid_grad_xy").
#ifndef GRADCONF_OPS_CORE_PLANTED_FAULT_H_
#define GRADCONF_OPS_CORE_PLANTED_FAULT_H_

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "aclnn/acl_meta.h"

#ifndef GRADCONF_PLANTED_FAULTS
#define GRADCONF_PLANTED_FAULTS 0
#endif

namespace gradconf {

/// True when every name of `names` is non-empty (a Fault enum and its kFaultNames agree).
template <size_t N>
consteval bool all_named(const std::array<std::string_view, N>& names) {
  for (std::string_view name : names) {
    if (name.empty()) return false;
  }
  return true;
}

/// The name of `fault` in `names` (the op's kFaultNames).
template <typename Fault, size_t N>
constexpr std::string_view fault_name_in(const std::array<std::string_view, N>& names,
                                         Fault fault) {
  static_assert(N == static_cast<size_t>(Fault::kCount), "one name per Fault, kNone first");
  const auto at = static_cast<size_t>(fault);
  return at < N ? names[at] : std::string_view("unknown");
}

/// Every planted fault of an op's enum: kNone + 1 .. kCount - 1.
template <typename Fault>
constexpr auto planted_faults() {
  std::array<Fault, static_cast<size_t>(Fault::kCount) - 1> faults{};
  for (size_t i = 0; i < faults.size(); ++i) faults[i] = static_cast<Fault>(i + 1);
  return faults;
}

/// The names of planted_faults<Fault>() (fault_name is found in the op's namespace).
template <typename Fault>
std::vector<std::string_view> planted_fault_names() {
  std::vector<std::string_view> names;
  for (Fault fault : planted_faults<Fault>()) names.push_back(fault_name(fault));
  return names;
}

/// Faults planted in the shared core rather than in one op ("core.<name>"): what the host-process
/// laws must see for every op.
enum class CoreFault {
  kNone,
  kMessageInThreadLocalString,  ///< the last-error message in a thread_local std::string, which
                                ///< thread exit destroys before atexit handlers call in
  kRegistryUnguardedAtFork,     ///< the executor registry's lock left out of the fork handlers
  kMessageSharedAcrossThreads,  ///< one last-error message for the whole process, not per thread
  kCount
};
std::string_view core_fault_name(CoreFault fault);

/// True when `fault` is planted: always false in the shipped backend. Lock-free (an atomic read),
/// so fork handlers and error paths may ask.
#if GRADCONF_PLANTED_FAULTS
bool core_fault_planted(CoreFault fault);
#else
constexpr bool core_fault_planted(CoreFault) { return false; }
#endif

/// The Fault a kernel is instantiated for: `kFault`, or kNone when `kFault` is in one of
/// `kElsewhere`, the op's lists of faults this kernel does not plant: kPhase1Faults (planted in
/// phase 1 only) for every kernel, and kBackwardOnlyFaults (planted in the backward kernels only)
/// for the forward. Those kernels are then the kNone ones: the planted-fault library compiles each
/// kernel once less per such fault. tests/core/fault_lists_test.cmake checks the lists against
/// the sources.
template <auto kFault, auto... kElsewhere>
consteval decltype(kFault) kernel_fault() {
  bool elsewhere = false;
  for (const auto& list : {std::span<const decltype(kFault)>(kElsewhere)...}) {
    for (auto fault : list) elsewhere = elsewhere || fault == kFault;
  }
  return elsewhere ? decltype(kFault)::kNone : kFault;
}

/// The selected fault's full name, or "" when none is (the planted library then behaves as the
/// shipped one). Initialised from GRADCONF_PLANTED_FAULT; changed by gradconfSelectPlantedFault.
std::string selected_planted_fault();
void select_planted_fault(std::string_view name);

/// Calls fn(std::integral_constant<Fault, F>{}) with F = Fault::kNone in the shipped backend, or
/// with the fault of `family` selected at run time in the planted-fault backend.
template <typename Fault, typename Fn>
decltype(auto) with_planted_fault(std::string_view family, Fn&& fn) {
  if constexpr (GRADCONF_PLANTED_FAULTS) {
    const std::string selected = selected_planted_fault();
    const bool ours = selected.size() > family.size() + 1 && selected.starts_with(family) &&
                      selected[family.size()] == '.';
    const std::string_view wanted =
        ours ? std::string_view(selected).substr(family.size() + 1) : std::string_view("none");
    return [&]<size_t... I>(std::index_sequence<I...>)->decltype(auto) {
      using Result = decltype(fn(std::integral_constant<Fault, Fault::kNone>{}));
      Result result{};
      const bool matched =
          ((fault_name(static_cast<Fault>(I)) == wanted
                ? (result = fn(std::integral_constant<Fault, static_cast<Fault>(I)>{}), true)
                : false) ||
           ...);
      if (!matched) result = fn(std::integral_constant<Fault, Fault::kNone>{});
      return result;
    }
    (std::make_index_sequence<static_cast<size_t>(Fault::kCount)>{});
  } else {
    return fn(std::integral_constant<Fault, Fault::kNone>{});
  }
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PLANTED_FAULT_H_
