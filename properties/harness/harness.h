// The one place that turns a call description into aclTensors and runs the two phases. It is
// backend-agnostic like the seed call example: storage comes from aclrtMalloc, data moves only
// through aclrtMemcpy, views are made with aclCreateTensor, and a tensor's data pointer is never
// dereferenced; so the same laws run against any linked aclnn implementation.
//
// Every storage is larger than its view: inputs carry NaN in gaps, outputs are pre-filled with a
// canary byte pattern, and a guard follows the workspace. After the call the harness reads every
// storage back and reports what was written where it should not have been.
#ifndef GRADCONF_PROPERTIES_HARNESS_HARNESS_H_
#define GRADCONF_PROPERTIES_HARNESS_HARNESS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/layout.h"
#include "harness/dtype_codec.h"

namespace gradconf::props {

class Backend;

/// One tensor argument of a call.
struct TensorSpec {
  std::string name;  ///< the C API parameter name
  std::vector<int64_t> dims;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  LayoutSpec layout;
  bool output = false;
  bool null = false;           ///< pass nullptr instead of a tensor
  std::vector<double> values;  ///< inputs: logical row-major values (already in the dtype)
};

/// Phase 1 of one op, given the created tensors in TensorSpec order (nullptr where `null`).
using Phase1 = std::function<aclnnStatus(std::span<aclTensor* const> tensors,
                                         uint64_t* workspace_size, aclOpExecutor** executor)>;
using Phase2 = aclnnStatus (*)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                               aclrtStream stream);

enum class WorkspaceFill { kZero, kGarbage };

struct RunOptions {
  WorkspaceFill workspace_fill = WorkspaceFill::kZero;
  uint64_t workspace_shortfall = 0;  ///< pass workspaceSize minus this to phase 2
  int threads = 0;                   ///< >0: the backend's kernel threads for this run
  int phase1_threads = 0;            ///< >0: a different thread count for phase 1 only
  /// With `threads`: split even small calls across them (the laws want the workers used). The
  /// benchmarks time the backend's own splitting, as a user who sets the count gets it.
  bool fine_split = true;
  bool misaligned_workspace = false;  ///< pass a workspace pointer that is not 64-byte aligned
  bool null_workspace = false;        ///< pass nullptr as the workspace (with its size)
  bool query_twice = false;           ///< call phase 1 twice (idempotence), run the second
  bool skip_phase2 = false;           ///< phase 1 only (the executor is destroyed unrun)
  bool check_phase1_purity = false;   ///< after phase 1: is every storage byte as prepared?
  bool run_phase2_twice = false;      ///< run the executor again after it ran (single use)
  /// false: Outcome::values stays empty; statuses, canaries and guards are still read (a law that
  /// judges a refused call has no values to read, and decoding a large output costs more than it).
  bool read_values = true;
  int timed_repeats = 0;  ///< after a successful run: time phase 2 this many times,
                          ///< each with a fresh executor from an untimed phase 1
  /// After a successful phase 1, before phase 2: new logical values for input tensors (index in
  /// TensorSpec order, one value per view element), as a caller may change data between the
  /// phases. Phase 2 must then neither read nor write out of bounds.
  std::vector<std::pair<size_t, std::vector<double>>> rewrite_between_phases;
};

/// Options that leave Outcome::values unread: for calls judged by statuses, canaries and guards.
inline RunOptions values_unread() {
  RunOptions options;
  options.read_values = false;
  return options;
}

struct Outcome {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string message;   ///< aclGetRecentErrMsg() after the failing phase
  int failed_phase = 0;  ///< 0 none, 1 or 2
  uint64_t workspace_size = 0;
  bool workspace_sizes_agree = true;  ///< query_twice: both phase-1 calls gave the same size
  /// check_phase1_purity: the tensors phase 1 wrote into (comma-separated; "" if none).
  std::string phase1_writes;
  aclnnStatus second_run_status = ACLNN_SUCCESS;  ///< run_phase2_twice: status of the rerun
  std::string second_run_message;                 ///< and its aclGetRecentErrMsg()
  /// Per TensorSpec: outputs' logical values read back through the view (empty for inputs).
  std::vector<std::vector<double>> values;
  /// Per TensorSpec: true when no element of the output's view changed (still the canary).
  std::vector<bool> view_untouched;
  bool inputs_untouched = true;         ///< no byte of any input storage changed
  bool outside_views_untouched = true;  ///< gaps, offsets and tails of outputs unchanged
  bool workspace_guard_intact = true;   ///< nothing written past workspaceSize
  std::string violations;               ///< human-readable list of the above failures
  std::vector<double> phase2_ms;        ///< timed_repeats: phase 2 + synchronize, milliseconds

  bool ok() const { return status == ACLNN_SUCCESS; }
};

/// Runs one call. Tensors whose storage cannot be created (aclCreateTensor returns nullptr) make
/// the outcome fail with ACLNN_ERR_INNER and a message naming the tensor.
Outcome run_call(std::span<const TensorSpec> tensors, const Phase1& phase1, Phase2 phase2,
                 const RunOptions& options, const Backend& backend);

/// Frees what this thread keeps between calls (recent views, spare host images and device
/// blocks). A fuzz target calls it after each input: libFuzzer takes an input that ends with more
/// allocations than it freed for a possible leak and runs LeakSanitizer on it, which on three
/// inputs in four cost more than the input itself.
void release_thread_caches();

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_HARNESS_HARNESS_H_
