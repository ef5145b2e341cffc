#include "cli/case_file.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <system_error>

#include "core/checked_math.h"
#include "core/dtype.h"

namespace gradconf::caseio {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

[[noreturn]] void fail(std::string_view what, std::string_view problem) {
  throw CaseError(std::string(what) + ": " + std::string(problem));
}

std::string single_quoted(std::string_view key) { return "'" + std::string(key) + "'"; }

// Invalid UTF-8 (e.g. in an error message of another backend) must not abort the dump.
template <typename Json>
std::string dump(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string read_small_text_file(const fs::path& path, uint64_t max_bytes) {
  const std::string what = path.string();
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    fail(what, fs::exists(path, error) ? "not a regular file" : "no such file");
  }
  const uint64_t size = fs::file_size(path, error);
  if (error) fail(what, "cannot stat: " + error.message());
  if (size > max_bytes) {
    fail(what,
         std::to_string(size) + " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  std::ifstream stream(path, std::ios::binary);
  std::string text(size, '\0');
  stream.read(text.data(), static_cast<std::streamsize>(size));
  if (!stream || static_cast<uint64_t>(stream.gcount()) != size) fail(what, "read failed");
  return text;
}

void write_text_file(const fs::path& path, const std::string& text) {
  write_file_atomically(path, std::as_bytes(std::span(text.data(), text.size())));
}

// A case names its input files by paths inside its folder, so the folder stays self-contained
// when it is copied to another machine (symlinks are followed like any other file).
void check_relative_inside(const fs::path& file, std::string_view what) {
  if (file.empty()) fail(what, "empty file name");
  if (file.is_absolute()) fail(what, "must be a path relative to the case folder");
  for (const auto& part : file) {
    if (part == "..") fail(what, "must not leave the case folder ('..')");
  }
}

std::vector<int64_t> parse_shape(const json& value, std::string_view what) {
  if (!value.is_array()) {
    fail(what, "expected a list of dims, got " + std::string(value.type_name()));
  }
  std::vector<int64_t> shape;
  for (const auto& dim : value) {
    if (!dim.is_number_integer() ||
        (dim.is_number_unsigned() && dim.get<uint64_t>() > std::numeric_limits<int64_t>::max())) {
      fail(what, "dims must be integers that fit in int64");
    }
    if (dim.get<int64_t>() < 0) fail(what, "dims must be non-negative");
    shape.push_back(dim.get<int64_t>());
  }
  return shape;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

aclDataType parse_case_dtype(const json& value, std::string_view what) {
  if (!value.is_string()) {
    fail(what, "expected a dtype name, got " + std::string(value.type_name()));
  }
  const auto dtype = parse_dtype(value.get<std::string>());
  if (!dtype || !is_case_dtype(*dtype)) {
    fail(what, "unsupported dtype " + single_quoted(value.get<std::string>()) +
                   " (float16, bfloat16, float32, float64, int32, int64, bool)");
  }
  return *dtype;
}

CaseInput read_input(const fs::path& dir, const std::string& name, const json& entry,
                     const std::string& where) {
  const std::string what = where + ": inputs." + name;
  if (!entry.is_object()) {
    fail(what, "expected an object {\"file\": ..., \"dtype\": ...} or null, got " +
                   std::string(entry.type_name()));
  }
  for (const auto& [key, unused] : entry.items()) {
    if (key != "file" && key != "dtype" && key != "shape" && key != "format") {
      fail(what, "unknown key " + single_quoted(key) + " (expected file, dtype, shape, format)");
    }
  }
  CaseInput input;
  // "file" may be left out: the conventional name is the parameter's.
  input.file = name + ".npy";
  if (auto file = entry.find("file"); file != entry.end()) {
    if (!file->is_string()) fail(what + ".file", "expected a string");
    input.file = file->get<std::string>();
  }
  check_relative_inside(input.file, what + ".file");

  auto dtype = entry.find("dtype");
  if (dtype == entry.end()) fail(what, "missing key 'dtype'");
  const aclDataType declared = parse_case_dtype(*dtype, what + ".dtype");

  if (auto format = entry.find("format"); format != entry.end()) {
    if (!format->is_number_integer() || format->get<int64_t>() < INT32_MIN ||
        format->get<int64_t>() > INT32_MAX) {
      fail(what + ".format", "expected an aclFormat value (an int32), got " + format->dump());
    }
    input.format = static_cast<aclFormat>(format->get<int64_t>());
  }

  const fs::path path = dir / input.file;
  input.tensor = tensor_from_npy(read_npy(path), declared, path.string());
  if (auto shape = entry.find("shape"); shape != entry.end()) {
    const auto expected = parse_shape(*shape, what + ".shape");
    if (expected != input.tensor.shape) {
      fail(what, "case.json says shape " + shape_text(expected) + " but " + input.file + " holds " +
                     shape_text(input.tensor.shape));
    }
  }
  return input;
}

}  // namespace

int64_t HostTensor::element_count() const { return checked_numel(shape).value_or(0); }

bool is_case_dtype(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_FLOAT:
    case ACL_DOUBLE:
    case ACL_INT32:
    case ACL_INT64:
    case ACL_BOOL:
      return true;
    default:
      return false;
  }
}

HostTensor tensor_from_npy(NpyArray array, aclDataType declared, std::string_view what) {
  if (!is_case_dtype(declared)) {
    fail(what, "dtype " + std::string(dtype_name(declared)) + " cannot be held by a case file");
  }
  const aclDataType stored = declared == ACL_BF16 ? ACL_FLOAT : declared;
  if (array.dtype != stored) {
    fail(what, "declared dtype " + std::string(dtype_name(declared)) + " must be stored as " +
                   std::string(*npy_descr(stored)) + ", but the file holds " +
                   std::string(*npy_descr(array.dtype)));
  }
  HostTensor tensor;
  tensor.dtype = declared;
  tensor.shape = std::move(array.shape);
  if (declared != ACL_BF16) {
    tensor.data = std::move(array.data);
    return tensor;
  }
  const size_t count = array.data.size() / sizeof(float);
  tensor.data.resize(count * sizeof(bfloat16));
  for (size_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, array.data.data() + i * sizeof(float), sizeof(float));
    const bfloat16 narrow(value);
    const float widened = static_cast<float>(narrow);
    // Comparing bits (not values) also keeps -0.0 and rejects nothing else by accident.
    if (!std::isnan(value) && std::memcmp(&widened, &value, sizeof(float)) != 0) {
      std::ostringstream text;
      text.precision(9);
      text << "element " << i << " = " << value
           << " is not exactly representable in bfloat16 (bfloat16 inputs are carried as float32 "
              "values that are)";
      fail(what, text.str());
    }
    std::memcpy(tensor.data.data() + i * sizeof(bfloat16), &narrow, sizeof(bfloat16));
  }
  return tensor;
}

NpyArray npy_from_tensor(const HostTensor& tensor) {
  NpyArray array;
  array.shape = tensor.shape;
  if (tensor.dtype != ACL_BF16) {
    array.dtype = tensor.dtype;
    array.data = tensor.data;
    return array;
  }
  array.dtype = ACL_FLOAT;
  const size_t count = tensor.data.size() / sizeof(bfloat16);
  array.data.resize(count * sizeof(float));
  for (size_t i = 0; i < count; ++i) {
    bfloat16 narrow;
    std::memcpy(&narrow, tensor.data.data() + i * sizeof(bfloat16), sizeof(bfloat16));
    const float widened = static_cast<float>(narrow);
    std::memcpy(array.data.data() + i * sizeof(float), &widened, sizeof(float));
  }
  return array;
}

std::string_view attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return "int";
    case AttrKind::kBool:
      return "bool";
    case AttrKind::kFloat:
      return "float";
    case AttrKind::kIntList:
      return "intlist";
    case AttrKind::kBoolList:
      return "boollist";
    case AttrKind::kString:
      return "string";
  }
  return "unknown";
}

AttrValue parse_attr(const json& value, AttrKind kind, std::string_view what) {
  auto is_int64 = [](const json& v) {
    return v.is_number_integer() &&
           !(v.is_number_unsigned() && v.get<uint64_t>() > std::numeric_limits<int64_t>::max());
  };
  auto mistyped = [&](std::string_view expected) {
    fail(what, "expected " + std::string(expected) + ", got " +
                   (value.is_null() ? std::string("null") : value.dump()));
  };
  switch (kind) {
    case AttrKind::kInt:
      if (!is_int64(value)) mistyped("an integer that fits in int64");
      return value.get<int64_t>();
    case AttrKind::kBool:
      if (!value.is_boolean()) mistyped("true or false");
      return value.get<bool>();
    case AttrKind::kFloat:
      if (!value.is_number()) mistyped("a number");
      return value.get<double>();
    case AttrKind::kIntList: {
      if (value.is_null()) return std::monostate{};
      if (!value.is_array()) mistyped("a list of integers or null");
      std::vector<int64_t> values;
      for (const auto& item : value) {
        if (!is_int64(item)) mistyped("a list of integers that fit in int64, or null");
        values.push_back(item.get<int64_t>());
      }
      return values;
    }
    case AttrKind::kBoolList: {
      if (value.is_null()) return std::monostate{};
      if (!value.is_array()) mistyped("a list of true/false or null");
      std::vector<bool> values;
      for (const auto& item : value) {
        if (!item.is_boolean()) mistyped("a list of true/false or null");
        values.push_back(item.get<bool>());
      }
      return values;
    }
    case AttrKind::kString:
      if (value.is_null()) return std::monostate{};
      if (!value.is_string()) mistyped("a string or null");
      return value.get<std::string>();
  }
  throw std::logic_error("unknown attribute kind");
}

json attr_to_json(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return nullptr;
        } else {
          return v;
        }
      },
      value);
}

json parse_json_strict(std::string_view text, std::string_view what) {
  // One key set per open object; arrays push nothing because they have no keys.
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  auto on_event = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::array_start:
        // Copying a JSON value recurses once per level; deep input must not overflow the stack.
        if (depth >= kMaxJsonDepth) {
          fail(what, "nesting deeper than " + std::to_string(kMaxJsonDepth));
        }
        break;
      case json::parse_event_t::object_start:
        if (depth >= kMaxJsonDepth) {
          fail(what, "nesting deeper than " + std::to_string(kMaxJsonDepth));
        }
        open_objects.emplace_back();
        break;
      case json::parse_event_t::object_end:
        open_objects.pop_back();
        break;
      case json::parse_event_t::key:
        if (!open_objects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return true;
  };
  json value;
  try {
    value = json::parse(text.begin(), text.end(), on_event);
  } catch (const json::exception& error) {
    fail(what, std::string("invalid JSON: ") + error.what());
  }
  if (!duplicate.empty()) fail(what, "duplicate key " + single_quoted(duplicate));
  return value;
}

CaseFile read_case(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    fail(dir.string(), fs::exists(dir, error) ? "not a directory" : "no such case folder");
  }
  const fs::path json_path = dir / kCaseFileName;
  const std::string where = json_path.string();
  const json document =
      parse_json_strict(read_small_text_file(json_path, kMaxCaseJsonBytes), where);
  if (!document.is_object()) fail(where, "expected a JSON object at the top level");

  // Metadata first, so a wrong op or profile is reported before any .npy is read.
  CaseFile result;
  const auto op = document.find("op");
  if (op == document.end()) fail(where, "missing key 'op'");
  if (!op->is_string() || op->get<std::string>().empty()) {
    fail(where, "'op' must be a non-empty string");
  }
  result.op = op->get<std::string>();

  if (auto profile = document.find("profile"); profile != document.end() && !profile->is_null()) {
    if (!profile->is_string()) fail(where, "'profile' must be a string or null");
    result.profile = parse_profile(profile->get<std::string>());
    if (!result.profile) {
      fail(where, "unknown profile " + single_quoted(profile->get<std::string>()) +
                      " (seed, extended, cann-latest)");
    }
  }

  if (auto attrs = document.find("attrs"); attrs != document.end()) {
    if (!attrs->is_object()) fail(where, "'attrs' must be an object");
    result.attrs = *attrs;
  }

  const auto inputs = document.find("inputs");
  if (inputs == document.end()) fail(where, "missing key 'inputs'");
  if (!inputs->is_object()) fail(where, "'inputs' must be an object");

  for (const auto& [key, value] : document.items()) {
    if (key != "op" && key != "profile" && key != "attrs" && key != "inputs") {
      result.other_keys[key] = value;
    }
  }
  for (const auto& [name, entry] : inputs->items()) {
    if (entry.is_null()) continue;  // a null optional input
    result.inputs.emplace(name, read_input(dir, name, entry, where));
  }
  return result;
}

void write_case(const fs::path& dir, const CaseFile& case_file) {
  fs::create_directories(dir);
  // The keys replay reads come first, in the order a reader wants them.
  nlohmann::ordered_json document;
  document["op"] = case_file.op;
  if (case_file.profile) document["profile"] = profile_name(*case_file.profile);
  document["attrs"] = case_file.attrs;
  nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
  for (const auto& [name, input] : case_file.inputs) {
    check_relative_inside(input.file, "input " + single_quoted(name));
    write_npy(dir / input.file, npy_from_tensor(input.tensor));
    inputs[name] = {{"file", input.file},
                    {"dtype", dtype_name(input.tensor.dtype)},
                    {"shape", input.tensor.shape}};
    if (input.format != ACL_FORMAT_ND) inputs[name]["format"] = static_cast<int>(input.format);
  }
  document["inputs"] = inputs;
  for (const auto& [key, value] : case_file.other_keys.items()) {
    if (!document.contains(key)) document[key] = value;  // never shadow what replay reads
  }
  write_text_file(dir / kCaseFileName, dump(document));
}

void write_status(const fs::path& out_dir, const StatusRecord& record) {
  // Ordered so that a human reading the file sees the status first.
  nlohmann::ordered_json document = {{"status", record.status},
                                     {"message", record.message},
                                     {"op", record.op},
                                     {"profile", record.profile},
                                     {"outputs", record.outputs}};
  if (record.failed_phase) document["phase"] = *record.failed_phase;
  write_text_file(out_dir / kStatusFileName, dump(document));
}

StatusRecord read_status(const fs::path& out_dir) {
  const fs::path path = out_dir / kStatusFileName;
  const json document =
      parse_json_strict(read_small_text_file(path, kMaxCaseJsonBytes), path.string());
  StatusRecord record;
  try {
    record.status = document.at("status").get<aclnnStatus>();
    record.message = document.at("message").get<std::string>();
    record.op = document.value("op", "");
    record.profile = document.value("profile", "");
    record.outputs = document.value("outputs", std::vector<std::string>{});
    if (document.contains("phase")) record.failed_phase = document.at("phase").get<int>();
  } catch (const json::exception& error) {
    fail(path.string(), error.what());
  }
  return record;
}

}  // namespace gradconf::caseio
