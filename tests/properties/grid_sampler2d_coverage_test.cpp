// The generators reach the whole space the laws claim to cover: over a fixed sample, every entry,
// dtype, mode, padding, alignCorners, outputMask, layout kind per role, grid and value fill,
// empty tensors and boundary size is drawn, and every clause is broken on both sides. The counts
// are printed so a run documents its own coverage.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "families/grid_sampler2d/breakers.h"
#include "families/grid_sampler2d/gen.h"
#include "property_support.h"

namespace gradconf::props {
namespace {

using grid_sampler2d::Problem;

constexpr int kSamples = 3000;

std::map<std::string, int> tag_counts() {
  gs::GenOptions options;
  options.allow_null_mask = true;
  const rc::Gen<Problem> gen = gs::gen_problem(options);
  std::map<std::string, int> counts;
  for (int i = 0; i < kSamples; ++i) {
    const Problem p = gen(rc::Random(static_cast<uint64_t>(i) + 7), (i * 37) % 101).value();
    for (const std::string& tag : gs::problem_tags(p)) ++counts[tag];
  }
  return counts;
}

TEST(GridSampler2DCoverage, generators_reach_every_axis_value) {
  const std::map<std::string, int> counts = tag_counts();
  for (const auto& [tag, count] : counts) std::cout << tag << ": " << count << "\n";
  std::vector<std::string> expected = {"entry=forward",   "entry=backward", "dtype=f32",
                                       "dtype=f16",       "dtype=bf16",     "dtype=f64",
                                       "interp=bilinear", "interp=nearest", "pad=zeros",
                                       "pad=border",      "ac=0",           "ac=1",
                                       "mask=11",         "mask=10",        "mask=01",
                                       "mask=00",         "mask=null",      "empty",
                                       "grid=uniform",    "grid=specials",  "grid=exact",
                                       "values=uniform",  "values=dyadic"};
  for (const char* role : {"gradOutput", "input", "grid", "out", "inputGrad", "gridGrad"}) {
    for (const char* kind : {"contiguous", "permuted", "padded", "offset"}) {
      expected.push_back(std::string("layout:") + role + "=" + kind);
    }
  }
  for (const char* role : {"gradOutput", "input", "grid"}) {
    expected.push_back(std::string("layout:") + role + "=broadcast");
  }
  for (const char* dim : {"n", "c", "ih", "iw", "oh", "ow"}) {
    expected.push_back(std::string("boundary:") + dim + "=1");
  }
  for (const char* dim : {"c", "ih", "iw", "oh", "ow"}) {
    for (int size : {7, 8, 9, 15, 16, 17}) {
      expected.push_back(std::string("boundary:") + dim + "=" + std::to_string(size));
    }
  }
  for (const std::string& tag : expected) {
    const auto it = counts.find(tag);
    EXPECT_TRUE(it != counts.end() && it->second >= 3)
        << tag << " drawn " << (it == counts.end() ? 0 : it->second) << " times in " << kSamples;
  }
  // Outputs are never broadcast: a zero stride on a written dim is GS-OUT-01's business.
  for (const char* role : {"out", "inputGrad", "gridGrad"}) {
    EXPECT_EQ(counts.count(std::string("layout:") + role + "=broadcast"), 0u) << role;
  }
}

TEST(GridSampler2DCoverage, boundary_cases_break_every_clause_on_both_sides) {
  const rc::Gen<gs::BoundaryCase> gen = gs::gen_boundary_case();
  std::map<std::string, int> counts;
  for (int i = 0; i < kSamples; ++i) {
    const gs::BoundaryCase bc =
        gen(rc::Random(static_cast<uint64_t>(i) + 11), (i * 37) % 101).value();
    ++counts[bc.clause_id + (bc.just_valid ? " just-valid" : " just-invalid")];
    const ExpectedVerdict verdict = predict(bc.call);
    // The breaker did what it says: the predicted first clause is its own (or none when valid).
    if (bc.just_valid) {
      EXPECT_EQ(verdict.status, ACLNN_SUCCESS) << bc;
    } else {
      EXPECT_EQ(verdict.clause_id, bc.clause_id) << bc;
    }
  }
  for (const auto& [key, count] : counts) std::cout << key << ": " << count << "\n";
  for (const ClauseBreaker& breaker : gs::clause_breakers()) {
    for (const char* side : {" just-valid", " just-invalid"}) {
      EXPECT_GE(counts[std::string(breaker.clause_id) + side], 20) << breaker.clause_id << side;
    }
  }
}

}  // namespace
}  // namespace gradconf::props
