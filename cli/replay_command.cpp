// `gradconf replay CASE_DIR --out OUT_DIR [--repeat N]`: runs one case folder through the C API.
//
// NOTE: the case is read and checked completely (every .npy, every attribute, every output size)
// before OUT_DIR is touched, so a bad case changes nothing but removing a stale status.json.
// status.json is written last: its presence means the outputs next to it belong to this run.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "cli/acl_driver.h"
#include "cli/backend_option.h"
#include "cli/case_file.h"
#include "cli/commands.h"
#include "cli/op_registry.h"
#include "core/dtype.h"
#include "core/tensor.h"  // kMaxRank, the aclTensor rank limit of the C API

#include "harness/backend.h"
#include "op/call.h"

namespace gradconf::cli {
namespace {

namespace fs = std::filesystem;
using caseio::CaseError;

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;  // unknown: let aclrtMalloc decide
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// Every output must fit an aclTensor and, together, this machine's memory: refuse up front
// rather than let the kernel fault in pages until the OOM killer steps in.
void check_outputs(const props::Call& call, const std::string& where) {
  uint64_t total_bytes = 0;
  for (const props::TensorSpec& spec : call.tensors) {
    if (!spec.output) continue;
    const auto bytes = tensor_bytes(spec.dtype, spec.dims);
    if (!bytes || element_size(spec.dtype) == 0 || spec.dims.size() > kMaxRank) {
      throw CaseError(where + ": output '" + spec.name + "' would have shape " +
                      shape_text(spec.dims) + " of " + std::string(dtype_name(spec.dtype)) +
                      ", which no aclTensor can hold");
    }
    total_bytes = *bytes > UINT64_MAX - total_bytes ? UINT64_MAX : total_bytes + *bytes;
  }
  if (total_bytes > physical_memory_bytes()) {
    throw RuntimeFailure("the outputs of this case need " + std::to_string(total_bytes) +
                         " bytes, more than this machine's memory");
  }
}

void check_input_ranks(const props::Call& call, const std::string& where) {
  for (const props::TensorSpec& spec : call.tensors) {
    if (!spec.output && spec.dims.size() > kMaxRank) {
      throw CaseError(where + ": input '" + spec.name + "' has " +
                      std::to_string(spec.dims.size()) + " dims; an aclTensor has at most " +
                      std::to_string(kMaxRank));
    }
  }
}

void remove_if_present(const fs::path& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
}

// A stale file from an earlier replay into the same folder must not pass for this run's.
void remove_stale_results(const fs::path& out_dir, const props::EntrySpec* op) {
  remove_if_present(out_dir / caseio::kStatusFileName);
  if (op == nullptr) return;
  for (const auto& role : op->roles) {
    if (!role.output) continue;
    remove_if_present(out_dir / (std::string(role.name) + ".npy"));
    remove_if_present(out_dir / (std::string(role.name) + ".npy.partial"));
  }
}

// Error messages may quote bytes of a hostile case file; keep the terminal's stream clean.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out.push_back(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// Phase 2 timed `repeat` times by the runner, each with a fresh executor from an untimed phase 1.
nlohmann::ordered_json timing_line(const props::EntrySpec& op, const props::Backend& backend,
                                   const props::Outcome& outcome, int repeat) {
  nlohmann::ordered_json line;
  line["op"] = op.name;
  line["status"] = outcome.status;
  line["repeat"] = repeat;
  if (outcome.status == ACLNN_SUCCESS && static_cast<int>(outcome.phase2_ms.size()) != repeat) {
    throw RuntimeFailure("timed runs failed after a successful first run: " + outcome.violations);
  }
  if (outcome.phase2_ms.empty()) {
    line["median_ms"] = nullptr;  // a failing call has nothing worth timing
    line["min_ms"] = nullptr;
  } else {
    line["median_ms"] = median(outcome.phase2_ms);
    line["min_ms"] = *std::min_element(outcome.phase2_ms.begin(), outcome.phase2_ms.end());
  }
  const auto& rt = backend.runtime();
  line["threads"] = rt.get_num_threads ? rt.get_num_threads() : 0;
  line["backend"] = backend.description();
  return line;
}

int replay(const ReplayOptions& options, const props::Backend& backend) {
  const fs::path case_dir(options.case_dir);
  const fs::path out_dir(options.out_dir);
  const std::string where = (case_dir / caseio::kCaseFileName).string();

  caseio::CaseFile case_file = caseio::read_case(case_dir);
  const props::EntrySpec* op = find_op(case_file.op);
  if (op == nullptr) {
    throw CaseError(where + ": unknown op '" + case_file.op + "' (known: " + known_ops() + ")");
  }
  const SpecProfile profile =
      options.profile.value_or(case_file.profile.value_or(SpecProfile::kSeed));
  const props::Call call = bind_case(*op, std::move(case_file), profile, where);
  check_input_ranks(call, where);
  check_outputs(call, where);

  fs::create_directories(out_dir);
  remove_stale_results(out_dir, op);

  // Timed runs see the split a user who sets the thread count gets, as gradconf bench's do; the
  // laws' fine split only on request.
  const props::ScopedBackendThreads threads_guard(backend, options.threads.value_or(0),
                                                  options.fine_split);
  AclSession session;
  props::RunOptions run_options;
  run_options.timed_repeats = options.repeat.value_or(0);
  const props::Outcome outcome = props::run(call, run_options, backend);
  if (outcome.status == ACLNN_ERR_INNER && outcome.failed_phase == 0) {
    throw RuntimeFailure(outcome.message);  // the runner could not set the call up
  }

  caseio::StatusRecord record;
  record.status = outcome.status;
  record.message = outcome.message;
  record.op = std::string(op->name);
  record.profile = profile_name(profile);
  if (outcome.failed_phase > 0) record.failed_phase = outcome.failed_phase;
  if (outcome.status == ACLNN_SUCCESS) {
    for (size_t i = 0; i < call.tensors.size(); ++i) {
      const props::TensorSpec& spec = call.tensors[i];
      if (!spec.output || (op->written && !op->written(call, spec.name))) continue;
      caseio::HostTensor host;
      host.dtype = spec.dtype;
      host.shape = spec.dims;
      const std::vector<uint8_t> bytes = props::encode(spec.dtype, outcome.values[i]);
      host.data.resize(bytes.size());
      std::memcpy(host.data.data(), bytes.data(), bytes.size());
      caseio::write_npy(out_dir / (spec.name + ".npy"), caseio::npy_from_tensor(host));
      record.outputs.push_back(spec.name);
    }
  }

  nlohmann::ordered_json timing;
  if (options.repeat) timing = timing_line(*op, backend, outcome, *options.repeat);
  caseio::write_status(out_dir, record);
  if (options.repeat) std::cout << timing.dump() << std::endl;
  return kExitOk;
}

}  // namespace

int run_replay(const ReplayOptions& options) {
  // Whatever went wrong, this run wrote no status.json (it is written last), so one found in
  // OUT_DIR is stale and must not suggest that this case ran.
  auto drop_stale_status = [&] {
    std::error_code ignored;
    if (fs::is_directory(options.out_dir, ignored)) {
      remove_if_present(fs::path(options.out_dir) / caseio::kStatusFileName);
    }
  };
  const auto backend = backend_option(options.backend, "replay");
  if (!backend) return kExitBadInput;
  try {
    return replay(options, *backend);
  } catch (const CaseError& error) {
    drop_stale_status();
    std::cerr << "gradconf replay: bad case: " << printable(error.what()) << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    drop_stale_status();
    std::cerr << "gradconf replay: out of host memory\n";
    return kExitRuntimeFailure;
  } catch (const std::exception& error) {
    drop_stale_status();
    std::cerr << "gradconf replay: " << printable(error.what()) << "\n";
    return kExitRuntimeFailure;
  }
}

}  // namespace gradconf::cli
