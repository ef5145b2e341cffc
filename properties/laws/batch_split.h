// Law 8: running a batch equals concatenating the runs of its two parts (bitwise: batches are
// independent problems, so nothing may leak between them).
#ifndef GRADCONF_PROPERTIES_LAWS_BATCH_SPLIT_H_
#define GRADCONF_PROPERTIES_LAWS_BATCH_SPLIT_H_

#include "laws/law.h"

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

template <typename Traits>
LawResult batch_split(const typename Traits::Problem& p, const Backend& backend, int64_t split) {
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  const int64_t n = Traits::batch_size(p);
  if (split <= 0 || split >= n) return {};
  const Outcome whole = Traits::run(call, {}, backend);
  const Outcome head = Traits::run(slice_batch<Traits>(call, 0, split), {}, backend);
  const Outcome tail = Traits::run(slice_batch<Traits>(call, split, n), {}, backend);
  if (!whole.ok() || !head.ok() || !tail.ok()) {
    return law_failure(
        "batch_split", repro,
        describe_status(whole) + " / " + describe_status(head) + " / " + describe_status(tail));
  }
  for (int out : Traits::wanted_outputs(p, call)) {
    const auto o = static_cast<size_t>(out);
    // Batch-first outputs: concatenation is appending the flat values.
    std::vector<double> joined = head.values[o];
    joined.insert(joined.end(), tail.values[o].begin(), tail.values[o].end());
    const int64_t at = first_bit_difference(whole.values[o], joined);
    if (at >= 0) {
      return law_failure("batch_split", repro,
                         call.tensors[o].name + " split at " + std::to_string(split) +
                             " differs from the whole batch at flat index " + std::to_string(at));
    }
  }
  return {};
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_BATCH_SPLIT_H_
