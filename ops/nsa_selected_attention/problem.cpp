#include "nsa_selected_attention/problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/random.h"
#include "core/repro.h"

namespace gradconf::nsa {
namespace {

constexpr std::string_view kRoleNames[kRoleCount] = {"query",
                                                     "key",
                                                     "value",
                                                     "topkIndices",
                                                     "attenMaskOptional",
                                                     "attentionOut",
                                                     "attentionOutGrad",
                                                     "softmaxMax",
                                                     "softmaxSum",
                                                     "softmaxMaxOut",
                                                     "softmaxSumOut",
                                                     "dqOut",
                                                     "dkOut",
                                                     "dvOut"};
constexpr std::string_view kFillNames[] = {"causal", "arbitrary"};
constexpr int64_t kMaxReproSize = 1 << 20;
constexpr size_t kMaxBatches = 4096;

constexpr FlagKey<Problem> kFlags[] = {{"mask", &Problem::with_mask},
                                       {"no-out", &Problem::null_attention_out}};
constexpr ShapeField<Problem> kShape[] = {{"n", &Problem::q_heads},  {"m", &Problem::kv_heads, 1},
                                          {"dq", &Problem::dim_qk},  {"dv", &Problem::dim_v},
                                          {"b", &Problem::block, 1}, {"k", &Problem::count}};
constexpr ReproGrammar<Problem> kGrammar = {"nsa", "nsa_grad", kFlags, kShape, kMaxReproSize};

}  // namespace

std::string_view role_name(Role role) { return kRoleNames[static_cast<int>(role)]; }
std::string_view topk_fill_name(TopkFill fill) { return kFillNames[static_cast<int>(fill)]; }

int64_t Problem::q_tokens() const {
  int64_t t = 0;
  for (const auto& s : seqs) t += s[0];
  return t;
}

int64_t Problem::kv_tokens() const {
  int64_t t = 0;
  for (const auto& s : seqs) t += s[1];
  return t;
}

std::vector<int64_t> Problem::seq_q() const {
  std::vector<int64_t> prefix;
  int64_t sum = 0;
  for (const auto& s : seqs) prefix.push_back(sum += s[0]);
  return prefix;
}

std::vector<int64_t> Problem::seq_kv() const {
  std::vector<int64_t> prefix;
  int64_t sum = 0;
  for (const auto& s : seqs) prefix.push_back(sum += s[1]);
  return prefix;
}

double Problem::scale_value() const {
  return scale != 0 ? scale : 1.0 / std::sqrt(static_cast<double>(dim_qk));
}

DimVector Problem::dims(Role role) const {
  const int64_t t1 = q_tokens(), t2 = kv_tokens();
  switch (role) {
    case Role::kQuery:
    case Role::kDq:
      return {t1, q_heads, dim_qk};
    case Role::kKey:
    case Role::kDk:
      return {t2, kv_heads, dim_qk};
    case Role::kValue:
    case Role::kDv:
      return {t2, kv_heads, dim_v};
    case Role::kTopk:
      return {t1, kv_heads, count};
    case Role::kAttenMask: {
      int64_t s1 = 0, s2 = 0;
      for (const auto& s : seqs) {
        s1 = std::max(s1, s[0]);
        s2 = std::max(s2, s[1]);
      }
      return {s1, s2};
    }
    case Role::kAttentionOut:
    case Role::kAttentionOutGrad:
      return {t1, q_heads, dim_v};
    case Role::kSoftmaxMax:
    case Role::kSoftmaxSum:
    case Role::kSoftmaxMaxOut:
    case Role::kSoftmaxSumOut:
      return {t1, q_heads, 8};
  }
  return {};
}

aclDataType Problem::dtype_of(Role role) const {
  switch (role) {
    case Role::kTopk:
      return ACL_INT32;
    case Role::kAttenMask:
      return ACL_BOOL;
    case Role::kSoftmaxMax:
    case Role::kSoftmaxSum:
    case Role::kSoftmaxMaxOut:
    case Role::kSoftmaxSumOut:
      return dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;  // DOUBLE: `extended` only
    default:
      return dtype;
  }
}

std::vector<Role> Problem::roles() const {
  if (entry == Direction::kForward) {
    return {Role::kQuery,     Role::kKey,           Role::kValue,         Role::kTopk,
            Role::kAttenMask, Role::kSoftmaxMaxOut, Role::kSoftmaxSumOut, Role::kAttentionOut};
  }
  return {Role::kQuery,
          Role::kKey,
          Role::kValue,
          Role::kAttentionOut,
          Role::kAttentionOutGrad,
          Role::kSoftmaxMax,
          Role::kSoftmaxSum,
          Role::kTopk,
          Role::kAttenMask,
          Role::kDq,
          Role::kDk,
          Role::kDv};
}

std::string_view Problem::op_name() const {
  return entry == Direction::kForward ? "NsaSelectedAttention" : "NsaSelectedAttentionGrad";
}

std::string Problem::to_repro() const {
  const Problem defaults;
  return write_repro(*this, kGrammar, [&](auto option) {
    if (seqs != defaults.seqs) option("seqs", format_dotted(seqs, format_size_pair));
    if (sparse_mode != defaults.sparse_mode) option("sparse", std::to_string(sparse_mode));
    if (topk_fill != defaults.topk_fill) option("topk", std::string(topk_fill_name(topk_fill)));
    if (scale != defaults.scale) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", scale);
      option("scale", text);
    }
  });
}

namespace {

// NSA's own keys: the batches' lengths, sparseMode, the topk fill and the scale (each only when
// not the default, so every problem has one line).
bool take_op_keys(ReproLine& line, Problem& p) {
  if (auto v = line.take("seqs")) {
    auto seqs = parse_dotted<std::array<int64_t, 2>>(*v, kMaxBatches, [](std::string_view item) {
      return parse_size_pair(item, 0, kMaxReproSize);
    });
    if (!seqs || *seqs == Problem{}.seqs) return false;
    p.seqs = *seqs;
    if (p.q_tokens() > kMaxReproSize || p.kv_tokens() > kMaxReproSize) return false;
  }
  if (auto v = line.take("sparse")) {
    auto mode = parse_int_in(*v, -kMaxReproSize, kMaxReproSize);
    if (!mode || *mode == Problem{}.sparse_mode) return false;
    p.sparse_mode = *mode;
  }
  if (auto v = line.take("topk")) {
    if (*v != "arbitrary") return false;
    p.topk_fill = TopkFill::kArbitrary;
  }
  if (auto v = line.take("scale")) {
    char* end = nullptr;
    const std::string s(*v);
    const double scale = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || scale == 0 || !std::isfinite(scale)) return false;
    p.scale = scale;
  }
  return true;
}

}  // namespace

std::optional<Problem> Problem::parse_repro(std::string_view text) {
  return read_repro(text, kGrammar, take_op_keys);
}

std::vector<double> make_values(const Problem& p, Role role) {
  const int64_t count = checked_numel(p.dims(role)).value_or(0);
  std::vector<double> values(static_cast<size_t>(count));
  SplitMix64 rng(p.seed, static_cast<uint64_t>(role));
  if (role == Role::kTopk) {
    std::vector<int64_t> pool;  // one buffer for every slot's candidate blocks
    int64_t t = 0;
    for (const auto& [q_len, kv_len] : p.seqs) {
      const int64_t blocks = std::max<int64_t>(kv_len / p.block, 1);
      for (int64_t s = 0; s < q_len; ++s, ++t) {
        for (int64_t n2 = 0; n2 < p.kv_heads; ++n2) {
          double* slots = values.data() + (t * p.kv_heads + n2) * p.count;
          if (p.topk_fill == TopkFill::kArbitrary) {
            for (int64_t k = 0; k < p.count; ++k) {
              slots[k] = static_cast<double>(rng.below(static_cast<uint64_t>(blocks)));
            }
            continue;
          }
          // Causal: the own block (usually), then distinct earlier blocks, then repeats.
          const int64_t own = std::min(s / p.block, blocks - 1);
          pool.clear();
          for (int64_t b = 0; b <= own; ++b) pool.push_back(b);
          for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[rng.below(i)]);
          if (rng.below(8) != 0) {
            std::swap(pool.front(), *std::find(pool.begin(), pool.end(), own));
          }
          for (int64_t k = 0; k < p.count; ++k) {
            slots[k] = static_cast<double>(k < static_cast<int64_t>(pool.size())
                                               ? pool[static_cast<size_t>(k)]
                                               : pool[rng.below(pool.size())]);
          }
        }
      }
    }
    return values;
  }
  if (role == Role::kAttenMask) {
    for (double& v : values) v = static_cast<double>(rng.below(2));
    return values;
  }
  for (double& v : values) v = round_to_dtype(p.dtype, rng.uniform(-1, 1));
  return values;
}

}  // namespace gradconf::nsa
