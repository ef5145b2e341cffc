// What every law returns, and the helpers laws share. A law is a function template over an op's
// traits (the OpTraits concept in properties/registry/registry.h lists the members a traits struct
// provides): it runs problems through the harness on a Backend and says whether the law held, and
// if not, why, with the problem's repro line so any failure can be re-run.
#ifndef GRADCONF_PROPERTIES_LAWS_LAW_H_
#define GRADCONF_PROPERTIES_LAWS_LAW_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare.h"
#include "harness/backend.h"
#include "harness/harness.h"
#include "op/call.h"

namespace gradconf::props {

/// A reference value set for one output tensor of a call.
struct ExpectedOutput {
  int tensor = -1;   ///< index in the call's tensors
  std::string name;  ///< the C API parameter name (tolerance table key)
  std::vector<int64_t> dims;
  std::vector<double> values;
  /// Elements that are zero by construction whatever the inputs hold (an NSA key that no
  /// unmasked selection reaches gets dk = dv = 0). They are compared like the rest, but they are
  /// no evidence: the mistrust judgement leaves them out.
  int64_t structural_zeros = 0;
  /// Per element, the sum of the magnitudes of the products it sums, and the number of those
  /// products (the longest such sum): with them an element that cancels is held to the error a
  /// correct kernel may make on it (cancellation_floor). Empty: the table's bound alone.
  std::vector<double> term_magnitudes = {};
  int64_t terms = 0;
  std::vector<double> evaluation_scales = {};  ///< TermMagnitudes::evaluation_scales

  /// compare()'s per-element floors for `dtype` (empty without term magnitudes).
  std::vector<double> floors(aclDataType dtype) const {
    std::vector<double> out;
    out.reserve(term_magnitudes.size());
    const bool scaled = evaluation_scales.size() == term_magnitudes.size();
    for (size_t i = 0; i < term_magnitudes.size(); ++i) {
      out.push_back(cancellation_floor(dtype, terms, term_magnitudes[i],
                                       scaled ? evaluation_scales[i] : -1.0));
    }
    return out;
  }
  /// This output of `got` against these values under `row`.
  Comparison compare_with(std::span<const double> got, const Tolerance& row,
                          aclDataType dtype) const {
    return compare(got, values, dims, row, floors(dtype));
  }
};

/// Per element of one output (by role), the sum of the magnitudes of the products the reference
/// sums for it, and how many products that is (ExpectedOutput::term_magnitudes, terms).
template <typename Role>
struct TermMagnitudes {
  Role role;
  std::vector<double> magnitudes;
  int64_t terms = 0;
  /// Per element, the scale its products' computed factors err in (cancellation_floor); empty
  /// where the factors are inputs or exact up to one rounding.
  std::vector<double> evaluation_scales = {};
};

/// compare()'s floors for the output at `tensor` among a call's reference outputs (empty when the
/// reference has none for it: the table's bound alone).
inline std::vector<double> floors_for(const std::vector<ExpectedOutput>& reference, int tensor,
                                      aclDataType dtype) {
  for (const ExpectedOutput& e : reference) {
    if (e.tensor == tensor) return e.floors(dtype);
  }
  return {};
}

/// One input the forward is differentiable in, and where its gradient appears, by role name.
struct Differentiable {
  std::string_view input;     ///< x in forward(x, ...): a role of the forward entry
  std::string_view output;    ///< y = forward(...): an output role of the forward entry
  std::string_view incoming;  ///< g = dL/dy: an input role of the backward entry
  std::string_view gradient;  ///< dL/dx: an output role of the backward entry
  bool linear = false;        ///< forward is linear in x: the adjoint identity holds exactly
};

/// Position of `role` in `call`'s tensors; a role the entry lacks is a bug of the op's traits.
inline size_t role_at(const Call& call, std::string_view role) {
  const int index = call.index_of(role);
  if (index < 0) {
    throw std::logic_error("no role '" + std::string(role) + "' in " +
                           std::string(call.entry_name()));
  }
  return static_cast<size_t>(index);
}

/// What a law measured on one case, for reports. Every law records what it compared: elements
/// held to an error bound (with the worst |error| / bound), elements compared bit for bit, and
/// checks that are not numbers (statuses, messages, canaries, child processes). A case that held
/// with all three at zero compared nothing: it is not counted as a case (LawResult::vacuous).
struct LawMeasurements {
  int64_t bounded_elements = 0;  ///< numbers held to an error bound
  int64_t exact_elements = 0;    ///< numbers compared bit for bit
  int64_t checks = 0;            ///< statuses, messages, canaries, child verdicts
  int64_t mismatches = 0;
  double worst_error_over_bound = 0;  ///< max |error| / allowed error (<= 1 when it holds)
  double max_abs_error = 0;
  /// max |error| / max(|expected|, atol / rtol): relative where the bound is relative, in units of
  /// the row's absolute floor below it; never infinite for finite values (scalar laws divide by
  /// their sum of |terms|).
  double max_rel_error = 0;
  /// The older CANN standard's MERE (mean of |a-g| / (|g| + 1e-7) over one output) and MARE (its
  /// max): the worst output of the case. Only comparisons against a reference carry them.
  double mere = 0;
  double mare = 0;
  bool has_mere = false;

  bool compared_anything() const { return bounded_elements + exact_elements + checks > 0; }
  bool bounded() const { return bounded_elements > 0; }

  /// A comparison of `c.count` elements; `against_reference`: it carries MERE / MARE.
  void add(const Comparison& c, bool against_reference = true) {
    bounded_elements += c.count;
    mismatches += c.count - c.matched;
    max_rel_error = std::max(max_rel_error, c.max_scaled_rel_error);
    max_abs_error = std::max(max_abs_error, c.max_abs_error);
    // The per-element bound atol + rtol |g| and the case's cap both bound the error: the margin
    // is the tighter of the two ratios' worst.
    worst_error_over_bound = std::max(worst_error_over_bound, c.worst_error_over_bound);
    if (against_reference && c.count > 0) {
      mere = std::max(mere, c.mere);
      mare = std::max(mare, c.mare);
      has_mere = true;
    }
  }
  /// One check |error| <= bound, relative to `magnitude` (the scale the bound grows with).
  void add_bound(double error, double bound, double magnitude) {
    bounded_elements += 1;
    if (!(error <= bound)) mismatches += 1;
    max_abs_error = std::max(max_abs_error, error);
    if (magnitude > 0) max_rel_error = std::max(max_rel_error, error / magnitude);
    if (bound > 0) worst_error_over_bound = std::max(worst_error_over_bound, error / bound);
  }
  void add_exact(int64_t elements) { exact_elements += elements; }
  void add_checks(int64_t count) { checks += count; }
  /// `m`'s counts and margin only: its errors are in another dtype's units (dtype_agreement).
  void merge_margin(const LawMeasurements& m) {
    bounded_elements += m.bounded_elements;
    exact_elements += m.exact_elements;
    checks += m.checks;
    mismatches += m.mismatches;
    worst_error_over_bound = std::max(worst_error_over_bound, m.worst_error_over_bound);
  }
  void merge(const LawMeasurements& m) {
    merge_margin(m);
    max_abs_error = std::max(max_abs_error, m.max_abs_error);
    max_rel_error = std::max(max_rel_error, m.max_rel_error);
    mere = std::max(mere, m.mere);
    mare = std::max(mare, m.mare);
    has_mere = has_mere || m.has_mere;
  }
};

struct LawResult {
  bool holds = true;
  bool mistrusted = false;  ///< held, but on data too dominated by zeros to prove much
  std::string detail;       ///< why it failed (empty when it held)
  std::string mistrust_reason;
  LawMeasurements measured;
  /// What the case was, for reports (set by the law bindings): the problem's dtype ("bf16") and
  /// repro line, and for boundary cases the clause and the side of it.
  std::string dtype;
  std::string repro;
  std::string clause;
  bool just_valid = false;
  /// The problem's coverage tags ("dtype=bf16", "level=1x1", ...), for the report's coverage.
  std::vector<std::string> tags;

  /// Held, but compared nothing (a split with nothing to split, no output wanted): a defect of
  /// the case's generator, never counted as a passed case.
  bool vacuous() const { return holds && !measured.compared_anything(); }

  static LawResult failure(std::string why) {
    LawResult r;
    r.holds = false;
    r.detail = std::move(why);
    return r;
  }
};

/// "<law> failed for <repro>: <why>"
inline LawResult law_failure(std::string_view law, const std::string& repro,
                             const std::string& why) {
  return LawResult::failure(std::string(law) + " failed for '" + repro + "': " + why);
}

/// sum_i a_i b_i, compensated (Ogita, Rump and Oishi's Dot2: every product's and every sum's
/// rounding error carried along exactly, via fma and TwoSum): as accurate as if computed in twice
/// double's precision, then rounded. The laws compare such dots against bounds derived from the
/// kernels' roundings alone; a plain double dot of n terms adds up to n * 2^-53 of its sum of
/// |terms|, as large as a DOUBLE kernel's own error.
inline double dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0, error = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double product = a[i] * b[i];
    const double product_error = std::fma(a[i], b[i], -product);
    const double next = sum + product;
    const double rounded_away = next - sum;
    error += (sum - (next - rounded_away)) + (product - rounded_away) + product_error;
    sum = next;
  }
  return sum + error;
}

/// sum_i |a_i b_i|: the scale a dot product's rounding (and a difference of two) grows with.
inline double abs_dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += std::fabs(a[i] * b[i]);
  return sum;
}

/// "status 161002 (GS-SHAPE-04: ...)" for failure messages.
inline std::string describe_status(const Outcome& outcome) {
  std::string text = "status " + std::to_string(outcome.status);
  if (!outcome.message.empty()) text += " (" + outcome.message + ")";
  if (!outcome.violations.empty()) text += " [" + outcome.violations + "]";
  return text;
}

/// The clause id a message starts with ("GS-SHAPE-04" of "GS-SHAPE-04: expected ..."), or "" when
/// it starts with none: upper-case letters and digits in at least three dash-separated parts.
inline std::string clause_of_message(std::string_view message) {
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return {};
  const std::string_view id = message.substr(0, colon);
  int parts = 1;
  bool part_empty = true;
  for (char c : id) {
    if (c == '-') {
      if (part_empty) return {};
      ++parts;
      part_empty = true;
    } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      part_empty = false;
    } else {
      return {};
    }
  }
  return parts >= 3 && !part_empty ? std::string(id) : std::string();
}

/// Index of the first element whose bits differ, or -1. Two NaNs are the same whatever their
/// sign and payload: IEEE 754 gives those no meaning, and a correct kernel that orders its
/// operations differently for another layout or batch split may produce either (PyTorch's does).
inline int64_t first_bit_difference(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_LAW_H_
