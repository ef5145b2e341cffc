// gradconf export / compare: golden data for a device. export writes case folders (the replay
// format) whose case.json also carries what the spec expects: the status, and for valid cases the
// double reference of every wanted output rounded to its dtype (expected/<output>.npy). compare
// judges another implementation's replay outputs against them with the precision standard
// (properties/compare/tolerance.cpp) and writes the same four report files as `gradconf check`.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "cli/case_file.h"
#include "cli/commands.h"
#include "cli/report_files.h"
#include "compare/compare.h"
#include "core/dtype.h"
#include "core/repro.h"
#include "op/predict.h"
#include "registry/registry.h"
#include "reports/src/render.h"

namespace gradconf::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json attr_json(const props::AttrValue& value) {
  return std::visit(
      [](const auto& v) -> json {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<V, std::vector<bool>>) {
          json list = json::array();
          for (bool b : v) list.push_back(b);
          return list;
        } else {
          return v;
        }
      },
      value);
}

caseio::HostTensor host_tensor(aclDataType dtype, const std::vector<int64_t>& dims,
                               const std::vector<double>& values) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (static_cast<int64_t>(values.size()) != count) {
    throw std::runtime_error("a tensor of " + std::to_string(count) + " elements holds " +
                             std::to_string(values.size()) + " values");
  }
  const std::vector<uint8_t> bytes = props::encode(dtype, values);
  caseio::HostTensor t{dtype, dims, {}};
  t.data.resize(bytes.size());
  std::memcpy(t.data.data(), bytes.data(), bytes.size());
  return t;
}

/// A case file holds dense tensors, every required input, outputs shaped by the op: a boundary
/// case whose breaker edited something else (a stride, a null output, an out-pointer) is not a
/// case file. Returns the dense call, or nullopt.
std::optional<props::Call> dense_call(const props::CaseRecord& record) {
  props::Call call = record.call;
  if (call.null_workspace_size || call.null_executor) return std::nullopt;
  for (props::TensorSpec& t : call.tensors) {
    const props::RoleSpec* role = call.entry->role(t.name);
    if (t.null && (t.output || !role || !role->optional)) return std::nullopt;
    if (!caseio::is_case_dtype(t.dtype)) return std::nullopt;
    t.layout = {};
    // A breaker that resized a tensor left its values behind: a status-only case carries zeros.
    int64_t count = 1;
    for (int64_t d : t.dims) count = d > 0 && count <= (int64_t{1} << 26) / d ? count * d : 0;
    if (!t.output && !record.clause.empty() && static_cast<int64_t>(t.values.size()) != count) {
      if (count == 0 && !t.dims.empty() &&
          std::none_of(t.dims.begin(), t.dims.end(), [](int64_t d) { return d == 0; })) {
        return std::nullopt;  // too big for a golden file
      }
      t.values.assign(static_cast<size_t>(count), 0.0);
    }
  }
  props::Call shaped = call;
  call.entry->shape_outputs(shaped);
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    // A case file describes inputs only; replay makes outputs in ND from the inputs.
    if (call.tensors[i].output && (call.tensors[i].dims != shaped.tensors[i].dims ||
                                   call.tensors[i].dtype != shaped.tensors[i].dtype ||
                                   call.tensors[i].format != ACL_FORMAT_ND)) {
      return std::nullopt;
    }
  }
  return call;
}

void write_golden_case(const fs::path& dir, const props::CaseRecord& record,
                       const props::Call& call, aclnnStatus status) {
  caseio::CaseFile file;
  file.op = std::string(call.entry->name);
  file.profile = call.profile;
  for (size_t a = 0; a < call.entry->attrs.size() && a < call.attrs.size(); ++a) {
    file.attrs[std::string(call.entry->attrs[a].name)] = attr_json(call.attrs[a]);
  }
  for (const props::TensorSpec& t : call.tensors) {
    if (t.output || t.null) continue;
    try {
      file.inputs[t.name] = {t.name + ".npy", host_tensor(t.dtype, t.dims, t.values), t.format};
    } catch (const std::exception& e) {
      throw std::runtime_error(record.repro + ": input " + t.name + ": " + e.what());
    }
  }
  json expected = {{"status", status}, {"outputs", json::object()}};
  fs::create_directories(dir / "expected");
  if (status == ACLNN_SUCCESS) {
    for (const props::ExpectedOutput& e : record.expected) {
      const aclDataType dtype = call.tensors[static_cast<size_t>(e.tensor)].dtype;
      const std::string file_name = "expected/" + e.name + ".npy";
      caseio::write_npy(dir / file_name,
                        caseio::npy_from_tensor(host_tensor(dtype, e.dims, e.values)));
      expected["outputs"][e.name] = {{"file", file_name}, {"dtype", dtype_name(dtype)}};
    }
  }
  file.other_keys["expected"] = expected;
  file.other_keys["repro"] = record.repro;
  if (!record.clause.empty()) {
    file.other_keys["clause"] = record.clause;
    file.other_keys["side"] = record.just_valid ? "just-valid" : "just-invalid";
  }
  file.other_keys["note"] =
      "gradconf export: expected.outputs are the double reference rounded to the output dtype; "
      "expected.status is the status gradconf's clause tables give these arguments (the spec's "
      "validation tables as we implemented them; the hand-written clause rows in tests/ check "
      "them against the seed documents)";
  caseio::write_case(dir, file);
}

std::vector<double> decode_tensor(const caseio::HostTensor& t) {
  return props::decode(t.dtype,
                       std::span(reinterpret_cast<const uint8_t*>(t.data.data()), t.data.size()));
}

std::string now_stamp() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return stamp;
}

// One case folder per repro line (a failure a law printed, to take to a device): repro_<i>.
int export_repro_lines(const ExportOptions& options) {
  for (size_t i = 0; i < options.repro_lines.size(); ++i) {
    const std::optional<props::CaseRecord> record = props::parse_repro_line(options.repro_lines[i]);
    if (!record) {
      std::cerr << "gradconf export: not a problem repro line of any registered op: '"
                << options.repro_lines[i] << "'\n";
      return kExitBadInput;
    }
    const auto call = dense_call(*record);
    if (!call) {
      std::cerr << "gradconf export: the case of '" << options.repro_lines[i]
                << "' has no dense form\n";
      return kExitBadInput;
    }
    // A repro line may state a call that validation refuses (a boundary case a law printed):
    // its expected status is the clause tables' verdict, as for --edge cases, not success.
    const props::ExpectedVerdict verdict = props::predict(*call);
    if (!verdict.views_created) {
      std::cerr << "gradconf export: the case of '" << options.repro_lines[i]
                << "' has a view aclCreateTensor refuses\n";
      return kExitBadInput;
    }
    write_golden_case(fs::path(options.out_dir) / ("repro_" + std::to_string(i)), *record, *call,
                      verdict.status);
  }
  std::cout << "gradconf export: " << options.repro_lines.size() << " cases in " << options.out_dir
            << "\n";
  return kExitOk;
}

}  // namespace

int run_export(const ExportOptions& options) {
  if (!options.repro_lines.empty()) return export_repro_lines(options);
  // Each wanted entry's matches_reference binding, with its family's boundary cases.
  std::vector<std::pair<const props::LawBinding*, const props::LawBinding*>> bindings;
  for (const props::OpFamily* family : props::op_families()) {
    const props::LawBinding* boundary = nullptr;
    for (const props::LawBinding& law : family->laws) {
      if (law.law == "error_contract") boundary = &law;
    }
    for (const props::LawBinding& law : family->laws) {
      const bool wanted = std::any_of(
          options.ops.begin(), options.ops.end(),
          [&](const std::string& op) { return op == family->family || op == law.entry; });
      if (law.law == "matches_reference" && wanted) bindings.emplace_back(&law, boundary);
    }
  }
  if (bindings.empty()) {
    std::cerr << "gradconf export: no op named";
    for (const auto& op : options.ops) std::cerr << " '" << op << "'";
    std::cerr << " (gradconf list names the entries; families are folder names)\n";
    return kExitBadInput;
  }
  int written = 0;
  for (const auto& [law, boundary] : bindings) {
    int count = 0;
    // Draw until N cases of the wanted dtype are written; a dtype the op never draws ends the
    // loop after 64 draws per wanted case.
    for (int i = 0; count < options.count && i < 64 * options.count; ++i) {
      const bool edge_case = options.edge && boundary && i % 2 == 1;
      props::CaseRecord record =
          props::law_case_record(edge_case ? *boundary : *law, i, options.seed);
      if (record.call.entry->name != law->entry) continue;
      if (!options.dtype.empty() && dtype_repro_name(record.dtype) != options.dtype) continue;
      const auto call = dense_call(record);
      if (!call) continue;
      aclnnStatus status = ACLNN_SUCCESS;
      if (edge_case) {
        const props::ExpectedVerdict verdict = props::predict(*call);
        if (!verdict.views_created) continue;
        // The dense call must still be the case the breaker made.
        if (record.just_valid ? !verdict.proceeds() : verdict.clause_id != record.clause) continue;
        status = verdict.status;
      }
      const std::string name = law->name + "_" + std::to_string(10000 + count).substr(1);
      write_golden_case(fs::path(options.out_dir) / name, record, *call, status);
      ++count;
      ++written;
    }
  }
  std::cout << "gradconf export: " << written << " cases in " << options.out_dir << "\n";
  return kExitOk;
}

namespace {

using Cells = std::map<std::tuple<std::string, std::string, std::string>, reports::Cell>;

struct CaseVerdict {
  std::string op = "?", dtype = "?";
  bool valid = false;  ///< the expected status is success: the outputs are compared too
  std::vector<std::string> problems;
};

// The first floating input's dtype names the case's cell.
std::string case_dtype(const caseio::CaseFile& file) {
  for (const auto& [input, value] : file.inputs) {
    if (caseio::is_case_dtype(value.tensor.dtype) && value.tensor.dtype != ACL_INT32 &&
        value.tensor.dtype != ACL_INT64 && value.tensor.dtype != ACL_BOOL) {
      return std::string(dtype_repro_name(value.tensor.dtype));
    }
  }
  return "?";
}

// One expected output against the replayed one, measured into the case's golden_values cell.
void compare_output(const std::string& name, const std::string& output, const json& spec,
                    const fs::path& dir, const fs::path& out, Cells& cells, CaseVerdict& v) {
  const aclDataType declared = *parse_dtype(spec.at("dtype").get<std::string>());
  const caseio::HostTensor gold = caseio::tensor_from_npy(
      caseio::read_npy(dir / spec.at("file").get<std::string>()), declared, output);
  const caseio::HostTensor mine =
      caseio::tensor_from_npy(caseio::read_npy(out / (output + ".npy")), declared, output);
  if (mine.shape != gold.shape) {
    v.problems.push_back(output + ": shape differs");
    return;
  }
  const props::Tolerance& tolerance = props::tolerance_for(v.op, output, declared);
  const props::Comparison c =
      props::compare(decode_tensor(mine), decode_tensor(gold), gold.shape, tolerance);
  reports::Cell& cell = cells[{v.op, "golden_values", v.dtype}];
  cell.max_rel_error = std::max(cell.max_rel_error, c.max_scaled_rel_error);
  cell.max_abs_error = std::max(cell.max_abs_error, c.max_abs_error);
  cell.bounded_elements += c.count;
  if (cell.worst_repro.empty() || c.worst_error_over_bound > cell.worst_error_over_bound) {
    cell.worst_error_over_bound = c.worst_error_over_bound;
    cell.worst_repro = name;
  }
  if (c.count > 0) {
    cell.has_mere = true;
    cell.mere = std::max(cell.mere, c.mere);
    cell.mare = std::max(cell.mare, c.mare);
    cell.mere_threshold = tolerance.mere_threshold;
  }
  if (c.status == props::CompareStatus::kFailed) v.problems.push_back(output + ": " + c.summary());
}

// One exported case against its replay: the status, and for a valid call every output.
CaseVerdict judge_case(const fs::path& dir, const CompareOptions& options, Cells& cells) {
  CaseVerdict v;
  const std::string name = dir.filename().string();
  try {
    const caseio::CaseFile file = caseio::read_case(dir);
    v.op = file.op;
    v.dtype = case_dtype(file);
    const json& expected = file.other_keys.at("expected");
    const aclnnStatus want = expected.at("status").get<aclnnStatus>();
    v.valid = want == ACLNN_SUCCESS;
    const fs::path out = fs::path(options.outputs_dir) / name;
    const caseio::StatusRecord got = caseio::read_status(out);
    if (got.status != want) {
      v.problems.push_back("status " + std::to_string(got.status) + ", expected " +
                           std::to_string(want));
    }
    if (v.valid && got.status == want) {
      for (const auto& [output, spec] : expected.at("outputs").items()) {
        compare_output(name, output, spec, dir, out, cells, v);
      }
    }
  } catch (const std::exception& e) {
    v.problems.push_back(e.what());
  }
  return v;
}

// The case's count, check and failure in its golden_values or golden_status cell.
bool record_case(const std::string& name, const CaseVerdict& v, Cells& cells) {
  reports::Cell& cell = cells[{v.op, v.valid ? "golden_values" : "golden_status", v.dtype}];
  cell.family = v.op;
  cell.entry = v.op;
  cell.law = v.op + (v.valid ? ".golden_values" : ".golden_status");
  cell.dtype = v.dtype;
  cell.cases += 1;
  if (!v.valid) cell.checks += 1;  // the status compared
  if (v.problems.empty()) return true;
  cell.failed += 1;
  std::string why = name + ": ";
  for (const auto& p : v.problems) why += p + "; ";
  if (cell.failures.size() < 20) cell.failures.push_back(why);
  std::cout << "FAILED " << why << "\n";
  return false;
}

}  // namespace

int run_compare(const CompareOptions& options) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(options.cases_dir, ec)) {
    if (fs::exists(entry.path() / caseio::kCaseFileName)) dirs.push_back(entry.path());
  }
  if (ec) {
    std::cerr << "gradconf compare: cannot read " << options.cases_dir << ": " << ec.message()
              << "\n";
    return kExitBadInput;
  }
  std::sort(dirs.begin(), dirs.end());
  Cells cells;
  size_t failed = 0;
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    if (!record_case(name, judge_case(dir, options, cells), cells)) ++failed;
  }
  reports::Campaign campaign;
  campaign.options.ops = {"compare " + options.cases_dir + " " + options.outputs_dir};
  for (auto& [key, cell] : cells) campaign.cells.push_back(std::move(cell));
  const reports::Errata errata = shipped_errata();
  const std::string out =
      options.report_dir.empty() ? "reports/out/compare-" + now_stamp() : options.report_dir;
  std::string error;
  if (!reports::write_reports(campaign, errata, out, &error)) {
    std::cerr << "gradconf compare: " << error << "\n";
    return kExitRuntimeFailure;
  }
  std::cout << "gradconf compare: " << dirs.size() << " cases, " << failed << " failed; reports in "
            << out << "\n";
  return failed == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace gradconf::cli
