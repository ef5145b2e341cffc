#include "nsa_compress/problem.h"

#include <algorithm>
#include <limits>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/random.h"
#include "core/repro.h"
#include "nsa_compress/clauses.h"

namespace gradconf::nc {
namespace {

constexpr std::string_view kForwardName = "nc";
constexpr std::string_view kBackwardName = "nc_grad";
constexpr std::string_view kRoleNames[kRoleCount] = {"input",  "weight",    "outputGrad",
                                                     "output", "inputGrad", "weightGrad"};
// Sizes in repro lines stay far below anything that could overflow.
constexpr int64_t kMaxReproSize = 1 << 20;
constexpr size_t kMaxBatches = 4096;

std::string join_lengths(const std::vector<int64_t>& lengths) {
  std::string text;
  for (int64_t l : lengths) text += (text.empty() ? "" : ".") + std::to_string(l);
  return text;
}

}  // namespace

std::string_view role_name(Role role) { return kRoleNames[static_cast<int>(role)]; }

int64_t Problem::tokens() const {
  int64_t t = 0;
  for (int64_t l : lengths) t += l;
  return t;
}

std::vector<int64_t> Problem::prefix_sums() const {
  std::vector<int64_t> prefix;
  int64_t sum = 0;
  for (int64_t l : lengths) prefix.push_back(sum += l);
  return prefix;
}

int64_t Problem::compressed_rows() const {
  int64_t rows = 0;
  for (int64_t l : lengths) rows += windows_of(l, block, stride);
  return rows;
}

std::vector<int64_t> Problem::dims(Role role) const {
  switch (role) {
    case Role::kInput:
    case Role::kInputGrad:
      return {tokens(), heads, dim};
    case Role::kWeight:
    case Role::kWeightGrad:
      return {block, heads};
    case Role::kOutputGrad:
    case Role::kOutput:
      return {compressed_rows(), heads, dim};
  }
  return {};
}

std::vector<Role> Problem::roles() const {
  if (entry == Direction::kForward) return {Role::kInput, Role::kWeight, Role::kOutput};
  return {Role::kOutputGrad, Role::kInput, Role::kWeight, Role::kInputGrad, Role::kWeightGrad};
}

std::string_view Problem::op_name() const {
  return entry == Direction::kForward ? "NsaCompress" : "NsaCompressGrad";
}

std::string Problem::to_repro() const {
  const Problem defaults;
  std::string line(entry == Direction::kForward ? kForwardName : kBackwardName);
  line += repro_dtype_key(*this);
  auto option = [&](std::string_view key, const std::string& value) {
    line += " --" + std::string(key) + "=" + value;
  };
  if (lengths != defaults.lengths) option("seqs", join_lengths(lengths));
  if (null_seq_len) option("seq-null", "1");
  if (null_layout) option("layout-null", "1");
  line += repro_common_keys(*this);
  line += " n" + std::to_string(heads) + "d" + std::to_string(dim) + "l" + std::to_string(block) +
          "s" + std::to_string(stride);
  return line;
}

std::optional<Problem> Problem::parse_repro(std::string_view text) {
  Problem p;
  auto line = tokenize_entry_line(text, kForwardName, kBackwardName, p.entry);
  if (!line) return std::nullopt;
  if (auto v = line->take("seqs")) {
    p.lengths.clear();
    std::string_view rest = *v;
    while (true) {
      const size_t dot = rest.find('.');
      auto length = parse_int_in(rest.substr(0, dot), 0, kMaxReproSize);
      if (!length || p.lengths.size() >= kMaxBatches) return std::nullopt;
      p.lengths.push_back(*length);
      if (dot == std::string_view::npos) break;
      rest = rest.substr(dot + 1);
    }
    if (p.lengths == Problem{}.lengths || p.tokens() > kMaxReproSize) return std::nullopt;
  }
  for (auto [key, flag] :
       {std::pair{"seq-null", &p.null_seq_len}, std::pair{"layout-null", &p.null_layout}}) {
    if (auto v = line->take(key)) {
      if (*v != "1") return std::nullopt;
      *flag = true;
    }
  }
  if (p.null_seq_len && p.lengths.size() != 1) return std::nullopt;
  if (!take_common_keys(*line, p)) return std::nullopt;
  auto sizes = take_shape(*line, {"n", "d", "l", "s"}, kMaxReproSize);
  if (!sizes || (*sizes)[2] < 1 || (*sizes)[3] < 1) return std::nullopt;
  p.heads = (*sizes)[0], p.dim = (*sizes)[1], p.block = (*sizes)[2], p.stride = (*sizes)[3];
  return p;
}

std::vector<double> make_values(const Problem& p, Role role) {
  const int64_t count = checked_numel(p.dims(role)).value_or(0);
  std::vector<double> values(static_cast<size_t>(count));
  SplitMix64 rng(p.seed, static_cast<uint64_t>(role));
  for (double& v : values) v = round_to_dtype(p.dtype, rng.uniform(-1, 1));
  return values;
}

}  // namespace gradconf::nc
