#include "multi_scale_deformable_attention/problem.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/random.h"
#include "core/repro.h"

namespace gradconf::msda {
namespace {

constexpr std::string_view kRoleNames[kRoleCount] = {
    "value",      "spatialShape", "levelStartIndex", "location",     "attnWeight",
    "gradOutput", "output",       "gradValue",       "gradLocation", "gradAttnWeight"};
constexpr std::string_view kFillNames[] = {"uniform", "specials", "smooth", "detr"};
// Sizes in repro lines stay far below anything the ops accept, so no arithmetic can overflow.
constexpr int64_t kMaxReproSize = 1 << 20;

constexpr FlagKey<Problem> kFlags[] = {{"zeros", &Problem::zero_weights}};
constexpr ShapeField<Problem> kShape[] = {{"b", &Problem::batch},
                                          {"m", &Problem::heads},
                                          {"c", &Problem::channels},
                                          {"q", &Problem::queries},
                                          {"p", &Problem::points}};
constexpr ReproGrammar<Problem> kGrammar = {"msda", "msda_grad", kFlags, kShape, kMaxReproSize};

std::string index_width(aclDataType dtype) { return dtype == ACL_INT32 ? "32" : "64"; }

std::optional<aclDataType> parse_index_width(std::string_view text) {
  if (text == "32") return ACL_INT32;
  if (text == "64") return ACL_INT64;
  return std::nullopt;
}

// A location whose pixel coordinate (x * size - 0.5) is a special place of the level.
double special_location(SplitMix64& rng, int64_t size) {
  const double s = static_cast<double>(size);
  switch (rng.below(10)) {
    case 0:
      return 0.0;
    case 1:
      return 1.0;
    case 2:
      return std::numeric_limits<double>::quiet_NaN();
    case 3:
      return rng.below(2) ? std::numeric_limits<double>::infinity()
                          : -std::numeric_limits<double>::infinity();
    case 4: {  // the guard -1 < x < W, exactly or a few float ulps on either side
      const double edge = rng.below(2) ? -0.5 / s : (s + 0.5) / s;
      float nudged = static_cast<float>(edge);
      const float toward = rng.below(2) ? 1.0f : -1.0f;
      for (int i = 0, n = static_cast<int>(rng.below(3)); i < n; ++i) {
        nudged = std::nextafter(nudged, toward * std::numeric_limits<float>::infinity());
      }
      return nudged;
    }
    case 5: {  // a few float ulps off a pixel edge (integer pixel coordinate)
      const double edge =
          (static_cast<double>(rng.below(static_cast<uint64_t>(size) + 1)) + 0.5) / s;
      float nudged = static_cast<float>(edge);
      const float toward = rng.below(2) ? 1.0f : -1.0f;
      return std::nextafter(nudged, toward * std::numeric_limits<float>::infinity());
    }
    default:  // an exact pixel centre (j + 0.5) / W
      return (static_cast<double>(rng.below(static_cast<uint64_t>(size))) + 0.5) / s;
  }
}

// Pixel coordinates at least 0.1 away from integers (the bilinear kinks) and inside the guard.
// Element i of location (bs, Q, heads, L, P, 2) as Deformable-DETR forms it: the query's
// reference point plus an offset of up to 4 pixels of the element's level.
double detr_location(const Problem& p, int64_t i, SplitMix64& rng) {
  const bool is_x = i % 2 == 0;
  const int64_t levels = static_cast<int64_t>(p.levels.size());
  const int64_t query = i / 2 / (p.points * levels * p.heads) % p.queries;
  const auto& level = p.levels[static_cast<size_t>(i / 2 / p.points % levels)];
  const int64_t size = is_x ? level[1] : level[0];
  // The query's reference point: the centre of pixel `query` of the levels in order (an encoder
  // query), or a point of its own stream (a decoder query past the last pixel).
  double reference =
      SplitMix64(p.seed, (uint64_t{1} << 32) + 2 * static_cast<uint64_t>(query) + (is_x ? 0 : 1))
          .unit();
  int64_t first = 0;
  for (const auto& [h, w] : p.levels) {
    if (query >= first && query < first + h * w) {
      const int64_t pixel = query - first;
      reference = is_x ? (static_cast<double>(pixel % w) + 0.5) / static_cast<double>(w)
                       : (static_cast<double>(pixel / w) + 0.5) / static_cast<double>(h);
    }
    first += h * w;
  }
  // Up to 4 pixels (the model's reach on its 8x8..64x64 maps); on the generators' tiny levels no
  // more than half the level, so most samples still land inside it.
  const double reach = std::min(4.0, static_cast<double>(size) / 2);
  return reference + rng.uniform(-reach, reach) / static_cast<double>(size);
}

double smooth_location(SplitMix64& rng, int64_t size) {
  const double s = static_cast<double>(size);
  for (;;) {
    const double pixel = rng.uniform(-0.9, s - 0.1);
    const double frac = pixel - std::floor(pixel);
    if (frac > 0.1 && frac < 0.9) return (pixel + 0.5) / s;
  }
}

}  // namespace

std::string_view role_name(Role role) { return kRoleNames[static_cast<int>(role)]; }

std::string_view location_fill_name(LocationFill fill) {
  return kFillNames[static_cast<int>(fill)];
}

int64_t Problem::keys() const {
  int64_t keys = extra_keys;
  for (const auto& [h, w] : levels) keys += h * w;
  return keys;
}

std::vector<int64_t> Problem::level_starts() const {
  std::vector<int64_t> starts;
  int64_t start = extra_keys;  // the extra keys come first: starts are not the cumulative sizes
  for (const auto& [h, w] : levels) {
    starts.push_back(start);
    start += h * w;
  }
  return starts;
}

std::vector<int64_t> Problem::dims(Role role) const {
  const int64_t l = static_cast<int64_t>(levels.size());
  switch (role) {
    case Role::kValue:
    case Role::kGradValue:
      return {batch, keys(), heads, channels};
    case Role::kSpatialShape:
      return {l, 2};
    case Role::kLevelStartIndex:
      return {l};
    case Role::kLocation:
    case Role::kGradLocation:
      return {batch, queries, heads, l, points, 2};
    case Role::kAttnWeight:
    case Role::kGradAttnWeight:
      return {batch, queries, heads, l, points};
    case Role::kGradOutput:
    case Role::kOutput:
      // cann-latest: (bs, Q, heads * C), the same elements in the same order (errata E-MSDA-4).
      if (profile == SpecProfile::kCannLatest) return {batch, queries, heads * channels};
      return {batch, queries, heads, channels};
  }
  return {};
}

aclDataType Problem::dtype_of(Role role) const {
  if (role == Role::kSpatialShape) return shape_dtype;
  if (role == Role::kLevelStartIndex) return start_dtype;
  return dtype;
}

std::vector<Role> Problem::roles() const {
  if (entry == Direction::kForward) {
    return {Role::kValue,    Role::kSpatialShape, Role::kLevelStartIndex,
            Role::kLocation, Role::kAttnWeight,   Role::kOutput};
  }
  return {Role::kValue,     Role::kSpatialShape, Role::kLevelStartIndex,
          Role::kLocation,  Role::kAttnWeight,   Role::kGradOutput,
          Role::kGradValue, Role::kGradLocation, Role::kGradAttnWeight};
}

std::string_view Problem::op_name() const {
  return entry == Direction::kForward ? "MultiScaleDeformableAttention"
                                      : "MultiScaleDeformableAttentionGrad";
}

std::string Problem::to_repro() const {
  const Problem defaults;
  return write_repro(*this, kGrammar, [&](auto option) {
    if (shape_dtype != defaults.shape_dtype || start_dtype != defaults.start_dtype) {
      option("idx", index_width(shape_dtype) + "." + index_width(start_dtype));
    }
    if (levels != defaults.levels) {
      option("levels", levels.empty() ? "none" : format_dotted(levels, format_size_pair));
    }
    if (extra_keys != 0) option("extra", std::to_string(extra_keys));
    if (location_fill != defaults.location_fill) {
      option("loc", std::string(location_fill_name(location_fill)));
    }
  });
}

namespace {

// MSDA's own keys: index dtypes, levels, extra keys and the location fill (each only when not
// the default, so every problem has one line).
bool take_op_keys(ReproLine& line, Problem& p) {
  if (auto v = line.take("idx")) {
    const size_t dot = v->find('.');
    if (dot == std::string::npos) return false;
    auto shape = parse_index_width(std::string_view(*v).substr(0, dot));
    auto start = parse_index_width(std::string_view(*v).substr(dot + 1));
    if (!shape || !start || (*shape == ACL_INT64 && *start == ACL_INT64)) return false;
    p.shape_dtype = *shape;
    p.start_dtype = *start;
  }
  if (auto v = line.take("levels")) {
    auto levels = *v == "none"
                      ? std::vector<std::array<int64_t, 2>>{}
                      : parse_dotted<std::array<int64_t, 2>>(*v, 64, [](std::string_view item) {
                          return parse_size_pair(item, 1, kMaxReproSize);
                        });
    if (!levels || *levels == Problem{}.levels) return false;
    p.levels = *levels;
  }
  if (auto v = line.take("extra")) {
    auto extra = parse_int_in(*v, 1, kMaxReproSize);
    if (!extra) return false;
    p.extra_keys = *extra;
  }
  if (auto v = line.take("loc")) {
    auto it = std::find(std::begin(kFillNames), std::end(kFillNames), *v);
    if (it == std::end(kFillNames) || it == std::begin(kFillNames)) return false;
    p.location_fill = static_cast<LocationFill>(it - std::begin(kFillNames));
  }
  return true;
}

}  // namespace

std::optional<Problem> Problem::parse_repro(std::string_view text) {
  return read_repro(text, kGrammar, take_op_keys);
}

std::vector<double> make_values(const Problem& p, Role role) {
  const std::vector<int64_t> dims = p.dims(role);
  const int64_t count = checked_numel(dims).value_or(0);
  std::vector<double> values(static_cast<size_t>(count));
  if (role == Role::kSpatialShape) {
    for (size_t l = 0; l < p.levels.size(); ++l) {
      values[2 * l] = static_cast<double>(p.levels[l][0]);
      values[2 * l + 1] = static_cast<double>(p.levels[l][1]);
    }
    return values;
  }
  if (role == Role::kLevelStartIndex) {
    const auto starts = p.level_starts();
    for (size_t l = 0; l < starts.size(); ++l) values[l] = static_cast<double>(starts[l]);
    return values;
  }
  SplitMix64 rng(p.seed, static_cast<uint64_t>(role));
  const int64_t levels = static_cast<int64_t>(p.levels.size());
  for (int64_t i = 0; i < count; ++i) {
    double v = 0;
    if (role == Role::kLocation) {
      const bool is_x = i % 2 == 0;
      const auto& level = p.levels[static_cast<size_t>(i / 2 / p.points % levels)];
      const int64_t size = is_x ? level[1] : level[0];
      switch (p.location_fill) {
        case LocationFill::kUniform:
          v = rng.uniform(-0.1, 1.1);
          break;
        case LocationFill::kSpecials:
          v = rng.below(2) ? rng.uniform(-0.1, 1.1) : special_location(rng, size);
          break;
        case LocationFill::kSmooth:
          v = smooth_location(rng, size);
          break;
        case LocationFill::kDetr:
          v = detr_location(p, i, rng);
          break;
      }
    } else if (role == Role::kAttnWeight) {
      v = p.zero_weights && rng.below(4) == 0 ? 0.0 : rng.uniform(0, 1);
    } else {
      v = rng.uniform(-1, 1);
    }
    values[static_cast<size_t>(i)] = round_to_dtype(p.dtype, v);
  }
  return values;
}

}  // namespace gradconf::msda
