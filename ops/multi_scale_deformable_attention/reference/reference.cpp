// NOTE: Naive double-precision oracle; see reference.h for why it shares nothing with the kernels.
#include "ops/multi_scale_deformable_attention/reference/reference.h"

#include <cmath>

namespace gradconf::msda::reference {
namespace {

// One sampling point: the guard decides whether it is taken, then four corners with weights.
struct Corner {
  int64_t y, x;
  double weight, dweight_dx, dweight_dy;
};

struct SamplePoint {
  bool taken = false;
  Corner corners[4];
};

SamplePoint sample_point(double loc_x, double loc_y, int64_t h, int64_t w) {
  SamplePoint s;
  const double x = loc_x * static_cast<double>(w) - 0.5;
  const double y = loc_y * static_cast<double>(h) - 0.5;
  if (!(std::isfinite(x) && std::isfinite(y))) return s;
  if (!(x > -1 && x < static_cast<double>(w) && y > -1 && y < static_cast<double>(h))) return s;
  s.taken = true;
  const double fx = std::floor(x), fy = std::floor(y);
  const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
  const double tx = x - fx, ty = y - fy;
  s.corners[0] = {y0, x0, (1 - tx) * (1 - ty), -(1 - ty), -(1 - tx)};
  s.corners[1] = {y0, x0 + 1, tx * (1 - ty), 1 - ty, -tx};
  s.corners[2] = {y0 + 1, x0, (1 - tx) * ty, -ty, 1 - tx};
  s.corners[3] = {y0 + 1, x0 + 1, tx * ty, ty, tx};
  return s;
}

struct Index {
  const Dims& d;
  int64_t value(int64_t b, int64_t k, int64_t m, int64_t c) const {
    return ((b * d.keys + k) * d.heads + m) * d.channels + c;
  }
  int64_t point(int64_t b, int64_t q, int64_t m, int64_t l, int64_t p) const {
    return (((b * d.queries + q) * d.heads + m) * d.levels + l) * d.points + p;
  }
  int64_t out(int64_t b, int64_t q, int64_t m, int64_t c) const {
    return ((b * d.queries + q) * d.heads + m) * d.channels + c;
  }
};

bool corner_inside(const Corner& c, int64_t h, int64_t w) {
  return c.y >= 0 && c.y < h && c.x >= 0 && c.x < w;
}

}  // namespace

std::vector<double> forward(const Dims& d, const LevelTable& levels,
                            const std::vector<double>& value, const std::vector<double>& location,
                            const std::vector<double>& attn_weight) {
  const Index ix{d};
  std::vector<double> out(static_cast<size_t>(d.batch * d.queries * d.heads * d.channels), 0.0);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t q = 0; q < d.queries; ++q)
      for (int64_t m = 0; m < d.heads; ++m)
        for (int64_t c = 0; c < d.channels; ++c) {
          double sum = 0;
          for (int64_t l = 0; l < d.levels; ++l) {
            const int64_t h = levels.height[l], w = levels.width[l], start = levels.start[l];
            for (int64_t p = 0; p < d.points; ++p) {
              const int64_t pt = ix.point(b, q, m, l, p);
              const SamplePoint s = sample_point(location[2 * pt], location[2 * pt + 1], h, w);
              if (!s.taken) continue;
              double sample = 0;
              for (const Corner& corner : s.corners) {
                if (!corner_inside(corner, h, w)) continue;
                sample += corner.weight * value[ix.value(b, start + corner.y * w + corner.x, m, c)];
              }
              sum += attn_weight[pt] * sample;
            }
          }
          out[ix.out(b, q, m, c)] = sum;
        }
  return out;
}

namespace {

// magnitudes: every weight derivative by its absolute value (the weights are never negative),
// so that with |value|, |attn_weight| and |grad_output| each element sums |terms|.
Gradients backward_sums(const Dims& d, const LevelTable& levels, const std::vector<double>& value,
                        const std::vector<double>& location, const std::vector<double>& attn_weight,
                        const std::vector<double>& grad_output, bool magnitudes) {
  const auto factor = [magnitudes](double f) { return magnitudes ? std::fabs(f) : f; };
  const Index ix{d};
  Gradients g;
  g.value.assign(value.size(), 0.0);
  g.location.assign(location.size(), 0.0);
  g.attn_weight.assign(attn_weight.size(), 0.0);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t q = 0; q < d.queries; ++q)
      for (int64_t m = 0; m < d.heads; ++m)
        for (int64_t l = 0; l < d.levels; ++l) {
          const int64_t h = levels.height[l], w = levels.width[l], start = levels.start[l];
          for (int64_t p = 0; p < d.points; ++p) {
            const int64_t pt = ix.point(b, q, m, l, p);
            const SamplePoint s = sample_point(location[2 * pt], location[2 * pt + 1], h, w);
            if (!s.taken) continue;
            const double a = attn_weight[pt];
            double d_attn = 0, d_x = 0, d_y = 0;
            for (int64_t c = 0; c < d.channels; ++c) {
              const double go = grad_output[ix.out(b, q, m, c)];
              for (const Corner& corner : s.corners) {
                if (!corner_inside(corner, h, w)) continue;
                const int64_t key = start + corner.y * w + corner.x;
                const double v = value[ix.value(b, key, m, c)];
                g.value[ix.value(b, key, m, c)] += corner.weight * a * go;
                d_attn += go * corner.weight * v;
                d_x += go * a * factor(corner.dweight_dx) * v;
                d_y += go * a * factor(corner.dweight_dy) * v;
              }
            }
            g.attn_weight[pt] = d_attn;
            g.location[2 * pt] = d_x * static_cast<double>(w);
            g.location[2 * pt + 1] = d_y * static_cast<double>(h);
          }
        }
  return g;
}

std::vector<double> magnitudes_of(std::vector<double> values) {
  for (double& v : values) v = std::fabs(v);
  return values;
}

}  // namespace

Gradients backward(const Dims& d, const LevelTable& levels, const std::vector<double>& value,
                   const std::vector<double>& location, const std::vector<double>& attn_weight,
                   const std::vector<double>& grad_output) {
  return backward_sums(d, levels, value, location, attn_weight, grad_output, false);
}

std::vector<double> forward_term_magnitudes(const Dims& d, const LevelTable& levels,
                                            const std::vector<double>& value,
                                            const std::vector<double>& location,
                                            const std::vector<double>& attn_weight) {
  return forward(d, levels, magnitudes_of(value), location, magnitudes_of(attn_weight));
}

Gradients backward_term_magnitudes(const Dims& d, const LevelTable& levels,
                                   const std::vector<double>& value,
                                   const std::vector<double>& location,
                                   const std::vector<double>& attn_weight,
                                   const std::vector<double>& grad_output) {
  return backward_sums(d, levels, magnitudes_of(value), location, magnitudes_of(attn_weight),
                       magnitudes_of(grad_output), true);
}

}  // namespace gradconf::msda::reference
