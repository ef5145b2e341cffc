// Case folders (spec ARCHITECTURE.md "Case files"): case.json plus one .npy per non-null input, and
// the status.json a replay writes next to its outputs. Shared by every tool that reads or writes
// cases (replay today; export and compare later), so the format is decided in one place.
//
// NOTE: data flows npy file -> NpyArray (stored dtype) -> HostTensor (the case's declared dtype;
// bfloat16 narrowed from its float32 carrier, checked exact) -> the op, and back the same way for
// outputs. Attributes stay JSON until an op's attribute list gives each one a kind.
#ifndef GRADCONF_CLI_CASE_FILE_H_
#define GRADCONF_CLI_CASE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "aclnn/acl_meta.h"
#include "cli/npy.h"
#include "core/profile.h"

namespace gradconf::caseio {

/// A dense C-contiguous tensor on the host in its logical dtype: bfloat16 as 2-byte bf16 values,
/// bool as one 0/1 byte, everything else as in .npy.
struct HostTensor {
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;

  /// Precondition: the shape's element count fits in int64 (true for anything built here).
  int64_t element_count() const;
};

/// The dtypes a case file can carry: float16, bfloat16, float32, float64, int32, int64, bool.
bool is_case_dtype(aclDataType dtype);

/// Reinterprets a stored array as a tensor of the declared dtype. The stored dtype must be the
/// declared one, except bfloat16, which is stored as float32 whose values (NaN aside) must be
/// exactly representable in bfloat16. `what` names the array in errors.
HostTensor tensor_from_npy(NpyArray array, aclDataType declared, std::string_view what);
/// The stored form of a tensor: bfloat16 widened (exactly) to float32, everything else as is.
NpyArray npy_from_tensor(const HostTensor& tensor);

/// How an attribute is written in case.json, named after the C API argument types: int64_t,
/// bool, double, aclIntArray*, aclBoolArray*, char*.
enum class AttrKind { kInt, kBool, kFloat, kIntList, kBoolList, kString };
std::string_view attr_kind_name(AttrKind kind);  // "int", "bool", "float", "intlist", ...

/// One attribute value; std::monostate is a null pointer argument (list and string kinds only).
using AttrValue = std::variant<std::monostate, int64_t, bool, double, std::vector<int64_t>,
                               std::vector<bool>, std::string>;
/// Reads `value` as `kind`; `what` names the attribute in errors. Integers must be JSON
/// integers (1.0 is rejected: the C argument is int64_t), bools must be true/false.
AttrValue parse_attr(const nlohmann::json& value, AttrKind kind, std::string_view what);
nlohmann::json attr_to_json(const AttrValue& value);

struct CaseInput {
  std::string file;  // relative to the case folder
  HostTensor tensor;
  aclFormat format = ACL_FORMAT_ND;  // "format" in case.json (the aclFormat value), when not ND
};

struct CaseFile {
  std::string op;
  std::optional<SpecProfile> profile;  // absent from case.json: the caller picks (replay: seed)
  nlohmann::json attrs = nlohmann::json::object();       // as written; kinds come from the op
  std::map<std::string, CaseInput> inputs;               // null or absent inputs are not listed
  nlohmann::json other_keys = nlohmann::json::object();  // "outputs", "note", ...: kept for tools
};

inline constexpr std::string_view kCaseFileName = "case.json";
inline constexpr std::string_view kStatusFileName = "status.json";
/// case.json holds only metadata; a bigger file is a mistake, not a case.
inline constexpr uint64_t kMaxCaseJsonBytes = 16 << 20;

/// Reads DIR/case.json and every input it names. Throws CaseError (message names the file and
/// the key) for anything malformed: missing or mistyped keys, duplicate keys, unknown keys inside
/// an input entry, input files outside the folder, bad .npy files, dtype mismatches.
CaseFile read_case(const std::filesystem::path& dir);
/// Writes DIR/case.json and DIR/<file> for every input (creating DIR). Throws on I/O failure.
void write_case(const std::filesystem::path& dir, const CaseFile& case_file);

/// The result of running a case: what replay writes to OUT/status.json.
struct StatusRecord {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string message;  // aclGetRecentErrMsg() of the failing call, else ""
  std::string op;
  std::string profile;
  std::optional<int> failed_phase;   // 1 (GetWorkspaceSize) or 2 (execution) on failure
  std::vector<std::string> outputs;  // the output .npy files written, by parameter name
};
void write_status(const std::filesystem::path& out_dir, const StatusRecord& record);
/// Throws CaseError when OUT/status.json is missing or malformed.
StatusRecord read_status(const std::filesystem::path& out_dir);

/// Case files are a few levels deep; anything deeper is rejected while parsing.
inline constexpr int kMaxJsonDepth = 64;

/// Parses JSON text strictly: a duplicate key anywhere is an error (nlohmann would keep the last
/// one silently, and a case with two "alignCorners" is ambiguous), and so is nesting deeper than
/// kMaxJsonDepth. Throws CaseError.
nlohmann::json parse_json_strict(std::string_view text, std::string_view what);

}  // namespace gradconf::caseio

#endif  // GRADCONF_CLI_CASE_FILE_H_
