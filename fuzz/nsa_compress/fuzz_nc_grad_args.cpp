// fuzz_nc_grad_args: raw arguments of aclnnNsaCompressGradGetWorkspaceSize and
// aclnnNsaCompressGrad (fuzz/common/args_target.h says what is decoded and checked), starting
// from a small valid problem; wild actSeqLen arrays and l/d around multiples of 16.
#include <array>
#include <limits>

#include "common/args_target.h"
#include "common/fuzz_support.h"
#include "families/nsa_compress/entries.h"
#include "nsa_compress/decode.h"

namespace {

namespace nc = gradconf::props::nc;

// Shapes, dtypes and attributes of a valid problem; tensors carry no values (validation never
// reads them, and filling them would cost the target most of its speed).
gradconf::props::Call base_call(FuzzedDataProvider& fdp) {
  auto problem = gradconf::fuzz::nc::decode_problem(fdp, gradconf::Direction::kBackward);
  for (auto& layout : problem.layouts) layout = gradconf::LayoutSpec{};
  return nc::make_validation_call(problem);
}

void wild_attrs(FuzzedDataProvider& fdp, gradconf::props::Call& call) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {  // actSeqLen: decreasing, overflowing or off by one at the end
      std::vector<int64_t> prefix = nc::prefix_sums_of(call);
      const auto at = fdp.ConsumeIntegralInRange<size_t>(0, prefix.size() - 1);
      prefix[at] = gradconf::fuzz::pick(
          fdp, std::array<int64_t, 6>{kMax, kMax - 1, -1, prefix[at] + 1, prefix[at] - 1, 0});
      if (fdp.ConsumeBool()) prefix.push_back(kMax);
      call.attr("actSeqLenOptional") = prefix;
      break;
    }
    case 1:  // l and d around multiples of 16 and around each other
      call.attr("compressBlockSize") =
          gradconf::fuzz::pick(fdp, std::array<int64_t, 7>{15, 16, 17, 32, 33, 48, 128});
      call.attr("compressStride") =
          gradconf::fuzz::pick(fdp, std::array<int64_t, 6>{15, 16, 17, 32, 48, 0});
      break;
    case 2:
      call.attr("actSeqLenType") = gradconf::fuzz::pick(fdp, std::array<int64_t, 4>{0, 1, -1, 2});
      break;
    default:
      call.attr("layoutOptional") =
          gradconf::fuzz::pick(fdp, std::array<gradconf::props::AttrValue, 5>{
                                        std::monostate{}, std::string("TND"), std::string("BSND"),
                                        std::string(""), std::string(1000, 'N')});
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ArgsTarget target{&nc::backward_entry(), base_call, wild_attrs};
  return gradconf::fuzz::run_args_target(data, size, target);
}
