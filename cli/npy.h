// The .npy format (NumPy's NEP 1), as far as case files need it: C-ordered little-endian arrays of
// float16, float32, float64, int32, int64 and bool, versions 1.0, 2.0 and 3.0.
//
// NOTE: reading is strict because case files come from other implementations and other machines:
// every header field is checked and the file size must match the data exactly, so a truncated or
// hand-edited file is reported instead of being half-read. Nothing is allocated for the data until
// the header has been validated against the file size.
#ifndef GRADCONF_CLI_NPY_H_
#define GRADCONF_CLI_NPY_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"

namespace gradconf::caseio {

/// A malformed case file or .npy file; the message names the file and the problem.
class CaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A dense C-ordered array as stored in a .npy file. `dtype` is the stored element type: one of
/// ACL_FLOAT16, ACL_FLOAT, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_BOOL (bfloat16 never appears
/// here: case files carry it as float32).
struct NpyArray {
  aclDataType dtype = ACL_FLOAT;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;
};

/// The largest rank accepted in a header (NumPy 2's NPY_MAXDIMS).
inline constexpr size_t kNpyMaxRank = 64;
/// Headers longer than this are rejected before anything is allocated for them. NumPy itself
/// refuses headers above 10000 bytes unless told otherwise; 1 MiB leaves room for any real file.
inline constexpr uint64_t kNpyMaxHeaderBytes = 1 << 20;

/// The descr string ("<f4", "|b1", ...) of a stored dtype, or nullopt for a dtype .npy files of
/// case files cannot hold.
std::optional<std::string_view> npy_descr(aclDataType dtype);

/// Parses a whole .npy file held in memory. `what` names it in error messages.
NpyArray parse_npy(std::span<const std::byte> file, std::string_view what);
/// Reads and parses `path`; throws CaseError for a missing, unreadable or malformed file.
NpyArray read_npy(const std::filesystem::path& path);

/// The bytes of a version 1.0 file (2.0 if the header needs it), header padded to 64 bytes as
/// NumPy writes it. Throws CaseError when the array is inconsistent (data size vs shape).
std::vector<std::byte> serialize_npy(const NpyArray& array);
/// Writes `array` to `path` with write_file_atomically.
void write_npy(const std::filesystem::path& path, const NpyArray& array);

/// Writes `bytes` to a temporary file next to `path` and renames it into place, so a reader
/// (or a crash) never leaves a half-written output. Throws std::runtime_error on an I/O failure.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace gradconf::caseio

#endif  // GRADCONF_CLI_NPY_H_
