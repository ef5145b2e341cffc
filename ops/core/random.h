// A small deterministic generator for fills: the same (seed, stream) gives the same values on
// every platform and standard library (std:: distributions do not promise that).
#ifndef GRADCONF_OPS_CORE_RANDOM_H_
#define GRADCONF_OPS_CORE_RANDOM_H_

#include <cstdint>

namespace gradconf {

class SplitMix64 {
 public:
  SplitMix64(uint64_t seed, uint64_t stream)
      : state_(seed * 0x9E3779B97F4A7C15ull ^ (stream + 1) * 0xD1B54A32D192ED03ull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  /// Uniform integer in [0, bound), bound > 0.
  uint64_t below(uint64_t bound) { return next() % bound; }

 private:
  uint64_t state_;
};

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_RANDOM_H_
