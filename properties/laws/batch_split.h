// Law 8: running a batch equals concatenating the runs of its two parts (batches are
// independent problems, so nothing may leak between them): bit for bit on a backend that promises
// it, else to two roundings of the same values (laws/rerun.h). Ops whose batches are not a leading
// dim (prefix-sum sequences) slice calls themselves (SlicesBatches); an output that sums over the
// batches (a weight gradient) then equals the sum of the parts' within the tolerance table.
#ifndef GRADCONF_PROPERTIES_LAWS_BATCH_SPLIT_H_
#define GRADCONF_PROPERTIES_LAWS_BATCH_SPLIT_H_

#include <algorithm>
#include <concepts>

#include "laws/law.h"
#include "laws/rerun.h"
#include "op/op_spec.h"

namespace gradconf::props {

/// The part [begin, end) of the call's batch. Inputs' values are sliced; layouts are kept.
template <typename Traits, typename Call>
Call slice_batch(const Call& call, int64_t begin, int64_t end) {
  Call part = call;
  for (size_t t = 0; t < part.tensors.size(); ++t) {
    auto& tensor = part.tensors[t];
    const int dim = Traits::batch_dim(call, static_cast<int>(t));
    if (dim < 0) continue;  // not batched (a level table, a weight): every part gets all of it
    const int64_t full = tensor.dims[static_cast<size_t>(dim)];
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; ++d) outer *= tensor.dims[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(dim) + 1; d < tensor.dims.size(); ++d)
      inner *= tensor.dims[d];
    tensor.dims[static_cast<size_t>(dim)] = end - begin;
    if (tensor.values.empty()) continue;
    std::vector<double> sliced;
    for (int64_t o = 0; o < outer; ++o) {
      const auto first = tensor.values.begin() + (o * full + begin) * inner;
      sliced.insert(sliced.end(), first, first + (end - begin) * inner);
    }
    tensor.values = std::move(sliced);
  }
  return part;
}

/// The dim-0 rows of a sequence role's batches as prefix sums, from the sequences' token prefix
/// sums (null: the role's rows are its tokens).
using SequenceRows = std::vector<int64_t> (*)(const Call& call, const TensorSpec& tensor,
                                              const std::vector<int64_t>& token_prefix);

/// Batches [begin, end) of a call whose batched roles are rows of prefix-sum sequences
/// (Batching::kSequence along dim 0, each naming its prefix-sum attribute): every such role keeps
/// its batches' rows (`rows_of`) and every such attribute is rebased to start at 0. Other roles
/// are whole.
inline Call slice_sequences(const Call& call, int64_t begin, int64_t end,
                            SequenceRows rows_of = nullptr) {
  Call part = call;
  std::vector<std::string_view> attrs;
  for (TensorSpec& t : part.tensors) {
    const RoleSpec* role = call.entry->role(t.name);
    if (!role || role->batching != Batching::kSequence) continue;
    const auto* tokens = std::get_if<std::vector<int64_t>>(&call.attr(role->sequence_attr));
    if (!tokens || end > static_cast<int64_t>(tokens->size())) continue;
    const std::vector<int64_t> prefix = rows_of ? rows_of(call, t, *tokens) : *tokens;
    const int64_t lo = begin == 0 ? 0 : prefix[static_cast<size_t>(begin - 1)];
    const int64_t hi = prefix[static_cast<size_t>(end - 1)];
    int64_t inner = 1;
    for (size_t d = 1; d < t.dims.size(); ++d) inner *= t.dims[d];
    t.dims[0] = hi - lo;
    if (!t.values.empty()) {
      t.values = std::vector<double>(t.values.begin() + lo * inner, t.values.begin() + hi * inner);
    }
    if (std::find(attrs.begin(), attrs.end(), role->sequence_attr) == attrs.end()) {
      attrs.push_back(role->sequence_attr);
    }
  }
  for (std::string_view name : attrs) {
    const auto prefix = std::get<std::vector<int64_t>>(call.attr(name));
    const int64_t base = begin == 0 ? 0 : prefix[static_cast<size_t>(begin - 1)];
    std::vector<int64_t> rebased;
    for (int64_t b = begin; b < end; ++b) rebased.push_back(prefix[static_cast<size_t>(b)] - base);
    part.attr(name) = rebased;
  }
  return part;
}

/// Traits that slice a call's batch themselves and say which outputs sum over the batches.
template <typename Traits>
concept SlicesBatches = requires(const Call& call, int64_t begin, int64_t end, int tensor) {
  { Traits::slice_batch(call, begin, end) } -> std::same_as<Call>;
  { Traits::summed_over_batch(call, tensor) } -> std::same_as<bool>;
};

template <typename Traits>
Call part_of_batch(const Call& call, int64_t begin, int64_t end) {
  if constexpr (SlicesBatches<Traits>) {
    return Traits::slice_batch(call, begin, end);
  } else {
    return slice_batch<Traits>(call, begin, end);
  }
}

template <typename Traits>
bool summed_over_batch(const Call& call, int tensor) {
  if constexpr (SlicesBatches<Traits>) {
    return Traits::summed_over_batch(call, tensor);
  } else {
    return false;
  }
}

template <typename Traits>
LawResult batch_split(const typename Traits::Problem& p0, const Backend& backend, int64_t split) {
  // Every output, whatever the problem's mask: a split with no output compares nothing.
  const auto p = Traits::with_all_outputs(p0);
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  const int64_t n = Traits::batch_size(p);
  // Nothing to split: the result compares nothing (vacuous), which the binding's generator of
  // problems with at least two batches never produces.
  if (split <= 0 || split >= n) return {};
  const Outcome whole = Traits::run(call, {}, backend);
  const Outcome head = Traits::run(part_of_batch<Traits>(call, 0, split), {}, backend);
  const Outcome tail = Traits::run(part_of_batch<Traits>(call, split, n), {}, backend);
  if (!whole.ok() || !head.ok() || !tail.ok()) {
    return law_failure(
        "batch_split", repro,
        describe_status(whole) + " / " + describe_status(head) + " / " + describe_status(tail));
  }
  LawResult result;
  result.measured.add_checks(1);  // the whole batch and both parts run
  // Each run may err by its elements' cancellation floors (the parts' add up to the whole's):
  // wanted where an output is compared to a bound, that is summed over the batch or without the
  // bitwise promise (the reference is not computed for a bitwise-only comparison).
  const std::vector<int> wanted = Traits::wanted_outputs(p, call);
  const bool bounded =
      !backend.bitwise_invariant() || std::any_of(wanted.begin(), wanted.end(), [&call](int out) {
        return summed_over_batch<Traits>(call, out);
      });
  const std::vector<ExpectedOutput> reference =
      bounded ? Traits::reference(p, call) : std::vector<ExpectedOutput>{};
  for (int out : wanted) {
    const auto o = static_cast<size_t>(out);
    const std::vector<double> floors = floors_for(reference, out, Traits::dtype(p));
    if (summed_over_batch<Traits>(call, out)) {
      // whole, head and tail are each within atol + rtol |exact| of their exact values (the
      // tolerance row), or their cancellation floors, and exact(whole) = exact(head) +
      // exact(tail): so per element |whole - (head + tail)| <= 3 atol + rtol (|whole| + |head| +
      // |tail|) + 2 floor(whole), up to second order.
      const Tolerance& t =
          tolerance_for(Traits::op_name(p), call.tensors[o].name, Traits::dtype(p));
      const auto& w = whole.values[o];
      const auto& h = head.values[o];
      const auto& r = tail.values[o];
      if (h.size() != w.size() || r.size() != w.size()) {
        return law_failure("batch_split", repro, call.tensors[o].name + " sizes differ");
      }
      std::vector<double> summed(w.size()), bounds(w.size());
      for (size_t i = 0; i < w.size(); ++i) {
        summed[i] = h[i] + r[i];
        bounds[i] = 3 * t.atol + t.rtol * (std::fabs(w[i]) + std::fabs(h[i]) + std::fabs(r[i])) +
                    (floors.size() == w.size() ? 2 * floors[i] : 0.0);
      }
      const Comparison c = compare_bounded(w, summed, bounds, call.tensors[o].dims, t);
      result.measured.add(c, /*against_reference=*/false);
      if (c.status == CompareStatus::kFailed) {
        LawResult failed = law_failure("batch_split", repro,
                                       call.tensors[o].name + " split at " + std::to_string(split) +
                                           " differs from the sum of the parts: " + c.summary());
        failed.measured = result.measured;
        return failed;
      }
      continue;
    }
    // Batch-first outputs: concatenation is appending the flat values.
    std::vector<double> joined = head.values[o];
    joined.insert(joined.end(), tail.values[o].begin(), tail.values[o].end());
    const std::string& name = call.tensors[o].name;
    const auto why = rerun_difference(
        backend, tolerance_for(Traits::op_name(p), name, Traits::dtype(p)), Traits::dtype(p),
        joined, whole.values[o], call.tensors[o].dims, result.measured, floors);
    if (why) {
      LawResult failed = law_failure(
          "batch_split", repro,
          name + " split at " + std::to_string(split) + " differs from the whole batch " + *why);
      failed.measured = result.measured;
      return failed;
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_BATCH_SPLIT_H_
