#include "grid_sampler2d/problem.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dtype.h"
#include "core/random.h"
#include "core/repro.h"

namespace gradconf::grid_sampler2d {

namespace {
constexpr std::array<std::string_view, kRoleCount> kRoleNames = {
    "gradOutput", "input", "grid", "out", "inputGrad", "gridGrad"};
// Repro lines are for test-sized problems; the limit keeps parse_repro from describing tensors
// no harness could allocate.
constexpr int64_t kMaxReproDim = int64_t{1} << 20;
constexpr FlagKey<Problem> kFlags[] = {{"ac", &Problem::align_corners}};
constexpr ShapeField<Problem> kShape[] = {{"n", &Problem::n},       {"c", &Problem::c},
                                          {"_ih", &Problem::in_h},  {"iw", &Problem::in_w},
                                          {"_oh", &Problem::out_h}, {"ow", &Problem::out_w}};
constexpr ReproGrammar<Problem> kGrammar = {"grid_sampler2d", "grid_sampler2d_backward", kFlags,
                                            kShape, kMaxReproDim};

template <typename E, size_t N>
std::optional<E> lookup(std::string_view text,
                        const std::array<std::pair<std::string_view, E>, N>& names) {
  for (const auto& [name, value] : names) {
    if (name == text) return value;
  }
  return std::nullopt;
}

template <typename E, size_t N>
std::string_view name_of(E value, const std::array<std::pair<std::string_view, E>, N>& names) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "?";
}

constexpr std::array<std::pair<std::string_view, Interpolation>, 3> kInterpNames = {
    {{"bilinear", Interpolation::kBilinear},
     {"nearest", Interpolation::kNearest},
     {"bicubic", Interpolation::kBicubic}}};
constexpr std::array<std::pair<std::string_view, Padding>, 3> kPadNames = {
    {{"zeros", Padding::kZeros},
     {"border", Padding::kBorder},
     {"reflection", Padding::kReflection}}};
constexpr std::array<std::pair<std::string_view, GridFill>, 4> kGridFillNames = {
    {{"uniform", GridFill::kUniform},
     {"specials", GridFill::kSpecials},
     {"exact", GridFill::kExact},
     {"smooth", GridFill::kSmooth}}};
constexpr std::array<std::pair<std::string_view, ValueFill>, 3> kValueFillNames = {
    {{"uniform", ValueFill::kUniform},
     {"dyadic", ValueFill::kDyadic},
     {"specials", ValueFill::kSpecials}}};

// Normalized coordinate of pixel centre / edge `k` (in units of half pixels) along a size.
double exact_coordinate(SplitMix64& rng, int64_t size, bool align_corners) {
  const int64_t half_steps = 2 * size + 2;  // a margin of one pixel beyond each edge
  const double k = static_cast<double>(rng.below(static_cast<uint64_t>(half_steps + 1))) - 1;
  const double pixel = k / 2 - 0.5;  // ..., -0.5 (edge), 0 (centre), 0.5 (edge), ...
  const double s = static_cast<double>(size);
  return align_corners ? (size == 1 ? 0.0 : 2 * pixel / (s - 1) - 1) : (2 * pixel + 1) / s - 1;
}

double special_coordinate(SplitMix64& rng, int64_t size, bool align_corners) {
  static constexpr double kSpecials[] = {1.0,
                                         -1.0,
                                         0.0,
                                         -0.0,
                                         std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         1e30,
                                         -1e30};
  const uint64_t pick = rng.below(16);
  if (pick < std::size(kSpecials)) return kSpecials[pick];
  const double exact = exact_coordinate(rng, size, align_corners);
  if (pick < 12) return exact;
  // A few float ulps off a pixel centre or edge: the fractional offset is within ~2^-24 of 0 or
  // 1, where a kernel that rounds it to float before forming 1 - t loses a tap.
  float nudged = static_cast<float>(exact);
  const int ulps = 1 + static_cast<int>(rng.below(4));
  const float toward = rng.below(2) ? std::numeric_limits<float>::infinity()
                                    : -std::numeric_limits<float>::infinity();
  for (int i = 0; i < ulps; ++i) nudged = std::nextafter(nudged, toward);
  return nudged;
}

// A coordinate whose unnormalized value stays 2^-6 pixel away from integers and half-integers,
// the kinks of bilinear and nearest, and inside the border clamp.
double smooth_coordinate(SplitMix64& rng, int64_t size, bool align_corners) {
  const double s = static_cast<double>(size);
  for (;;) {
    const double x = rng.uniform(-0.9, 0.9);
    const double ix = align_corners ? (x + 1) / 2 * (s - 1) : ((x + 1) * s - 1) / 2;
    const double frac = ix - std::floor(ix);
    const double margin = 1.0 / 64;
    const bool near_kink = frac < margin || frac > 1 - margin || std::fabs(frac - 0.5) < margin;
    const bool near_border = ix < margin || ix > s - 1 - margin;
    // A single aligned pixel maps every x to 0 (no kink to avoid). A single unaligned pixel has
    // no interior, so only the kinks (its centre, and +-1 beyond) are avoided.
    if (size == 1 && align_corners) return x;
    if (!near_kink && (size == 1 || !near_border)) return x;
  }
}
}  // namespace

std::string_view role_name(Role role) { return kRoleNames[static_cast<int>(role)]; }

std::string_view grid_fill_name(GridFill fill) { return name_of(fill, kGridFillNames); }

std::string_view value_fill_name(ValueFill fill) { return name_of(fill, kValueFillNames); }

std::vector<int64_t> Problem::dims(Role role) const {
  switch (role) {
    case Role::kGradOutput:
    case Role::kOut:
      return {n, c, out_h, out_w};
    case Role::kInput:
    case Role::kInputGrad:
      return {n, c, in_h, in_w};
    case Role::kGrid:
    case Role::kGridGrad:
      return {n, out_h, out_w, 2};
  }
  return {};
}

std::vector<Role> Problem::inputs() const {
  if (entry == Direction::kForward) return {Role::kInput, Role::kGrid};
  return {Role::kGradOutput, Role::kInput, Role::kGrid};
}

std::vector<Role> Problem::outputs() const {
  if (entry == Direction::kForward) return {Role::kOut};
  return {Role::kInputGrad, Role::kGridGrad};
}

bool Problem::wants(Role output) const {
  if (entry == Direction::kForward) return output == Role::kOut;
  if (!output_mask) return false;
  return output == Role::kInputGrad ? (*output_mask)[0] : (*output_mask)[1];
}

std::string_view Problem::op_name() const {
  return entry == Direction::kForward ? "GridSampler2D" : "GridSampler2DBackward";
}

std::vector<Role> Problem::roles() const {
  std::vector<Role> all = inputs();
  for (Role role : outputs()) all.push_back(role);
  return all;
}

std::string Problem::to_repro() const {
  const Problem defaults;
  return write_repro(*this, kGrammar, [&](auto option) {
    if (interpolation != defaults.interpolation) {
      option("interp", std::string(name_of(interpolation, kInterpNames)));
    }
    if (padding != defaults.padding) option("pad", std::string(name_of(padding, kPadNames)));
    if (entry == Direction::kBackward && output_mask != defaults.output_mask) {
      option("mask", output_mask
                         ? std::string{(*output_mask)[0] ? '1' : '0', (*output_mask)[1] ? '1' : '0'}
                         : std::string("null"));
    }
    if (grid_fill != defaults.grid_fill) {
      option("grid", std::string(name_of(grid_fill, kGridFillNames)));
    }
    if (value_fill != defaults.value_fill) {
      option("values", std::string(name_of(value_fill, kValueFillNames)));
    }
  });
}

namespace {

// GridSampler2D's own keys: modes, outputMask and the fills (each only when not
// the default, so every problem has one line).
bool take_op_keys(ReproLine& line, Problem& p) {
  const Problem defaults;
  if (auto v = line.take("interp")) {
    auto mode = lookup(*v, kInterpNames);
    if (!mode || *mode == defaults.interpolation) return false;
    p.interpolation = *mode;
  }
  if (auto v = line.take("pad")) {
    auto mode = lookup(*v, kPadNames);
    if (!mode || *mode == defaults.padding) return false;
    p.padding = *mode;
  }
  if (auto v = line.take("mask")) {
    const bool bits =
        v->size() == 2 && ((*v)[0] == '0' || (*v)[0] == '1') && ((*v)[1] == '0' || (*v)[1] == '1');
    if (p.entry == Direction::kForward || (*v != "null" && !bits)) return false;
    if (*v == "null") {
      p.output_mask = std::nullopt;
    } else {
      p.output_mask = std::array<bool, 2>{(*v)[0] == '1', (*v)[1] == '1'};
    }
    if (p.output_mask == defaults.output_mask) return false;
  }
  if (auto v = line.take("grid")) {
    auto fill = lookup(*v, kGridFillNames);
    if (!fill || *fill == defaults.grid_fill) return false;
    p.grid_fill = *fill;
  }
  if (auto v = line.take("values")) {
    auto fill = lookup(*v, kValueFillNames);
    if (!fill || *fill == defaults.value_fill) return false;
    p.value_fill = *fill;
  }
  return true;
}

}  // namespace

std::optional<Problem> Problem::parse_repro(std::string_view text) {
  return read_repro(text, kGrammar, take_op_keys);
}

std::ostream& operator<<(std::ostream& os, const Problem& problem) {
  return os << problem.to_repro();
}

std::vector<double> make_values(const Problem& p, Role role) {
  const std::vector<int64_t> dims = p.dims(role);
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<double> values(static_cast<size_t>(count));
  SplitMix64 rng(p.seed, static_cast<uint64_t>(role));
  const uint32_t broadcast = p.layout(role).broadcast;
  // Along a broadcast dim every index reads storage index 0: copy from that element.
  auto source_of = [&](int64_t flat) {
    int64_t source = 0, stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      const int64_t index = flat % dims[d];
      flat /= dims[d];
      if (!((broadcast >> d) & 1u)) source += index * stride;
      stride *= dims[d];
    }
    return source;
  };
  for (int64_t i = 0; i < count; ++i) {
    const int64_t source = source_of(i);
    if (source != i) {
      values[i] = values[source];  // source < i: row-major order visits it first
      continue;
    }
    double v = 0;
    if (role == Role::kGrid) {
      const bool is_x = i % 2 == 0;
      const int64_t size = is_x ? p.in_w : p.in_h;
      switch (p.grid_fill) {
        case GridFill::kUniform:
          v = rng.below(100) < 85 ? rng.uniform(-1.2, 1.2) : rng.uniform(-2, 2);
          break;
        case GridFill::kSpecials:
          v = rng.below(2) ? rng.uniform(-1.2, 1.2)
                           : special_coordinate(rng, size, p.align_corners);
          break;
        case GridFill::kExact:
          v = exact_coordinate(rng, size, p.align_corners);
          break;
        case GridFill::kSmooth:
          v = smooth_coordinate(rng, size, p.align_corners);
          break;
      }
    } else if (p.value_fill == ValueFill::kDyadic) {
      v = (static_cast<double>(rng.below(33)) - 16) / 4;
    } else if (p.value_fill == ValueFill::kSpecials && role == Role::kInput && rng.below(8) == 0) {
      static constexpr double kNonFinite[] = {std::numeric_limits<double>::infinity(),
                                              -std::numeric_limits<double>::infinity(),
                                              std::numeric_limits<double>::quiet_NaN()};
      v = kNonFinite[rng.below(3)];
    } else {
      v = rng.uniform(-1, 1);
    }
    values[i] = round_to_dtype(p.dtype, v);
  }
  return values;
}

}  // namespace gradconf::grid_sampler2d
