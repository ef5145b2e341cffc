// Planted faults (mutation testing). An op's kernels and phase 1 are templates on its own
// `enum class Fault { kNone, ..., kCount }`, named once by `kFaultNames` (enum order, "none"
// first) in the op's namespace; fault_name(Fault) and planted_faults<Fault>() derive from it. A
// fault branch is `if (planted<kFault>(Fault::kX))`. The shipped backend instantiates
// Fault::kNone only, where every such test is a constant false and compiles away. The
// planted-fault backend library (built from the same sources with GRADCONF_PLANTED_FAULTS=1)
// runs the fault selected at run time by name, "<family>.<fault_name>" (e.g.
// "grid_sampler2d.swapped_grid_grad_xy"), through its own instantiation, kAnyFault.
#ifndef GRADCONF_OPS_CORE_PLANTED_FAULT_H_
#define GRADCONF_OPS_CORE_PLANTED_FAULT_H_

#include <array>
#include <atomic>
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
  kWorkspaceSlackDropped,       ///< phase 1 asks for no alignment slack, yet phase 2 aligns the
                                ///< workspace pointer up: a misaligned one is overrun by up to 63 B
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

/// The kFault of the one instantiation of an op's phase 1 and kernels that serves every fault in
/// the planted-fault library (its branches ask planted() at run time): compiling every kernel once
/// per fault was most of the default tree's compile time. A fault that changes a type (an
/// accumulator) cannot be asked at run time: the op lists it to with_planted_fault, which gives it
/// its own instantiation (left out, it would never be planted, and its planted-fault row fails).
template <typename Fault>
inline constexpr Fault kAnyFault = Fault::kCount;

/// The fault an op's kAnyFault instantiation runs, stored by with_planted_fault at phase 1.
/// Constant-initialised: a forked child finds it whole (fork_safe.h).
template <typename Fault>
inline std::atomic<Fault> running_fault{Fault::kNone};

/// Whether the kernel instantiated for `kFault` plants `fault`: a constant (false in the shipped
/// backend, whose branches compile away) except in the kAnyFault instantiation.
template <auto kFault>
constexpr bool planted(decltype(kFault) fault) {
  using Fault = decltype(kFault);
  if constexpr (kFault == kAnyFault<Fault>) {
    return running_fault<Fault>.load(std::memory_order_relaxed) == fault;
  } else {
    return kFault == fault;
  }
}

/// The selected fault's full name, or "" when none is (the planted library then behaves as the
/// shipped one). Initialised from GRADCONF_PLANTED_FAULT; changed by gradconfSelectPlantedFault.
std::string selected_planted_fault();
void select_planted_fault(std::string_view name);

/// The fault of `family` selected at run time (kNone when none of its faults is).
template <typename Fault>
Fault selected_fault_of(std::string_view family) {
  const std::string selected = selected_planted_fault();
  if (selected.size() <= family.size() + 1 || !selected.starts_with(family) ||
      selected[family.size()] != '.') {
    return Fault::kNone;
  }
  const std::string_view wanted = std::string_view(selected).substr(family.size() + 1);
  for (Fault fault : planted_faults<Fault>()) {
    if (fault_name(fault) == wanted) return fault;
  }
  return Fault::kNone;
}

/// Calls fn(std::integral_constant<Fault, F>{}) with F = Fault::kNone in the shipped backend. In
/// the planted-fault backend F is the fault of `family` selected at run time when `kCompiled`
/// (the op's faults that change a type) lists it, else kAnyFault with running_fault set to it,
/// kNone included: that library has no kNone instantiation, whose vector paths (taken by kNone
/// only) were half of its compile time. With no fault selected it runs kAnyFault's paths, slower,
/// to the shipped library's results (540 generated cases of the eight entries: the same bits but
/// for one NaN's sign).
template <typename Fault, auto kCompiled = std::array<Fault, 0>{}, typename Fn>
decltype(auto) with_planted_fault(std::string_view family, Fn&& fn) {
  if constexpr (GRADCONF_PLANTED_FAULTS) {
    const Fault fault = selected_fault_of<Fault>(family);
    // Stored for a compiled fault too: an op may run kAnyFault's instantiation for it where the
    // fault has no effect (a dtype whose types it does not change), which must then not see the
    // fault selected before.
    running_fault<Fault>.store(fault, std::memory_order_relaxed);
    return [&]<size_t... I>(std::index_sequence<I...>)->decltype(auto) {
      using Result = decltype(fn(std::integral_constant<Fault, kAnyFault<Fault>>{}));
      Result result{};
      const bool compiled =
          ((fault == kCompiled[I]
                ? (result = fn(std::integral_constant<Fault, kCompiled[I]>{}), true)
                : false) ||
           ...);
      if (!compiled) result = fn(std::integral_constant<Fault, kAnyFault<Fault>>{});
      return result;
    }
    (std::make_index_sequence<kCompiled.size()>{});
  } else {
    return fn(std::integral_constant<Fault, Fault::kNone>{});
  }
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PLANTED_FAULT_H_
