// GridSampler2D's side of the harness: a Problem becomes a Call (the raw C arguments, still
// editable, so error-contract generators can break one clause), and a Call runs on a Backend.
#ifndef GRADCONF_PROPERTIES_HARNESS_GRID_SAMPLER2D_HARNESS_H_
#define GRADCONF_PROPERTIES_HARNESS_GRID_SAMPLER2D_HARNESS_H_

#include <optional>
#include <vector>

#include "grid_sampler2d/backend.h"
#include "grid_sampler2d/problem.h"
#include "harness/harness.h"

namespace gradconf::props::gs {

using grid_sampler2d::Backend;
using grid_sampler2d::Entry;
using grid_sampler2d::Problem;
using grid_sampler2d::Role;

/// The raw arguments of one GridSampler2D or GridSampler2DBackward call.
struct Call {
  Entry entry = Entry::kBackward;
  std::vector<Role> roles;          ///< role of each tensor, C-prototype order
  std::vector<TensorSpec> tensors;  ///< same order
  int64_t interpolation_mode = 0;
  int64_t padding_mode = 0;
  bool align_corners = false;
  std::optional<std::vector<bool>> output_mask;  ///< nullopt: pass a null aclBoolArray*
  bool null_workspace_size = false;
  bool null_executor = false;
  SpecProfile profile = SpecProfile::kSeed;

  /// Index of `role` in `tensors`, or -1.
  int index_of(Role role) const;
  TensorSpec& tensor(Role role) { return tensors[static_cast<size_t>(index_of(role))]; }
  const TensorSpec& tensor(Role role) const { return tensors[static_cast<size_t>(index_of(role))]; }
};

/// The call a valid problem describes, with input values from the problem's fill spec.
Call make_call(const Problem& problem);

/// Runs the call on `backend` under the call's profile.
Outcome run(const Call& call, const RunOptions& options = {},
            const Backend& backend = grid_sampler2d::default_backend());

/// Output values of `role` from an outcome of `call` (empty if the role is not in the call).
const std::vector<double>& output_of(const Call& call, const Outcome& outcome, Role role);

/// The double reference's outputs for the call's input values, by role (out for the forward,
/// inputGrad and gridGrad for the backward, regardless of the mask).
std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& problem,
                                                                     const Call& call);

}  // namespace gradconf::props::gs

#endif  // GRADCONF_PROPERTIES_HARNESS_GRID_SAMPLER2D_HARNESS_H_
