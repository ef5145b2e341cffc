// The suite's side of an entry's parameter table (ops/core/params.h): the EntrySpec's tensor
// roles and attributes in the table's names and order, the phase-1 and phase-2 bindings (the
// backend's symbols, the public header checked against the table at compile time) and the
// clause-table oracle, all derived from the one table. A family adds what the table cannot say:
// ranks, dtypes, batching, attribute defaults, output shapes.
#ifndef GRADCONF_PROPERTIES_OP_ENTRY_PARAMS_H_
#define GRADCONF_PROPERTIES_OP_ENTRY_PARAMS_H_

#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/clause.h"
#include "core/params.h"
#include "harness/backend.h"
#include "op/op_spec.h"

namespace gradconf::props {

/// The C argument of parameter `param` as the created call holds it.
template <typename P>
typename P::c_type argument(const BoundArgs& a, const P& param) {
  using T = typename P::c_type;
  if constexpr (std::is_same_v<T, const aclTensor*> || std::is_same_v<T, aclTensor*>) {
    return a.tensor(param.name);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return a.int_attr(param.name);
  } else if constexpr (std::is_same_v<T, double>) {
    return a.double_attr(param.name);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a.bool_attr(param.name);
  } else if constexpr (std::is_same_v<T, char*>) {
    // The C API takes char*; no entry writes through it.
    return const_cast<char*>(a.string_attr(param.name));
  } else if constexpr (std::is_same_v<T, const aclIntArray*>) {
    return a.int_array(param.name);
  } else {
    static_assert(std::is_same_v<T, const aclBoolArray*>, "a C type the op model cannot bind");
    return a.bool_array(param.name);
  }
}

/// The op's raw arguments (its CallArgs) of a created call: what its clause table reads.
template <const auto& kEntry>
auto call_args(const BoundArgs& a) {
  return std::apply(
      [&](const auto&... param) {
        return kEntry.pack(argument(a, param)..., a.workspace_size(), a.executor());
      },
      kEntry.params);
}

/// Phase 1 of the entry on `backend`. kSymbol is the public header's declaration: it must have
/// the type the table describes.
template <const auto& kEntry, auto kSymbol>
aclnnStatus bound_phase1(const Backend& backend, const BoundArgs& a) {
  using Table = std::remove_cvref_t<decltype(kEntry)>;
  static_assert(std::is_same_v<decltype(kSymbol), typename Table::Phase1Fn*>,
                "the public header's phase 1 disagrees with the entry's parameter table");
  const auto fn = backend.entry(kEntry.phase1_symbol.data(), kSymbol);
  return std::apply(
      [&](const auto&... param) {
        return fn(argument(a, param)..., a.workspace_size(), a.executor());
      },
      kEntry.params);
}

template <const auto& kEntry, auto kSymbol>
Phase2 bound_phase2(const Backend& backend) {
  return backend.entry(kEntry.phase2_symbol.data(), kSymbol);
}

/// The clause table's verdict on a created call (our spec, independent of the backend).
template <const auto& kEntry, auto kClauseTable>
Verdict table_oracle(const BoundArgs& a, SpecProfile profile) {
  return run_clauses(kClauseTable(), call_args<kEntry>(a), profile);
}

/// What a family says of a parameter the table names: a tensor's rank, dtypes, batching and
/// shape rules; an attribute's default and nullability. Name, output flag and attribute kind come
/// from the table.
using RoleDetails = std::function<RoleSpec(std::string_view name)>;
using AttrDetails = std::function<AttrSpec(std::string_view name)>;

inline AttrKind attr_kind_of(ParamKind kind) {
  switch (kind) {
    case ParamKind::kInt:
      return AttrKind::kInt;
    case ParamKind::kDouble:
      return AttrKind::kDouble;
    case ParamKind::kBool:
      return AttrKind::kBool;
    case ParamKind::kString:
      return AttrKind::kString;
    case ParamKind::kIntList:
      return AttrKind::kIntList;
    case ParamKind::kBoolList:
      return AttrKind::kBoolList;
    case ParamKind::kInput:
    case ParamKind::kOutput:
      break;
  }
  throw std::logic_error("a tensor parameter is no attribute");
}

/// What a family says of an entry as a whole: its outputs' shapes, which outputs a successful
/// call writes (null: all) and the sizes that may be 0.
struct EntryRules {
  OutputShapeBinding output_shape = nullptr;
  WrittenBinding written = nullptr;
  std::vector<EmptySize> empty_sizes = {};
};

/// The entry spec of table kEntry: roles and attributes in C-prototype order with their
/// details, the bindings from the header's symbols and the clause table, and the family's rules.
template <const auto& kEntry, auto kPhase1, auto kPhase2, auto kClauseTable>
EntrySpec entry_from_params(std::string_view name, std::string_view family, const RoleDetails& role,
                            const AttrDetails& attr, EntryRules rules) {
  EntrySpec spec;
  spec.name = name;
  spec.family = family;
  spec.direction = kEntry.direction;
  spec.output_shape = rules.output_shape;
  spec.written = rules.written;
  spec.empty_sizes = std::move(rules.empty_sizes);
  std::apply(
      [&](const auto&... param) {
        auto add = [&](std::string_view param_name, ParamKind kind) {
          if (kind == ParamKind::kInput || kind == ParamKind::kOutput) {
            RoleSpec r = role(param_name);
            r.name = param_name;
            r.output = kind == ParamKind::kOutput;
            spec.roles.push_back(std::move(r));
          } else {
            AttrSpec a = attr(param_name);
            a.name = param_name;
            a.kind = attr_kind_of(kind);
            spec.attrs.push_back(std::move(a));
          }
        };
        (add(param.name, param.kind), ...);
      },
      kEntry.params);
  spec.phase1 = bound_phase1<kEntry, kPhase1>;
  spec.phase2 = bound_phase2<kEntry, kPhase2>;
  spec.oracle = table_oracle<kEntry, kClauseTable>;
  return spec;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_OP_ENTRY_PARAMS_H_
