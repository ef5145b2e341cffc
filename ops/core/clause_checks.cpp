#include "core/clause_checks.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace gradconf {
namespace {
std::string dims_text(std::span<const int64_t> dims) {
  return format_dims(dims.data(), dims.size());
}
}  // namespace

std::optional<std::string> check_non_null(std::span<const NamedTensor> tensors,
                                          const uint64_t* workspace_size,
                                          aclOpExecutor* const* executor) {
  for (const auto& [name, t] : tensors) {
    if (t == nullptr) return std::string("expected ") + name + " to be non-null, but got nullptr";
  }
  if (workspace_size == nullptr) return "expected workspaceSize to be non-null, but got nullptr";
  if (executor == nullptr) return "expected executor to be non-null, but got nullptr";
  return std::nullopt;
}

std::optional<std::string> check_dtype_in(std::span<const NamedTensor> tensors,
                                          std::initializer_list<aclDataType> allowed) {
  for (const auto& [name, t] : tensors) {
    bool ok = false;
    for (aclDataType a : allowed) ok = ok || t->dtype == a;
    if (ok) continue;
    std::string list;
    for (aclDataType a : allowed) list += (list.empty() ? "" : ", ") + std::string(dtype_name(a));
    return std::string("expected ") + name + " of dtype " + list + ", but got " +
           std::string(dtype_name(t->dtype));
  }
  return std::nullopt;
}

std::optional<std::string> check_same_dtype(std::span<const NamedTensor> tensors) {
  if (tensors.empty()) return std::nullopt;
  const NamedTensor& first = tensors.front();
  for (const auto& [name, t] : tensors) {
    if (t->dtype != first.tensor->dtype) {
      return std::string("expected ") + name + " of " + first.name + "'s dtype " +
             std::string(dtype_name(first.tensor->dtype)) + ", but got " +
             std::string(dtype_name(t->dtype));
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_format_nd(std::span<const NamedTensor> tensors) {
  for (const auto& [name, t] : tensors) {
    if (t == nullptr || t->format == ACL_FORMAT_ND) continue;
    const bool alias = t->format == ACL_FORMAT_NCHW || t->format == ACL_FORMAT_NHWC;
    if (alias && rank(*t) == 4) continue;
    return std::string("expected ") + name +
           " in format ND (NCHW and NHWC only as aliases of ND on 4-D tensors), but got "
           "aclFormat " +
           std::to_string(static_cast<int>(t->format)) + " on a " + std::to_string(rank(*t)) +
           "-D tensor";
  }
  return std::nullopt;
}

std::optional<std::string> check_rank(std::span<const NamedTensor> tensors, int64_t r) {
  for (const auto& [name, t] : tensors) {
    if (rank(*t) != r) {
      return std::string("expected ") + name + " to be " + std::to_string(r) + "-D, but got " +
             describe(*t);
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_string_attr(std::string_view name, const char* value,
                                             std::string_view expected, bool null_allowed) {
  constexpr size_t kShown = 64;
  if (value == nullptr ? null_allowed
                       : std::string_view(value, strnlen(value, kShown + 1)) == expected)
    return std::nullopt;
  const std::string wanted =
      std::string(null_allowed ? "null or " : "") + "\"" + std::string(expected) + "\"";
  if (value == nullptr) return "expected " + std::string(name) + " " + wanted + ", but got nullptr";
  std::string got(value, strnlen(value, kShown));
  if (got.size() == kShown) got += "...";
  return "expected " + std::string(name) + " " + wanted + ", but got \"" + got + "\"";
}

std::optional<std::string> check_disjoint(std::span<const NamedTensor> outputs) {
  for (const auto& [name, t] : outputs) {
    const Overlap o = overlap_of(*t);
    if (o == Overlap::kDisjoint) continue;
    return std::string("expected ") + name +
           (o == Overlap::kOverlapping
                ? " to address each element once, but got strides "
                : " to be nested, to interleave at most two axes, or to span fewer than 2^28 "
                  "elements, but got strides ") +
           dims_text(t->strides) + " for sizes " + dims_text(t->view_dims);
  }
  return std::nullopt;
}

std::optional<std::string> check_dims(const NamedTensor& tensor, std::span<const int64_t> dims) {
  const auto& got = tensor.tensor->view_dims;
  if (std::ranges::equal(dims, got)) return std::nullopt;
  return std::string("expected ") + tensor.name + " of sizes " + dims_text(dims) + ", but got " +
         dims_text(got);
}

}  // namespace gradconf
