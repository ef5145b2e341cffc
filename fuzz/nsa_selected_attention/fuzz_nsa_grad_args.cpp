// fuzz_nsa_grad_args: raw arguments of aclnnNsaSelectedAttentionGradGetWorkspaceSize and
// aclnnNsaSelectedAttentionGrad (fuzz/common/args_target.h says what is decoded and checked),
// from a small valid problem whose topkIndices hold valid values; wild actualSeq arrays, headNum,
// sparseMode, block sizes and counts around their limits.
#include <array>
#include <limits>

#include "common/args_target.h"
#include "common/fuzz_support.h"
#include "families/nsa_selected_attention/entries.h"
#include "nsa_selected_attention/decode.h"

namespace {

namespace nsa = gradconf::props::nsa;
using gradconf::fuzz::pick;

// Shapes, dtypes, attributes and topk values of a valid problem; float tensors carry no values
// (validation never reads them).
gradconf::props::Call base_call(FuzzedDataProvider& fdp) {
  auto problem = gradconf::fuzz::nsa::decode_problem(fdp, gradconf::Direction::kBackward);
  for (auto& layout : problem.layouts) layout = gradconf::LayoutSpec{};
  return nsa::make_validation_call(problem);
}

void wild_attrs(FuzzedDataProvider& fdp, gradconf::props::Call& call) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  switch (fdp.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: {  // actualSeq arrays: decreasing, overflowing, of different lengths
      auto name = fdp.ConsumeBool() ? "actualSeqQLenOptional" : "actualSeqKvLenOptional";
      auto prefix = std::get<std::vector<int64_t>>(call.attr(name));
      const auto at = fdp.ConsumeIntegralInRange<size_t>(0, prefix.size() - 1);
      prefix[at] = pick(fdp, std::array<int64_t, 6>{kMax, -1, 0, prefix[at] + 1, prefix[at] - 1,
                                                    int64_t{2} << 20});
      if (fdp.ConsumeBool()) prefix.push_back(prefix.back());
      call.attr(name) = prefix;
      break;
    }
    case 1:
      call.attr("headNum") = pick(fdp, std::array<int64_t, 6>{0, -1, 1, 32, 33, 129});
      break;
    case 2:
      call.attr("sparseMode") = pick(fdp, std::array<int64_t, 5>{0, 1, 2, 3, -1});
      break;
    case 3:
      call.attr("selectedBlockSize") =
          pick(fdp, std::array<int64_t, 7>{0, 1, 15, 16, 17, 128, 144});
      break;
    default:
      call.attr("selectedBlockCount") = pick(fdp, std::array<int64_t, 6>{0, 1, 2, 32, 33, -1});
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ArgsTarget target{&nsa::backward_entry(), base_call, wild_attrs};
  return gradconf::fuzz::run_args_target(data, size, target);
}
