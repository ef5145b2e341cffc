// Checks that many ops' clause tables share, over named tensors (the C parameter names, which the
// messages quote): non-null, a dtype among a list, one dtype for all, disjoint output views.
#ifndef GRADCONF_OPS_CORE_CLAUSE_CHECKS_H_
#define GRADCONF_OPS_CORE_CLAUSE_CHECKS_H_

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/params.h"
#include "core/tensor.h"

namespace gradconf {

struct NamedTensor {
  const char* name;
  const aclTensor* tensor;
};

/// Which tensor parameters of an entry: its inputs, its outputs, or all of them.
enum class TensorParams : uint8_t { kInputs, kOutputs, kAll };

/// The tensor parameters of an entry's table (core/params.h) in prototype order, named as the C
/// prototype names them (the table's names are string literals, so `name` ends in NUL).
template <typename Args, typename... Ps>
std::vector<NamedTensor> named_tensors(const EntryParams<Args, Ps...>& entry, const Args& args,
                                       TensorParams which) {
  std::vector<NamedTensor> named;
  const auto add = [&](const auto& param) {
    if constexpr (std::is_same_v<decltype(args.*(param.field)), const aclTensor* const&>) {
      const bool wanted = param.kind == ParamKind::kInput ? which != TensorParams::kOutputs
                                                          : which != TensorParams::kInputs;
      if (wanted) named.push_back({param.name.data(), args.*(param.field)});
    }
  };
  std::apply([&](const auto&... param) { (add(param), ...); }, entry.params);
  return named;
}

/// The same for whichever of an op's two entries `args` calls.
template <typename Args, typename Forward, typename Backward>
std::vector<NamedTensor> named_tensors(const Forward& forward, const Backward& backward,
                                       const Args& args, TensorParams which) {
  return args.direction == Direction::kBackward ? named_tensors(backward, args, which)
                                                : named_tensors(forward, args, which);
}

/// The first null tensor, else a null workspaceSize or executor out-pointer.
std::optional<std::string> check_non_null(std::span<const NamedTensor> tensors,
                                          const uint64_t* workspace_size,
                                          aclOpExecutor* const* executor);

/// Every tensor's dtype is one of `allowed`.
std::optional<std::string> check_dtype_in(std::span<const NamedTensor> tensors,
                                          std::initializer_list<aclDataType> allowed);

/// Every tensor has the dtype of the first.
std::optional<std::string> check_same_dtype(std::span<const NamedTensor> tensors);

/// Every tensor's format is ND, or NCHW/NHWC (aliases of ND) on a 4-D tensor (spec README §3).
/// Null tensors are skipped (a null clause decides them).
std::optional<std::string> check_format_nd(std::span<const NamedTensor> tensors);

/// Every tensor has rank `rank`.
std::optional<std::string> check_rank(std::span<const NamedTensor> tensors, int64_t rank);

/// Every output view addresses each of its elements once (spec README §3).
std::optional<std::string> check_disjoint(std::span<const NamedTensor> outputs);

/// A C string attribute that must equal `expected`, or may also be null where `null_allowed`.
/// The message quotes at most the first 64 bytes of what it got, then "...": a caller's string
/// need not be terminated within any bound we know, so no more than 65 bytes of it are read.
std::optional<std::string> check_string_attr(std::string_view name, const char* value,
                                             std::string_view expected, bool null_allowed);

/// "expected <name> of sizes [..], but got [..]" unless the view has exactly `dims`.
std::optional<std::string> check_dims(const NamedTensor& tensor, std::span<const int64_t> dims);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_CLAUSE_CHECKS_H_
