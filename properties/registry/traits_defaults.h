// The members of OpTraits (properties/registry/registry.h) that every op family writes the same
// way, given a problem descriptor with the usual fields (entry, dtype, to_repro(), op_name()). A
// family's traits derive from TraitsDefaults<Self, Problem> and write only what is op-specific;
// a member they declare themselves hides the default.
#ifndef GRADCONF_PROPERTIES_REGISTRY_TRAITS_DEFAULTS_H_
#define GRADCONF_PROPERTIES_REGISTRY_TRAITS_DEFAULTS_H_

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/direction.h"
#include "harness/backend.h"
#include "laws/law.h"
#include "op/call.h"

namespace gradconf::props {

template <typename Self, typename ProblemT>
struct TraitsDefaults {
  using Problem = ProblemT;
  using Call = props::Call;

  static const Backend& default_backend() { return Backend::linked(); }
  static std::string repro(const Problem& p) { return p.to_repro(); }
  static Problem as_forward(Problem p) {
    p.entry = Direction::kForward;
    return p;
  }
  static Problem as_backward(Problem p) {
    p.entry = Direction::kBackward;
    return p;
  }
  /// Ops without an output mask always compute every output.
  static Problem with_all_outputs(Problem p) { return p; }
  static Outcome run(const Call& call, const RunOptions& options, const Backend& backend) {
    return props::run(call, options, backend);
  }
  static aclDataType dtype(const Problem& p) { return p.dtype; }
  /// `p` in `dtype`, under `extended` when the dtype is one of Self::kExtendedOnlyDtypes (those
  /// the seed profiles refuse; an op that does not list them accepts every dtype everywhere).
  static Problem with_dtype(Problem p, aclDataType dtype) {
    p.dtype = dtype;
    if constexpr (requires { Self::kExtendedOnlyDtypes; }) {
      if (std::ranges::find(Self::kExtendedOnlyDtypes, dtype) != Self::kExtendedOnlyDtypes.end()) {
        p.profile = SpecProfile::kExtended;
      }
    }
    return p;
  }
  static std::string_view op_name(const Problem& p) { return p.op_name(); }

  /// True when the op's semantics depend on the dtype only through rounding, so a low-precision
  /// run and a float64 run of the same rounded inputs must agree (dtype_agreement).
  static bool same_semantics_in_float64(const Problem&) { return true; }

  /// `call` with its float tensors in DOUBLE (the same values), under the profile that accepts
  /// DOUBLE for every op: extended.
  static Call in_float64(Call call) {
    for (auto& tensor : call.tensors) {
      const RoleSpec* role = call.entry ? call.entry->role(tensor.name) : nullptr;
      if (!role || role->dtype_class == DtypeClass::kFloat) tensor.dtype = ACL_DOUBLE;
    }
    call.profile = SpecProfile::kExtended;
    return call;
  }

  /// Every output of the call.
  static std::vector<int> wanted_outputs(const Problem&, const Call& call) {
    std::vector<int> indices;
    for (size_t i = 0; i < call.tensors.size(); ++i) {
      if (call.tensors[i].output) indices.push_back(static_cast<int>(i));
    }
    return indices;
  }

  /// Self::reference_values(p, call) ((role, values) pairs of the double reference) as the
  /// call's expected outputs; role_name(role) is found in the role's own namespace.
  /// An op with Self::reference_magnitudes(p, call) (TermMagnitudes per role) gives each output
  /// its term magnitudes, so cancelling elements are held to cancellation_floor.
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call) {
    std::vector<ExpectedOutput> expected;
    for (auto& [role, values] : Self::reference_values(p, call)) {
      const std::string name(role_name(role));
      const size_t at = role_at(call, name);
      expected.push_back({static_cast<int>(at), name, call.tensors[at].dims, std::move(values)});
    }
    if constexpr (requires { Self::reference_magnitudes(p, call); }) {
      for (auto& sums : Self::reference_magnitudes(p, call)) {
        for (ExpectedOutput& e : expected) {
          if (e.name != role_name(sums.role)) continue;
          e.term_magnitudes = std::move(sums.magnitudes);
          e.terms = sums.terms;
          e.evaluation_scales = std::move(sums.evaluation_scales);
        }
      }
    }
    return expected;
  }

  /// The dim a tensor is split along for batch_split: its role's, or -1 for a role every part
  /// gets whole (weights, level tables).
  static int batch_dim(const Call& call, int tensor) {
    const RoleSpec* role = call.entry->role(call.tensors[static_cast<size_t>(tensor)].name);
    if (!role) return 0;
    return role->batching == Batching::kNone ? -1 : role->batch_dim;
  }

  /// The problem for the derivative laws: DOUBLE under `extended` (which accepts it for every
  /// op), no broadcast layouts. Ops with kinks or fills to avoid override it.
  static Problem smooth_double(Problem p) {
    p.dtype = ACL_DOUBLE;
    p.profile = SpecProfile::kExtended;
    for (auto& layout : p.layouts) layout.broadcast = 0;
    return p;
  }

  /// The backward's incoming gradient, the role Self::kIncomingGradient.
  static std::vector<int> incoming_gradients(const Call& backward) {
    const int index = backward.index_of(Self::kIncomingGradient);
    return index < 0 ? std::vector<int>{} : std::vector<int>{index};
  }

 protected:
  /// For a forward that sums products of its inputs (every term a product of one element of each
  /// role in `absolute` and of nonnegative weights): sum_j |forward(u)|_j |g_j| bounded by
  /// sum_j forward(|u|)_j |g_j|, the forward's `output` computed by the double reference on the
  /// absolute values of `absolute`, against the backward's incoming gradient of `d`.
  static double forward_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d,
                                  std::initializer_list<const char*> absolute,
                                  std::string_view output) {
    Call magnitudes = forward;
    for (const char* role : absolute) {
      for (double& v : magnitudes.tensor(role).values) v = std::fabs(v);
    }
    const auto& g = backward.tensors[role_at(backward, d.incoming)].values;
    double magnitude = 0;
    for (const auto& [role, f] : Self::reference_values(Self::as_forward(p), magnitudes)) {
      if (role_name(role) != output) continue;
      for (size_t j = 0; j < f.size() && j < g.size(); ++j) magnitude += f[j] * std::fabs(g[j]);
    }
    return magnitude;
  }
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_REGISTRY_TRAITS_DEFAULTS_H_
