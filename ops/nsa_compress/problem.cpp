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

constexpr std::string_view kRoleNames[kRoleCount] = {"input",  "weight",    "outputGrad",
                                                     "output", "inputGrad", "weightGrad"};
// Sizes in repro lines stay far below anything that could overflow.
constexpr int64_t kMaxReproSize = 1 << 20;
constexpr size_t kMaxBatches = 4096;

constexpr FlagKey<Problem> kFlags[] = {{"seq-null", &Problem::null_seq_len},
                                       {"layout-null", &Problem::null_layout}};
constexpr ShapeField<Problem> kShape[] = {{"n", &Problem::heads},
                                          {"d", &Problem::dim},
                                          {"l", &Problem::block, 1},
                                          {"s", &Problem::stride, 1}};
constexpr ReproGrammar<Problem> kGrammar = {"nc", "nc_grad", kFlags, kShape, kMaxReproSize};

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
  return write_repro(*this, kGrammar, [&](auto option) {
    if (lengths != Problem{}.lengths)
      option("seqs", format_dotted(lengths, [](int64_t l) { return std::to_string(l); }));
  });
}

std::optional<Problem> Problem::parse_repro(std::string_view text) {
  auto p = read_repro(text, kGrammar, [](ReproLine& line, Problem& p) {
    if (auto v = line.take("seqs")) {
      auto lengths = parse_dotted<int64_t>(*v, kMaxBatches, [](std::string_view item) {
        return parse_int_in(item, 0, kMaxReproSize);
      });
      if (!lengths || *lengths == Problem{}.lengths) return false;
      p.lengths = *lengths;
    }
    return p.tokens() <= kMaxReproSize;
  });
  if (p && p->null_seq_len && p->lengths.size() != 1) return std::nullopt;
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
