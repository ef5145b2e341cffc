#include "cli/acl_driver.h"

#include <algorithm>
#include <chrono>

#include "core/checked_math.h"
#include "core/dtype.h"

namespace gradconf::cli {
namespace {

void check(aclError error, const std::string& call) {
  if (error != ACL_SUCCESS) {
    throw RuntimeFailure(call + " failed with ACL error " + std::to_string(error));
  }
}

// Another backend may return null when it has nothing to say.
std::string recent_error_message() {
  const char* message = aclGetRecentErrMsg();
  return message ? message : "";
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

}  // namespace

AclSession::AclSession(int32_t device_id) : device_id_(device_id) {
  check(aclInit(nullptr), "aclInit");
  if (aclError error = aclrtSetDevice(device_id_); error != ACL_SUCCESS) {
    aclFinalize();
    check(error, "aclrtSetDevice(" + std::to_string(device_id_) + ")");
  }
  if (aclError error = aclrtCreateStream(&stream_); error != ACL_SUCCESS) {
    aclrtResetDevice(device_id_);
    aclFinalize();
    check(error, "aclrtCreateStream");
  }
}

AclSession::~AclSession() {
  aclrtDestroyStream(stream_);
  aclrtResetDevice(device_id_);
  aclFinalize();
}

std::optional<uint64_t> tensor_bytes(aclDataType dtype, const std::vector<int64_t>& shape) {
  const auto count = checked_numel(shape);
  if (!count) return std::nullopt;
  const auto bytes = checked_mul(*count, element_size(dtype));
  if (!bytes) return std::nullopt;
  return static_cast<uint64_t>(*bytes);
}

DeviceTensor::DeviceTensor(aclDataType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  const auto bytes = tensor_bytes(dtype_, shape_);
  if (!bytes || element_size(dtype_) == 0) {
    throw RuntimeFailure("cannot size a " + std::string(dtype_name(dtype_)) + " tensor");
  }
  bytes_ = *bytes;
  // The device runtime refuses zero-byte allocations; an empty tensor still needs an address.
  allocated_ = std::max<size_t>(bytes_, 1);
  void* storage = nullptr;
  check(aclrtMalloc(&storage, allocated_, ACL_MEM_MALLOC_HUGE_FIRST),
        "aclrtMalloc(" + std::to_string(allocated_) + " bytes)");
  storage_.reset(storage);
  if (bytes_ > 0) check(aclrtMemset(storage, allocated_, 0, bytes_), "aclrtMemset");

  const std::vector<int64_t> strides = contiguous_strides(shape_);
  tensor_.reset(aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides.data(), 0,
                                ACL_FORMAT_ND, shape_.data(), shape_.size(), storage));
  if (!tensor_) throw RuntimeFailure("aclCreateTensor refused a contiguous tensor");
}

DeviceTensor::DeviceTensor(const HostTensor& host) : DeviceTensor(host.dtype, host.shape) {
  if (host.data.size() != bytes_) throw RuntimeFailure("host tensor size does not match its shape");
  if (bytes_ > 0) {
    check(aclrtMemcpy(storage_.get(), allocated_, host.data.data(), bytes_,
                      ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy(host to device)");
  }
}

HostTensor DeviceTensor::download() const {
  HostTensor host;
  host.dtype = dtype_;
  host.shape = shape_;
  host.data.resize(bytes_);
  if (bytes_ > 0) {
    check(aclrtMemcpy(host.data.data(), host.data.size(), storage_.get(), bytes_,
                      ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy(device to host)");
  }
  return host;
}

std::shared_ptr<aclIntArray> make_int_array(const std::vector<int64_t>* values) {
  if (values == nullptr) return nullptr;
  aclIntArray* array = aclCreateIntArray(values->data(), values->size());
  if (array == nullptr) throw RuntimeFailure("aclCreateIntArray failed");
  return {array, [](aclIntArray* a) { aclDestroyIntArray(a); }};
}

std::shared_ptr<aclBoolArray> make_bool_array(const std::vector<bool>* values) {
  if (values == nullptr) return nullptr;
  // std::vector<bool> is packed; the C API wants a plain bool[].
  const auto plain = std::make_unique<bool[]>(std::max<size_t>(values->size(), 1));
  std::copy(values->begin(), values->end(), plain.get());
  aclBoolArray* array = aclCreateBoolArray(plain.get(), values->size());
  if (array == nullptr) throw RuntimeFailure("aclCreateBoolArray failed");
  return {array, [](aclBoolArray* a) { aclDestroyBoolArray(a); }};
}

CallOutcome run_call(const BoundCall& call, aclrtStream stream, double* phase2_ms) {
  CallOutcome outcome;
  aclOpExecutor* executor = nullptr;
  outcome.status = call.get_workspace_size(&outcome.workspace_size, &executor);
  if (outcome.status != ACLNN_SUCCESS) {
    outcome.message = recent_error_message();
    outcome.failed_phase = 1;
    return outcome;
  }

  struct WorkspaceDeleter {
    void operator()(void* workspace) const { aclrtFree(workspace); }
  };
  std::unique_ptr<void, WorkspaceDeleter> workspace;
  if (outcome.workspace_size > 0) {
    void* raw = nullptr;
    const aclError error = aclrtMalloc(&raw, outcome.workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (error != ACL_SUCCESS) {
      aclDestroyAclOpExecutor(executor);
      check(error,
            "aclrtMalloc(workspace of " + std::to_string(outcome.workspace_size) + " bytes)");
    }
    workspace.reset(raw);
  }

  const auto start = std::chrono::steady_clock::now();
  outcome.status = call.execute(workspace.get(), outcome.workspace_size, executor, stream);
  if (outcome.status != ACLNN_SUCCESS) {
    outcome.message = recent_error_message();
    outcome.failed_phase = 2;
    return outcome;
  }
  check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  const auto stop = std::chrono::steady_clock::now();
  if (phase2_ms) *phase2_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  return outcome;
}

}  // namespace gradconf::cli
