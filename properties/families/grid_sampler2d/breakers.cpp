// Each breaker assumes a valid call (every shape relation holds) and makes one edit. Edits that
// change a size everywhere it appears ("consistent resizes") keep the call valid; edits that
// change one tensor alone break exactly the relation that tensor takes part in. Earlier clauses
// of the table (null, mask, dtype, format, attrs, ranks) are never touched by a later clause's
// breaker, so the first clause that fires is the breaker's own.
#include "families/grid_sampler2d/breakers.h"

#include <algorithm>
#include <array>
#include <memory>

#include "core/clause.h"
#include "core/dtype.h"
#include "core/layout.h"
#include "core/status.h"
#include "core/tensor.h"
#include "families/grid_sampler2d/ranges.h"
#include "grid_sampler2d/clauses.h"

namespace gradconf::props::gs {
namespace {

namespace ranges = gs_ranges;

// The six sizes every shape relation is written in.
enum class Size { kN, kC, kInH, kInW, kOutH, kOutW };

// Where `size` sits in a 4-D tensor of `role`, or -1 when the role does not carry it.
int dim_of(Role role, Size size) {
  switch (role) {
    case Role::kGradOutput:
    case Role::kOut:
      return std::array{0, 1, -1, -1, 2, 3}[static_cast<int>(size)];
    case Role::kInput:
    case Role::kInputGrad:
      return std::array{0, 1, 2, 3, -1, -1}[static_cast<int>(size)];
    case Role::kGrid:
    case Role::kGridGrad:
      return std::array{0, -1, -1, -1, 1, 2}[static_cast<int>(size)];
  }
  return -1;
}

// The size a dim of a role's tensor carries; nullopt for the grid's last dim (always 2).
std::optional<Size> size_at(Role role, int dim) {
  for (Size size : {Size::kN, Size::kC, Size::kInH, Size::kInW, Size::kOutH, Size::kOutW}) {
    if (dim_of(role, size) == dim) return size;
  }
  return std::nullopt;
}

int64_t size_of(const Call& call, Size size) {
  const Role source = (size == Size::kOutH || size == Size::kOutW) ? Role::kGrid : Role::kInput;
  return tensor(call, source).dims[static_cast<size_t>(dim_of(source, size))];
}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

// Values that no longer match the view are dropped; the harness then fills the view with zeros.
// Only status and untouched-output contracts are checked on edited calls, so zeros suffice.
void drop_stale_values(TensorSpec& spec) {
  if (!spec.output && static_cast<int64_t>(spec.values.size()) != element_count(spec.dims)) {
    spec.values.clear();
  }
}

// Sets `size` to `value` in every tensor that carries it: every shape relation keeps holding.
void resize(Call& call, Size size, int64_t value) {
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    TensorSpec& spec = call.tensors[i];
    const int dim = dim_of(role_at(call, i), size);
    if (dim < 0 || spec.dims.size() != 4) continue;
    spec.dims[static_cast<size_t>(dim)] = value;
    drop_stale_values(spec);
  }
}

// `value` moved by one, +1 or -1 as `choice` says, but never below `floor`.
int64_t step(Choice& choice, int64_t value, int64_t floor) {
  const bool down = choice.coin();
  return (down && value - 1 >= floor) ? value - 1 : value + 1;
}

// Rank edits keep the layout meaningful: the memory order and broadcast bits are renumbered
// around the removed or inserted dim, so the harness can still lay the tensor out.
void remove_dim(TensorSpec& spec, int dim) {
  LayoutSpec& layout = spec.layout;
  if (!layout.order.empty()) {
    std::vector<int> order;
    for (int d : layout.order) {
      if (d != dim) order.push_back(d > dim ? d - 1 : d);
    }
    layout.order = order;
  }
  const uint32_t low = layout.broadcast & ((1u << dim) - 1);
  layout.broadcast = low | ((layout.broadcast >> (dim + 1)) << dim);
  spec.dims.erase(spec.dims.begin() + dim);
  drop_stale_values(spec);
}

void insert_unit_dim(TensorSpec& spec, int dim) {
  LayoutSpec& layout = spec.layout;
  if (!layout.order.empty()) {
    std::vector<int> order = {dim};  // outermost: a dim of 1 takes no room anywhere
    for (int d : layout.order) order.push_back(d >= dim ? d + 1 : d);
    layout.order = order;
  }
  const uint32_t low = layout.broadcast & ((1u << dim) - 1);
  layout.broadcast = low | ((layout.broadcast >> dim) << (dim + 1));
  spec.dims.insert(spec.dims.begin() + dim, 1);
}

// A null outputMask is GS-MASK-01's early-out; every other breaker needs validation to get past
// it.
void ensure_mask(Call& call) {
  if (is_backward(call) && !output_mask(call)) set_output_mask(call, std::vector<bool>{true, true});
}

std::vector<Role> output_roles(const Call& call) {
  if (is_backward(call)) return {Role::kInputGrad, Role::kGridGrad};
  return {Role::kOut};
}

// GS-NULL-01. Just-valid: every tensor present, i.e. the call as it is.
void break_null_tensor(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  if (just_valid) return;
  Choice choice(bits);
  // A non-empty subset of the tensors; 0 nulls the first one only.
  const uint64_t subsets = (uint64_t{1} << call.tensors.size()) - 1;
  const uint64_t subset = 1 + choice.below(subsets);
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    if ((subset >> i) & 1u) call.tensors[i].null = true;
  }
}

// GS-NULL-02. Just-valid: both out-pointers present, i.e. the call as it is.
void break_null_out_pointer(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  if (just_valid) return;
  switch (Choice(bits).below(3)) {
    case 0:
      call.null_workspace_size = true;
      break;
    case 1:
      call.null_executor = true;
      break;
    default:
      call.null_workspace_size = call.null_executor = true;
      break;
  }
}

std::vector<bool> mask_bits(Choice& choice, uint64_t size) {
  std::vector<bool> mask(size);
  for (uint64_t i = 0; i < size; ++i) mask[i] = !choice.coin();  // 0 gives all true
  return mask;
}

// GS-MASK-01 (an early-out with ACLNN_SUCCESS, not an error). Just-invalid: the null mask, which
// makes the clause fire. Just-valid: the nearest non-null mask, {false, false}: it computes
// nothing either, but through the normal path (validation proceeds, outputs left unwritten).
void break_mask_null(Call& call, uint64_t, bool just_valid) {
  if (!is_backward(call)) return;
  if (just_valid) {
    set_output_mask(call, std::vector<bool>{false, false});
  } else {
    set_output_mask(call, std::nullopt);
  }
}

// GS-MASK-02: a mask of 0, 1, 3, ... values vs exactly 2 (any values).
void break_mask_size(Call& call, uint64_t bits, bool just_valid) {
  if (!is_backward(call)) return;
  Choice choice(bits);
  const uint64_t size = just_valid ? 2 : choice.of(ranges::kInvalidMaskSizes);
  set_output_mask(call, mask_bits(choice, size));
}

// Just-valid side of both dtype clauses: every tensor in one floating dtype, possibly another one
// than the call had.
void set_all_dtypes(Call& call, Choice& choice) {
  const aclDataType dtype = choice.of(ranges::kFloatDtypes);
  for (TensorSpec& spec : call.tensors) spec.dtype = dtype;
}

// GS-DTYPE-01: a non-empty subset of the tensors gets one non-floating dtype.
void break_dtype_supported(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  Choice choice(bits);
  if (just_valid) return set_all_dtypes(call, choice);
  const aclDataType dtype = choice.of(ranges::kNonFloatingDtypes);
  const uint64_t subset = 1 + choice.below((uint64_t{1} << call.tensors.size()) - 1);
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    if ((subset >> i) & 1u) call.tensors[i].dtype = dtype;
  }
}

// GS-DTYPE-02: one tensor (input included) in another floating dtype than the rest.
void break_dtype_same(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  Choice choice(bits);
  if (just_valid) return set_all_dtypes(call, choice);
  TensorSpec& target = call.tensors[choice.below(call.tensors.size())];
  std::vector<aclDataType> others;
  for (aclDataType dtype : ranges::kFloatDtypes) {
    if (dtype != target.dtype) others.push_back(dtype);
  }
  target.dtype = choice.of(others);
}

// GS-FORMAT-01: the generic format breaker, on a call whose outputMask is set (a null mask is an
// early-out success, GS-MASK-01).
void break_format(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  break_format_nd(call, bits, just_valid);
}

// GS-ATTR-01 and GS-ATTR-02: a mode just outside the profile's {0, 1} (cann-latest {0, 1, 2}),
// or far outside, vs a mode inside.
int64_t mode(const Call& call, uint64_t bits, bool just_valid) {
  Choice choice(bits);
  const int64_t modes =
      call.profile == SpecProfile::kCannLatest ? ranges::kCannLatestModes : ranges::kSeedModes;
  if (just_valid) return static_cast<int64_t>(choice.below(static_cast<uint64_t>(modes)));
  std::vector<int64_t> invalid;
  for (int64_t m : ranges::kInvalidModes) {
    if (m < 0 || m >= modes) invalid.push_back(m);
  }
  return choice.of(invalid);
}

void break_interpolation(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  call.attr("interpolationMode") = mode(call, bits, just_valid);
}

void break_padding(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  call.attr("paddingMode") = mode(call, bits, just_valid);
}

// GS-RANK-01: gradOutput (out for the forward), input or grid loses a dim (rank 3) or gains a
// dim of 1 (rank 5). Just-valid: rank 4, i.e. the call as it is.
void break_rank(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  if (just_valid) return;
  Choice choice(bits);
  const std::array<Role, 3> checked = {is_backward(call) ? Role::kGradOutput : Role::kOut,
                                       Role::kInput, Role::kGrid};
  TensorSpec& target = tensor(call, choice.of(checked));
  if (choice.coin()) {
    insert_unit_dim(target, static_cast<int>(choice.below(5)));
  } else {
    remove_dim(target, static_cast<int>(choice.below(4)));
  }
}

// Shape breakers move one dim of one tensor by one; their just-valid side moves the same size
// consistently in every tensor.
void shift_dim(Call& call, Role role, int dim, Choice& choice) {
  TensorSpec& spec = tensor(call, role);
  int64_t& value = spec.dims[static_cast<size_t>(dim)];
  value = step(choice, value, 0);
  drop_stale_values(spec);
}

void shift_size(Call& call, Size size, Choice& choice) {
  // Input spatial sizes stay >= 1 so that GS-SHAPE-05 keeps holding.
  const int64_t floor = (size == Size::kInH || size == Size::kInW) ? 1 : 0;
  resize(call, size, step(choice, size_of(call, size), floor));
}

// GS-SHAPE-01: one of input, grid, gradOutput with another batch.
void break_batch(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  Choice choice(bits);
  if (just_valid) return shift_size(call, Size::kN, choice);
  std::vector<Role> roles = {Role::kGrid, Role::kInput};
  if (is_backward(call)) roles.push_back(Role::kGradOutput);
  shift_dim(call, choice.of(roles), 0, choice);
}

// GS-SHAPE-02 (backward): gradOutput or input with other channels.
void break_channels(Call& call, uint64_t bits, bool just_valid) {
  if (!is_backward(call)) return;
  ensure_mask(call);
  Choice choice(bits);
  if (just_valid) return shift_size(call, Size::kC, choice);
  shift_dim(call, choice.coin() ? Role::kInput : Role::kGradOutput, 1, choice);
}

// GS-SHAPE-03 (backward): grid's (Hout, Wout) differ from gradOutput's.
void break_output_size(Call& call, uint64_t bits, bool just_valid) {
  if (!is_backward(call)) return;
  ensure_mask(call);
  Choice choice(bits);
  const bool width = choice.coin();
  if (just_valid) return shift_size(call, width ? Size::kOutW : Size::kOutH, choice);
  const bool on_grid = !choice.coin();
  shift_dim(call, on_grid ? Role::kGrid : Role::kGradOutput,
            on_grid ? (width ? 2 : 1) : (width ? 3 : 2), choice);
}

// GS-SHAPE-04: grid's last dim 1 or 3 vs 2 (the call as it is). gridGrad keeps 2: GS-SHAPE-06
// comes later, so it cannot mask the clause.
void break_grid_last_dim(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  if (just_valid) return;
  TensorSpec& grid = tensor(call, Role::kGrid);
  grid.dims[3] = Choice(bits).coin() ? 3 : 1;
  drop_stale_values(grid);
}

// GS-SHAPE-05: input height and/or width 0 vs 1. The invalid side leaves inputGrad alone (its
// mismatch is GS-SHAPE-06, later); the valid side resizes consistently.
void break_input_spatial(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  const uint64_t which = Choice(bits).below(3);  // 0 height, 1 width, 2 both
  const bool height = which != 1, width = which != 0;
  if (just_valid) {
    if (height) resize(call, Size::kInH, 1);
    if (width) resize(call, Size::kInW, 1);
    return;
  }
  TensorSpec& input = tensor(call, Role::kInput);
  if (height) input.dims[2] = 0;
  if (width) input.dims[3] = 0;
  drop_stale_values(input);
}

// GS-SHAPE-06: one dim of one output off by one vs a consistent resize of a size it carries.
void break_output_shapes(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  Choice choice(bits);
  const Role target = choice.of(output_roles(call));
  if (just_valid) {
    std::vector<Size> carried;
    for (int dim = 0; dim < 4; ++dim) {
      if (auto size = size_at(target, dim)) carried.push_back(*size);
    }
    return shift_size(call, choice.of(carried), choice);
  }
  shift_dim(call, target, static_cast<int>(choice.below(4)), choice);
}

// GS-OUT-01: a zero stride (broadcast bit) on an output dim of size >= 2, which makes two
// elements share storage, vs a zero stride on a dim of size 1, which addresses one element once
// and is allowed. Sizes are resized consistently to reach either side, so nothing else breaks.
void break_outputs_disjoint(Call& call, uint64_t bits, bool just_valid) {
  ensure_mask(call);
  Choice choice(bits);
  const Role target = choice.of(output_roles(call));
  const int index = index_of(call, target);
  if (just_valid) {
    std::vector<int> dims;  // gridGrad's last dim is fixed at 2
    for (int dim = 0; dim < 4; ++dim) {
      if (size_at(target, dim)) dims.push_back(dim);
    }
    const int dim = choice.of(dims);
    resize(call, *size_at(target, dim), 1);
    call.tensors[static_cast<size_t>(index)].layout.broadcast |= 1u << dim;
    return;
  }
  const int dim = static_cast<int>(choice.below(4));
  const bool exactly_two = !choice.coin();  // 0: the boundary itself, two elements share
  // An empty output has no elements to overlap: give every dim at least one element.
  for (int other = 0; other < 4; ++other) {
    const auto size = size_at(target, other);
    if (size && call.tensors[static_cast<size_t>(index)].dims[static_cast<size_t>(other)] == 0) {
      resize(call, *size, 1);
    }
  }
  if (const auto size = size_at(target, dim)) {
    const int64_t current = call.tensors[static_cast<size_t>(index)].dims[static_cast<size_t>(dim)];
    if (current < 2 || exactly_two) resize(call, *size, 2);
  }
  call.tensors[static_cast<size_t>(index)].layout.broadcast |= 1u << dim;
}

constexpr std::array<ClauseBreaker, 17> kBreakers = {{
    {"GS-NULL-01", Entries::kBoth, break_null_tensor},
    {"GS-NULL-02", Entries::kBoth, break_null_out_pointer},
    {"GS-MASK-01", Entries::kBackward, break_mask_null},
    {"GS-MASK-02", Entries::kBackward, break_mask_size},
    {"GS-DTYPE-01", Entries::kBoth, break_dtype_supported},
    {"GS-DTYPE-02", Entries::kBoth, break_dtype_same},
    {"GS-FORMAT-01", Entries::kBoth, break_format},
    {"GS-ATTR-01", Entries::kBoth, break_interpolation},
    {"GS-ATTR-02", Entries::kBoth, break_padding},
    {"GS-RANK-01", Entries::kBoth, break_rank},
    {"GS-SHAPE-01", Entries::kBoth, break_batch},
    {"GS-SHAPE-02", Entries::kBackward, break_channels},
    {"GS-SHAPE-03", Entries::kBackward, break_output_size},
    {"GS-SHAPE-04", Entries::kBoth, break_grid_last_dim},
    {"GS-SHAPE-05", Entries::kBoth, break_input_spatial},
    {"GS-SHAPE-06", Entries::kBoth, break_output_shapes},
    {"GS-OUT-01", Entries::kBoth, break_outputs_disjoint},
}};

}  // namespace

std::span<const ClauseBreaker> clause_breakers() { return kBreakers; }

}  // namespace gradconf::props::gs
