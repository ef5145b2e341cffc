// `gradconf replay CASE_DIR --out OUT_DIR [--repeat N]`: runs one case folder through the C API.
//
// NOTE: the case is read and checked completely (every .npy, every attribute, every output size)
// before OUT_DIR is touched, so a bad case changes nothing but removing a stale status.json.
// status.json is written last: its presence means the outputs next to it belong to this run.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "cli/acl_driver.h"
#include "cli/case_file.h"
#include "cli/commands.h"
#include "cli/op_registry.h"
#include "core/dtype.h"
#include "core/parallel.h"
#include "core/tensor.h"  // kMaxRank, the aclTensor rank limit of the C API

#include "harness/backend.h"

namespace gradconf::cli {
namespace {

namespace fs = std::filesystem;
using caseio::CaseError;

struct PlannedOutput {
  const OutputDef* def;
  aclDataType dtype;
  std::vector<int64_t> shape;
};

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string known_ops() {
  std::string names;
  for (const auto& op : all_ops()) names += (names.empty() ? "" : ", ") + op.name;
  return names;
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;  // unknown: let aclrtMalloc decide
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// Shapes and dtypes of every output, checked so that building the call cannot fail on them.
std::vector<PlannedOutput> plan_outputs(const OpDef& op, const CallArgs& args,
                                        const std::string& where) {
  std::vector<PlannedOutput> planned;
  uint64_t total_bytes = 0;
  for (const auto& def : op.outputs) {
    PlannedOutput output{&def, def.dtype(args), def.shape(args)};
    const auto bytes = tensor_bytes(output.dtype, output.shape);
    if (!bytes || element_size(output.dtype) == 0 || output.shape.size() > kMaxRank) {
      throw CaseError(where + ": output '" + def.name + "' would have shape " +
                      shape_text(output.shape) + " of " + std::string(dtype_name(output.dtype)) +
                      ", which no aclTensor can hold");
    }
    total_bytes = *bytes > UINT64_MAX - total_bytes ? UINT64_MAX : total_bytes + *bytes;
    planned.push_back(std::move(output));
  }
  // Refuse up front rather than let the kernel fault in pages until the OOM killer steps in.
  if (total_bytes > physical_memory_bytes()) {
    throw RuntimeFailure("the outputs of this case need " + std::to_string(total_bytes) +
                         " bytes, more than this machine's memory");
  }
  return planned;
}

void check_input_ranks(const CallArgs& args, const std::string& where) {
  for (const auto& [name, tensor] : args.inputs) {
    if (tensor.shape.size() > kMaxRank) {
      throw CaseError(where + ": input '" + name + "' has " + std::to_string(tensor.shape.size()) +
                      " dims; an aclTensor has at most " + std::to_string(kMaxRank));
    }
  }
}

void remove_if_present(const fs::path& path) {
  std::error_code ignored;
  fs::remove(path, ignored);
}

// A stale file from an earlier replay into the same folder must not pass for this run's.
void remove_stale_results(const fs::path& out_dir, const OpDef* op) {
  remove_if_present(out_dir / caseio::kStatusFileName);
  if (op == nullptr) return;
  for (const auto& output : op->outputs) {
    remove_if_present(out_dir / (output.name + ".npy"));
    remove_if_present(out_dir / (output.name + ".npy.partial"));
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

// Phase 2 is timed `repeat` times, each with a fresh executor from an untimed phase 1. The
// outputs are not re-zeroed in between: the kernels define every element they write, and the
// outputs already saved come from the first, normal run.
nlohmann::ordered_json time_phase2(const OpDef& op, const BoundCall& call, aclrtStream stream,
                                   aclnnStatus first_status, int repeat) {
  nlohmann::ordered_json line;
  line["op"] = op.name;
  line["status"] = first_status;
  line["repeat"] = repeat;
  std::vector<double> times;
  if (first_status == ACLNN_SUCCESS) {
    for (int i = 0; i < repeat; ++i) {
      double ms = 0;
      const CallOutcome outcome = run_call(call, stream, &ms);
      if (outcome.status != ACLNN_SUCCESS) {
        throw RuntimeFailure("timed run " + std::to_string(i + 1) + " returned status " +
                             std::to_string(outcome.status) +
                             " after a successful first run: " + outcome.message);
      }
      times.push_back(ms);
    }
  }
  if (times.empty()) {
    line["median_ms"] = nullptr;  // a failing call has nothing worth timing
    line["min_ms"] = nullptr;
  } else {
    line["median_ms"] = median(times);
    line["min_ms"] = *std::min_element(times.begin(), times.end());
  }
  const auto& rt = props::Backend::linked().runtime();
  line["threads"] = rt.get_num_threads ? rt.get_num_threads() : 0;
  return line;
}

int replay(const ReplayOptions& options) {
  const fs::path case_dir(options.case_dir);
  const fs::path out_dir(options.out_dir);
  const std::string where = (case_dir / caseio::kCaseFileName).string();

  caseio::CaseFile case_file = caseio::read_case(case_dir);
  const OpDef* op = find_op(case_file.op);
  if (op == nullptr) {
    throw CaseError(where + ": unknown op '" + case_file.op + "' (known: " + known_ops() + ")");
  }
  const SpecProfile profile =
      options.profile.value_or(case_file.profile.value_or(SpecProfile::kSeed));
  const CallArgs args = bind_case_args(*op, std::move(case_file), where);
  check_input_ranks(args, where);
  const std::vector<PlannedOutput> planned = plan_outputs(*op, args, where);

  fs::create_directories(out_dir);
  remove_stale_results(out_dir, op);

  // The backend's own knobs (gradconf/aclnn_ext.h), not this binary's copy of core.
  const props::ScopedBackendProfile profile_guard(props::Backend::linked(), profile);
  const props::ScopedBackendThreads threads_guard(props::Backend::linked(), options.threads.value_or(0));

  AclSession session;
  std::vector<std::unique_ptr<DeviceTensor>> device_tensors;
  CallTensors tensors;
  for (const auto& [name, host] : args.inputs) {
    device_tensors.push_back(std::make_unique<DeviceTensor>(host));
    tensors.inputs.emplace(name, device_tensors.back()->get());
  }
  std::vector<const DeviceTensor*> output_tensors;
  for (const auto& output : planned) {
    device_tensors.push_back(std::make_unique<DeviceTensor>(output.dtype, output.shape));
    tensors.outputs.emplace(output.def->name, device_tensors.back()->get());
    output_tensors.push_back(device_tensors.back().get());
  }

  const BoundCall call = op->bind(args, tensors);
  const CallOutcome outcome = run_call(call, session.stream());

  caseio::StatusRecord record;
  record.status = outcome.status;
  record.message = outcome.message;
  record.op = op->name;
  record.profile = profile_name(profile);
  record.failed_phase = outcome.failed_phase;
  if (outcome.status == ACLNN_SUCCESS) {
    for (size_t i = 0; i < planned.size(); ++i) {
      const OutputDef& def = *planned[i].def;
      if (def.written && !def.written(args)) continue;
      caseio::write_npy(out_dir / (def.name + ".npy"),
                        caseio::npy_from_tensor(output_tensors[i]->download()));
      record.outputs.push_back(def.name);
    }
  }

  nlohmann::ordered_json timing;
  if (options.repeat) {
    timing = time_phase2(*op, call, session.stream(), outcome.status, *options.repeat);
  }
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
  try {
    return replay(options);
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
