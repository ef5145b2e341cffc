// One description of an entry point's C parameter list (spec side: no properties/ dependency).
// Each op declares, per entry, a constexpr table of its parameters in C-prototype order: the C
// name, the C type, and the CallArgs field it fills. From it:
// - the extern "C" body packs its arguments into CallArgs in one line (EntryParams::pack);
// - the public header is checked against it at compile time (EntryParams::Phase1Fn);
// - the suite derives the entry's role and attribute names and order, the phase-1 binding and the
//   clause-table oracle's CallArgs (properties/op/entry_params.h).
#ifndef GRADCONF_OPS_CORE_PARAMS_H_
#define GRADCONF_OPS_CORE_PARAMS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "aclnn/acl_meta.h"
#include "core/direction.h"

namespace gradconf {

/// What a parameter is to the op model: a tensor the call reads or writes, or an attribute.
enum class ParamKind : uint8_t {
  kInput,
  kOutput,
  kInt,
  kDouble,
  kBool,
  kString,
  kIntList,
  kBoolList
};

/// One C parameter: its name, kind and C type, and the field of Args it fills.
template <typename CType, typename Args, typename Field>
struct Param {
  using c_type = CType;
  using args_type = Args;
  std::string_view name;
  ParamKind kind;
  Field Args::*field;
};

template <typename Args>
constexpr auto input(std::string_view name, const aclTensor* Args::*field) {
  return Param<const aclTensor*, Args, const aclTensor*>{name, ParamKind::kInput, field};
}
/// An output tensor; its C type is the header's (aclTensor* or const aclTensor*).
template <typename CType = aclTensor*, typename Args>
constexpr auto output(std::string_view name, const aclTensor* Args::*field) {
  return Param<CType, Args, const aclTensor*>{name, ParamKind::kOutput, field};
}
template <typename Args>
constexpr auto int_attr(std::string_view name, int64_t Args::*field) {
  return Param<int64_t, Args, int64_t>{name, ParamKind::kInt, field};
}
template <typename Args>
constexpr auto double_attr(std::string_view name, double Args::*field) {
  return Param<double, Args, double>{name, ParamKind::kDouble, field};
}
template <typename Args>
constexpr auto bool_attr(std::string_view name, bool Args::*field) {
  return Param<bool, Args, bool>{name, ParamKind::kBool, field};
}
/// A char* attribute (null allowed where the op says so).
template <typename Args>
constexpr auto string_attr(std::string_view name, const char* Args::*field) {
  return Param<char*, Args, const char*>{name, ParamKind::kString, field};
}
template <typename Args>
constexpr auto int_list(std::string_view name, const aclIntArray* Args::*field) {
  return Param<const aclIntArray*, Args, const aclIntArray*>{name, ParamKind::kIntList, field};
}
template <typename Args>
constexpr auto bool_list(std::string_view name, const aclBoolArray* Args::*field) {
  return Param<const aclBoolArray*, Args, const aclBoolArray*>{name, ParamKind::kBoolList, field};
}

/// An entry point: its direction, its two C symbols, and its parameters before the two
/// out-pointers (workspaceSize, executor) every phase 1 ends with. Args has `direction`,
/// `workspace_size` and `executor` fields.
template <typename Args, typename... Ps>
struct EntryParams {
  Direction direction;
  std::string_view phase1_symbol;  ///< "aclnnXGetWorkspaceSize"
  std::string_view phase2_symbol;  ///< "aclnnX"
  std::tuple<Ps...> params;

  static constexpr size_t kCount = sizeof...(Ps);
  /// The phase-1 C function type the table describes; the public header must declare exactly it.
  using Phase1Fn = aclnnStatus(typename Ps::c_type..., uint64_t*, aclOpExecutor**);

  /// The raw arguments of one phase-1 call, from its C arguments in prototype order.
  Args pack(typename Ps::c_type... values, uint64_t* workspace_size,
            aclOpExecutor** executor) const {
    Args args;
    args.direction = direction;
    std::apply([&](const auto&... param) { ((args.*(param.field) = values), ...); }, params);
    args.workspace_size = workspace_size;
    args.executor = executor;
    return args;
  }
};

template <typename P, typename... Ps>
constexpr auto entry_params(Direction direction, std::string_view phase1_symbol,
                            std::string_view phase2_symbol, P first, Ps... rest) {
  return EntryParams<typename P::args_type, P, Ps...>{direction, phase1_symbol, phase2_symbol,
                                                      std::tuple<P, Ps...>{first, rest...}};
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PARAMS_H_
