// The one place in the CLI that talks to the ACL runtime and runs the two phases. Like the
// properties harness it never dereferences device memory: storage comes from aclrtMalloc, data
// moves only with aclrtMemcpy, and phase 2 is followed by aclrtSynchronizeStream, so the binary
// can be linked against another implementation of the aclnn API (CANN on an Ascend machine).
#ifndef GRADCONF_CLI_ACL_DRIVER_H_
#define GRADCONF_CLI_ACL_DRIVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "cli/case_file.h"
#include "cli/op_registry.h"

namespace gradconf::cli {

/// The runtime failed (allocation, copy, stream): the case is fine but could not be run here.
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// aclInit + aclrtSetDevice + a stream, released in reverse order. Create it before any
/// DeviceTensor and let it outlive them.
class AclSession {
 public:
  explicit AclSession(int32_t device_id = 0);
  ~AclSession();
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;

  aclrtStream stream() const { return stream_; }

 private:
  int32_t device_id_;
  aclrtStream stream_ = nullptr;
};

/// A contiguous ND tensor in device memory: its storage and its aclTensor view.
class DeviceTensor {
 public:
  /// Allocates and zero-fills (outputs start from zeros, so an untouched element is visible).
  DeviceTensor(aclDataType dtype, std::vector<int64_t> shape);
  /// Allocates and uploads `host`.
  explicit DeviceTensor(const HostTensor& host);

  aclTensor* get() const { return tensor_.get(); }
  HostTensor download() const;

 private:
  struct StorageDeleter {
    void operator()(void* storage) const { aclrtFree(storage); }
  };
  struct TensorDeleter {
    void operator()(aclTensor* tensor) const { aclDestroyTensor(tensor); }
  };

  aclDataType dtype_;
  std::vector<int64_t> shape_;
  size_t bytes_ = 0;
  size_t allocated_ = 0;
  // Declared before the view so that the view is destroyed first.
  std::unique_ptr<void, StorageDeleter> storage_;
  std::unique_ptr<aclTensor, TensorDeleter> tensor_;
};

/// Bytes of a contiguous tensor, or nullopt when the count overflows.
std::optional<uint64_t> tensor_bytes(aclDataType dtype, const std::vector<int64_t>& shape);

/// Attribute arrays for phase 1, destroyed with aclDestroy*Array; null `values` gives a null
/// pointer (the C API's "absent" optional array).
std::shared_ptr<aclIntArray> make_int_array(const std::vector<int64_t>* values);
std::shared_ptr<aclBoolArray> make_bool_array(const std::vector<bool>* values);

/// What one run of a call returned.
struct CallOutcome {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string message;              // aclGetRecentErrMsg() right after the failing phase
  std::optional<int> failed_phase;  // 1 or 2
  uint64_t workspace_size = 0;
};

/// Phase 1, workspace, phase 2, synchronize. An op error is reported in the outcome; a runtime
/// failure throws RuntimeFailure. When `phase2_ms` is given it receives the wall time of phase 2
/// plus the synchronisation (phase 1 and the workspace allocation are not timed).
CallOutcome run_call(const BoundCall& call, aclrtStream stream, double* phase2_ms = nullptr);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_ACL_DRIVER_H_
