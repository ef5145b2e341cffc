#include "op/predict.h"

#include <cstring>
#include <memory>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/layout.h"
#include "core/tensor.h"
#include "op/op_spec.h"

namespace gradconf::props {
namespace {
// Index tensors are read by data-dependent clauses; anything larger than this is refused by a
// shape clause long before its values matter.
constexpr int64_t kMaxModelledIndexBytes = int64_t{1} << 26;
}  // namespace

ExpectedVerdict predict(const Call& call) {
  // Float storage is never read by validation; any non-null address will do.
  static std::byte dummy_storage[8];
  ExpectedVerdict verdict;
  std::vector<std::unique_ptr<aclTensor>> owned;
  std::vector<std::vector<uint8_t>> storages;
  std::vector<aclTensor*> handles(call.tensors.size(), nullptr);
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    const TensorSpec& spec = call.tensors[i];
    if (spec.null) continue;
    const auto geometry = make_geometry(spec.dims, spec.layout);
    std::optional<aclTensor> tensor;
    if (geometry) {
      void* data = dummy_storage;
      const RoleSpec* role = call.entry ? call.entry->role(spec.name) : nullptr;
      const bool indices = role && role->dtype_class == DtypeClass::kIndex && !spec.output;
      const int64_t esize = element_size(spec.dtype);
      const auto bytes = esize > 0 ? checked_mul(geometry->storage_numel, esize) : std::nullopt;
      if (indices && bytes && *bytes <= kMaxModelledIndexBytes) {
        // Sized exactly as the harness sizes it, holding the call's values at the view's offsets.
        std::vector<uint8_t> storage(static_cast<size_t>(std::max<int64_t>(*bytes, 1)), 0);
        const int64_t count = checked_numel(spec.dims).value_or(0);
        std::vector<int64_t> index(spec.dims.size(), 0);
        for (int64_t e = 0; e < count; ++e) {
          int64_t offset = geometry->offset;
          for (size_t d = 0; d < spec.dims.size(); ++d) offset += index[d] * geometry->strides[d];
          const double v = static_cast<size_t>(e) < spec.values.size()
                               ? spec.values[static_cast<size_t>(e)]
                               : 0.0;
          const auto encoded = encode(spec.dtype, std::span<const double>(&v, 1));
          std::memcpy(storage.data() + offset * esize, encoded.data(), encoded.size());
          for (size_t d = spec.dims.size(); d-- > 0;) {
            if (++index[d] < spec.dims[d]) break;
            index[d] = 0;
          }
        }
        storages.push_back(std::move(storage));
        data = storages.back().data();
      }
      const int64_t storage_dims[1] = {geometry->storage_numel};
      tensor = make_tensor(spec.dims.data(), spec.dims.size(), spec.dtype, geometry->strides.data(),
                           geometry->offset, spec.format, storage_dims, 1, data);
    }
    if (!tensor) {
      verdict.views_created = false;
      continue;
    }
    owned.push_back(std::make_unique<aclTensor>(std::move(*tensor)));
    handles[i] = owned.back().get();
  }

  const AttrArguments attrs(call, nullptr);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const BoundArgs args(call, handles, attrs.handles(), &workspace_size, &executor);
  const Verdict table_verdict = call.entry->oracle(args, call.profile);
  verdict.status = table_verdict.status;
  verdict.clause_id = std::string(table_verdict.clause_id);
  verdict.message = table_verdict.message;
  return verdict;
}

}  // namespace gradconf::props
