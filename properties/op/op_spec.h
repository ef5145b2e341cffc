// The op model (spec ARCHITECTURE.md "One op model: the registry"): what every consumer (CLI, laws,
// property suites, fuzzers, reports) knows about an entry point. One EntrySpec per C entry point;
// an op family registers its entries, laws and faults in properties/families/<op>/family.cpp, and
// CMake generates the list of families (properties/registry/families.cpp.in).
#ifndef GRADCONF_PROPERTIES_OP_OP_SPEC_H_
#define GRADCONF_PROPERTIES_OP_OP_SPEC_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clause.h"
#include "core/direction.h"
#include "op/call.h"

namespace gradconf::props {

/// What a tensor role holds; laws convert, perturb and compare only kFloat roles.
enum class DtypeClass : uint8_t {
  kFloat,      ///< values the op computes with (the problem's float dtype)
  kIndex,      ///< INT32/INT64 indices or sizes: never perturbed, compared exactly
  kMask,       ///< BOOL/UINT8 masks (may be accepted and never read)
  kStatistic,  ///< FLOAT whatever the problem's dtype (softmax statistics): compared, never
               ///< converted
};

/// How a role splits when a batch is split (law 8).
enum class Batching : uint8_t {
  kNone,      ///< not batched (weights, level tables): every part gets all of it
  kDim,       ///< batched along `batch_dim`
  kSequence,  ///< tokens of prefix-sum sequences (`sequence_attr`) along `batch_dim`
};

struct RoleSpec {
  std::string_view name;  ///< the C parameter name
  bool output = false;
  int rank = 0;
  DtypeClass dtype_class = DtypeClass::kFloat;
  bool optional = false;  ///< may be passed as nullptr
  Batching batching = Batching::kDim;
  int batch_dim = 0;
  std::string_view sequence_attr;  ///< kSequence: the prefix-sum attribute
  /// Outputs: how the shape and dtype follow from the inputs, and when a successful call writes
  /// the output (empty: always), as text for `gradconf list` and reports.
  std::string_view shape_rule;
  std::string_view dtype_rule;
  std::string_view written_rule;
  /// Inputs: the dtypes some profile accepts (for `gradconf list` and case files).
  std::vector<aclDataType> dtypes;

  /// An input whose values the op indexes with (data-dependent clauses read it; a kernel must
  /// stay in bounds whatever it holds at phase 2).
  bool index_input() const { return !output && dtype_class == DtypeClass::kIndex; }
};

/// An output's logical shape and dtype for a call's inputs and attributes.
struct OutputShape {
  std::vector<int64_t> dims;
  aclDataType dtype = ACL_FLOAT;
};

enum class AttrKind : uint8_t { kInt, kDouble, kBool, kString, kIntList, kBoolList };
std::string_view attr_kind_name(AttrKind kind);

struct AttrSpec {
  std::string_view name = {};  ///< the C parameter name
  AttrKind kind = AttrKind::kInt;
  AttrValue default_value = {};
  bool nullable = false;  ///< a null pointer is a valid value
};

/// Phase 1 of the entry, given the created arguments (the backend's symbol, by name).
using Phase1Binding = aclnnStatus (*)(const Backend& backend, const BoundArgs& args);
/// Phase 2 of the entry as the backend provides it.
using Phase2Binding = Phase2 (*)(const Backend& backend);
/// The clause table's verdict for created arguments (our spec, independent of the backend).
using OracleBinding = Verdict (*)(const BoundArgs& args, SpecProfile profile);
/// The shape and dtype of output `role` given the call's inputs (dims and dtypes) and attributes;
/// defined for any call, valid or not (a call the op rejects still needs output tensors).
using OutputShapeBinding = OutputShape (*)(const Call& call, std::string_view role);
/// Whether a successful call writes output `role` (e.g. per outputMask).
using WrittenBinding = bool (*)(const Call& call, std::string_view role);

struct ClauseInfo {
  std::string_view id;
  aclnnStatus status = ACLNN_SUCCESS;
  ProfileSet profiles = kAllProfiles;
  std::string_view source;
  std::string_view condition;
};

/// Where one size of a call lives: the (tensor role, dim) pairs that carry it.
using SizeSites = std::vector<std::pair<std::string_view, int>>;

/// A size the spec allows to be 0 (spec: "empty inputs are valid: workspace 0, outputs
/// zero-filled"), as data for the empty_problem law: the (role, dim) pairs that carry it, the
/// profiles in which it is valid, and any attribute an empty problem needs.
struct EmptySize {
  std::string_view name;  ///< "N", "Q", ...
  SizeSites dims;
  ProfileSet profiles = kAllProfiles;
  std::vector<std::pair<std::string_view, AttrValue>> attrs = {};
};

struct EntrySpec {
  std::string_view name;    ///< "GridSampler2DBackward": case files, repro lines, reports
  std::string_view family;  ///< "grid_sampler2d": the op folder, fault names, tolerance rows
  Direction direction = Direction::kForward;
  std::vector<RoleSpec> roles;  ///< tensors, C-prototype order
  std::vector<AttrSpec> attrs;  ///< attributes, C-prototype order
  Phase1Binding phase1 = nullptr;
  Phase2Binding phase2 = nullptr;
  OracleBinding oracle = nullptr;
  OutputShapeBinding output_shape = nullptr;
  WrittenBinding written = nullptr;         ///< null: every output is always written
  std::vector<EmptySize> empty_sizes = {};  ///< sizes that may be 0 (none: the op rejects empties)

  const RoleSpec* role(std::string_view name) const;
  const AttrSpec* attr(std::string_view name) const;
  /// A call with every role present (dims empty) and every attribute at its default.
  Call blank_call() const;
  /// Sets every output's dims and dtype from the inputs (output_shape).
  void shape_outputs(Call& call) const;
};

/// The clause table of a family's entries, as data for reports (id, status, source, ...).
template <typename Args>
std::vector<ClauseInfo> clause_infos(std::span<const Clause<Args>> table) {
  std::vector<ClauseInfo> infos;
  for (const auto& c : table) infos.push_back({c.id, c.status, c.profiles, c.source, c.condition});
  return infos;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_OP_OP_SPEC_H_
