#include "cli/npy.h"

#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <system_error>

#include "core/checked_math.h"
#include "core/dtype.h"

namespace gradconf::caseio {
namespace {

// Every multi-byte dtype is stored little-endian; the data is copied as is.
static_assert(std::endian::native == std::endian::little, "case files assume a little-endian host");

constexpr std::array<char, 6> kMagic = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
constexpr uint64_t kVersion1PreambleBytes = 10;  // magic, 2 version bytes, uint16 header length
constexpr uint64_t kVersion2PreambleBytes = 12;  // magic, 2 version bytes, uint32 header length
constexpr uint64_t kHeaderAlignment = 64;

struct DescrEntry {
  std::string_view descr;
  aclDataType dtype;
};
constexpr std::array kDescrs = {
    DescrEntry{"<f2", ACL_FLOAT16}, DescrEntry{"<f4", ACL_FLOAT}, DescrEntry{"<f8", ACL_DOUBLE},
    DescrEntry{"<i4", ACL_INT32},   DescrEntry{"<i8", ACL_INT64}, DescrEntry{"|b1", ACL_BOOL},
};

[[noreturn]] void fail(std::string_view what, std::string_view problem) {
  throw CaseError(std::string(what) + ": " + std::string(problem));
}

// Where the header text lies in the file.
struct Preamble {
  uint64_t header_offset;
  uint64_t header_bytes;
};

Preamble parse_preamble(std::span<const std::byte> head, uint64_t file_size,
                        std::string_view what) {
  if (head.size() < kMagic.size() + 2 ||
      std::memcmp(head.data(), kMagic.data(), kMagic.size()) != 0) {
    fail(what, "not a .npy file (missing the \\x93NUMPY magic)");
  }
  const auto major = static_cast<uint8_t>(head[6]);
  const auto minor = static_cast<uint8_t>(head[7]);
  if (minor != 0 || major < 1 || major > 3) {
    fail(what, "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (expected 1.0, 2.0 or 3.0)");
  }
  const uint64_t preamble = major == 1 ? kVersion1PreambleBytes : kVersion2PreambleBytes;
  if (head.size() < preamble) fail(what, "truncated .npy preamble");
  uint64_t header_bytes = 0;
  for (uint64_t i = preamble; i-- > 8;) {
    header_bytes = (header_bytes << 8) | static_cast<uint8_t>(head[i]);
  }
  if (header_bytes == 0) fail(what, "empty .npy header");
  if (header_bytes > kNpyMaxHeaderBytes) {
    fail(what, "the .npy header claims " + std::to_string(header_bytes) +
                   " bytes, more than the limit of " + std::to_string(kNpyMaxHeaderBytes));
  }
  if (header_bytes > file_size - preamble) {
    fail(what, "truncated: the .npy header claims " + std::to_string(header_bytes) +
                   " bytes but the file holds only " + std::to_string(file_size - preamble) +
                   " after the preamble");
  }
  return {preamble, header_bytes};
}

// A recursive-descent reader for the one Python literal NumPy writes as the header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  NpyArray parse() {
    for (char c : text_) {
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n') fail("control character in header");
      if (static_cast<unsigned char>(c) > 0x7e) fail("non-ASCII byte in header");
    }
    if (text_.empty() || text_.back() != '\n') fail("header does not end with a newline");
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<int64_t>> shape;

    skip_spaces();
    expect('{');
    skip_spaces();
    while (!consume('}')) {
      const std::string key = parse_string();
      skip_spaces();
      expect(':');
      skip_spaces();
      if (key == "descr") {
        if (descr) fail("duplicate key 'descr'");
        if (peek() != '\'' && peek() != '"') {
          fail(
              "'descr' must be a plain type string such as '<f4' (structured dtypes are "
              "not supported)");
        }
        descr = parse_string();
      } else if (key == "fortran_order") {
        if (fortran_order) fail("duplicate key 'fortran_order'");
        fortran_order = parse_bool();
      } else if (key == "shape") {
        if (shape) fail("duplicate key 'shape'");
        shape = parse_shape();
      } else {
        fail("unexpected header key '" + key + "'");
      }
      skip_spaces();
      if (consume(',')) {
        skip_spaces();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of '" + key + "'");
      }
    }
    // After the dict only the padding NumPy writes may follow: spaces, then the newline.
    while (pos_ + 1 < text_.size() && text_[pos_] == ' ') ++pos_;
    if (pos_ + 1 != text_.size()) fail("unexpected text after the header dict");

    if (!descr) fail("header has no 'descr'");
    if (!fortran_order) fail("header has no 'fortran_order'");
    if (!shape) fail("header has no 'shape'");
    if (*fortran_order) fail("fortran_order is True; only C-ordered arrays are supported");

    NpyArray array;
    array.dtype = dtype_of_descr(*descr);
    array.shape = std::move(*shape);
    return array;
  }

 private:
  [[noreturn]] void fail(std::string_view problem) const {
    caseio::fail(what_, "bad .npy header: " + std::string(problem));
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
  }
  void skip_spaces() {
    while (peek() == ' ') ++pos_;
  }

  // A quoted string without escapes: no valid key or descr needs one.
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') {
      fail("expected a quoted string at offset " + std::to_string(pos_));
    }
    ++pos_;
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    if (value.find('\\') != std::string::npos) fail("escape sequences are not supported");
    pos_ = end + 1;
    return value;
  }

  bool parse_bool() {
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail("'fortran_order' must be True or False");
  }

  std::vector<int64_t> parse_shape() {
    expect('(');
    std::vector<int64_t> dims;
    skip_spaces();
    bool saw_comma_after_last = false;
    while (!consume(')')) {
      if (!dims.empty() && !saw_comma_after_last) fail("expected ',' between shape dims");
      dims.push_back(parse_dim());
      if (dims.size() > kNpyMaxRank) {
        fail("shape has more than " + std::to_string(kNpyMaxRank) + " dims");
      }
      skip_spaces();
      saw_comma_after_last = consume(',');
      skip_spaces();
    }
    // Python spells a 1-tuple "(5,)"; "(5)" is just the integer 5.
    if (dims.size() == 1 && !saw_comma_after_last) fail("a 1-D shape must be written '(n,)'");
    return dims;
  }

  int64_t parse_dim() {
    if (peek() == '-') fail("negative dim in shape");
    if (peek() < '0' || peek() > '9') {
      fail("expected a non-negative integer dim at offset " + std::to_string(pos_));
    }
    int64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      auto next = checked_mul(value, 10);
      if (next) next = checked_add(*next, peek() - '0');
      if (!next) fail("shape dim does not fit in int64");
      value = *next;
      ++pos_;
    }
    if (peek() == 'L') fail("Python 2 long literals ('5L') are not supported");
    if (peek() == '.' || peek() == 'e' || peek() == 'E') fail("shape dims must be integers");
    return value;
  }

  aclDataType dtype_of_descr(std::string_view descr) const {
    for (const auto& entry : kDescrs) {
      if (entry.descr == descr) return entry.dtype;
    }
    std::string supported;
    for (const auto& entry : kDescrs) supported += " " + std::string(entry.descr);
    fail("unsupported descr '" + std::string(descr) + "' (supported:" + supported + ")");
  }

  std::string_view text_;
  std::string_view what_;
  size_t pos_ = 0;
};

// Validates shape against the bytes that follow the header; returns the data size.
uint64_t expected_data_bytes(const NpyArray& array, uint64_t available, std::string_view what) {
  const auto count = checked_numel(array.shape);
  const auto bytes = count ? checked_mul(*count, element_size(array.dtype)) : std::nullopt;
  if (!bytes) fail(what, "the shape's element count overflows");
  if (static_cast<uint64_t>(*bytes) != available) {
    fail(what,
         "the shape and dtype need " + std::to_string(*bytes) + " data bytes but the file " +
             "holds " + std::to_string(available) +
             (static_cast<uint64_t>(*bytes) > available ? " (truncated)" : " (trailing bytes)"));
  }
  return static_cast<uint64_t>(*bytes);
}

// NumPy stores bool as one byte 0 or 1; any other byte is not a bool C++ may load.
void check_bool_bytes(const NpyArray& array, std::string_view what) {
  if (array.dtype != ACL_BOOL) return;
  for (size_t i = 0; i < array.data.size(); ++i) {
    const auto byte = static_cast<uint8_t>(array.data[i]);
    if (byte > 1) {
      fail(what, "bool element " + std::to_string(i) + " holds byte " + std::to_string(byte) +
                     " (expected 0 or 1)");
    }
  }
}

std::string header_text(const NpyArray& array, std::string_view descr) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i) {
    if (i > 0) shape += ", ";
    shape += std::to_string(array.shape[i]);
  }
  if (array.shape.size() == 1) shape += ",";
  shape += ")";
  return "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape +
         ", }";
}

}  // namespace

std::optional<std::string_view> npy_descr(aclDataType dtype) {
  for (const auto& entry : kDescrs) {
    if (entry.dtype == dtype) return entry.descr;
  }
  return std::nullopt;
}

NpyArray parse_npy(std::span<const std::byte> file, std::string_view what) {
  const Preamble preamble = parse_preamble(file, file.size(), what);
  const std::string_view text(reinterpret_cast<const char*>(file.data()) + preamble.header_offset,
                              preamble.header_bytes);
  NpyArray array = HeaderParser(text, what).parse();
  const uint64_t data_offset = preamble.header_offset + preamble.header_bytes;
  const uint64_t bytes = expected_data_bytes(array, file.size() - data_offset, what);
  array.data.assign(file.begin() + data_offset, file.begin() + data_offset + bytes);
  check_bool_bytes(array, what);
  return array;
}

NpyArray read_npy(const std::filesystem::path& path) {
  const std::string what = path.string();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    fail(what, std::filesystem::exists(path, error) ? "not a regular file" : "no such file");
  }
  const uint64_t file_size = std::filesystem::file_size(path, error);
  if (error) fail(what, "cannot stat: " + error.message());
  std::ifstream stream(path, std::ios::binary);
  if (!stream) fail(what, "cannot open for reading");

  auto read_bytes = [&](std::byte* into, uint64_t count) {
    stream.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(count));
    if (static_cast<uint64_t>(stream.gcount()) != count) fail(what, "read failed (file changed?)");
  };

  std::array<std::byte, kVersion2PreambleBytes> head{};
  const uint64_t head_bytes = std::min<uint64_t>(file_size, head.size());
  read_bytes(head.data(), head_bytes);
  const Preamble preamble = parse_preamble(std::span(head.data(), head_bytes), file_size, what);

  std::string text(preamble.header_bytes, '\0');
  stream.seekg(static_cast<std::streamoff>(preamble.header_offset));
  read_bytes(reinterpret_cast<std::byte*>(text.data()), text.size());
  NpyArray array = HeaderParser(text, what).parse();

  const uint64_t data_offset = preamble.header_offset + preamble.header_bytes;
  const uint64_t bytes = expected_data_bytes(array, file_size - data_offset, what);
  array.data.resize(bytes);
  read_bytes(array.data.data(), bytes);
  check_bool_bytes(array, what);
  return array;
}

std::vector<std::byte> serialize_npy(const NpyArray& array) {
  const auto descr = npy_descr(array.dtype);
  if (!descr) {
    throw CaseError("cannot write dtype " + std::string(dtype_name(array.dtype)) + " to .npy");
  }
  const auto count = checked_numel(array.shape);
  const auto bytes = count ? checked_mul(*count, element_size(array.dtype)) : std::nullopt;
  if (!bytes || static_cast<uint64_t>(*bytes) != array.data.size()) {
    throw CaseError("npy array: data size does not match its shape");
  }
  std::string text = header_text(array, *descr);
  uint64_t preamble = kVersion1PreambleBytes;
  // Pad with spaces so that the data starts on a 64-byte boundary, newline last.
  auto padded = [&](uint64_t preamble_bytes) {
    const uint64_t unpadded = preamble_bytes + text.size() + 1;
    return text.size() + 1 + (kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment;
  };
  uint64_t header_bytes = padded(preamble);
  if (header_bytes > 0xffff) {
    preamble = kVersion2PreambleBytes;
    header_bytes = padded(preamble);
  }
  text.append(header_bytes - text.size() - 1, ' ');
  text.push_back('\n');

  std::vector<std::byte> file;
  file.reserve(preamble + header_bytes + array.data.size());
  for (char c : kMagic) file.push_back(static_cast<std::byte>(c));
  file.push_back(std::byte{preamble == kVersion1PreambleBytes ? uint8_t{1} : uint8_t{2}});
  file.push_back(std::byte{0});
  for (uint64_t i = 0; i < preamble - 8; ++i) {
    file.push_back(static_cast<std::byte>((header_bytes >> (8 * i)) & 0xff));
  }
  for (char c : text) file.push_back(static_cast<std::byte>(c));
  file.insert(file.end(), array.data.begin(), array.data.end());
  return file;
}

void write_npy(const std::filesystem::path& path, const NpyArray& array) {
  write_file_atomically(path, serialize_npy(array));
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::filesystem::path temporary = path;
  temporary += ".partial";
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    stream.write(reinterpret_cast<const char*>(bytes.data()),
                 static_cast<std::streamsize>(bytes.size()));
    stream.close();
    if (!stream) throw std::runtime_error(temporary.string() + ": write failed");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(path.string() +
                             ": cannot move the written file into place: " + error.message());
  }
}

}  // namespace gradconf::caseio
