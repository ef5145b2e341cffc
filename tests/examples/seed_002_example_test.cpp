// The seed 002 call example (seed_002_grid_sampler2d_backward.cpp, the document's code unchanged)
// runs as a program; its printed inputGrad / gridGrad must equal values computed by hand (the
// arithmetic is in tests/grid_sampler2d/reference_test.cpp), and so must the double reference.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "compare/tolerance.h"
#include "ops/grid_sampler2d/reference/reference.h"

#ifndef GRADCONF_SEED_002_EXAMPLE
#error "GRADCONF_SEED_002_EXAMPLE must name the example binary"
#endif

namespace {

// clang-format off
const std::vector<double> kInputGrad = {
    .25, 0, 0, .25, .25, 0, 0, .25,
    0,   0, 0, 0,   0,   0, 0, 0,
    .5,  0, 0, .5,  .5,  0, 0, .5,
    0,   0, 0, 0,   0,   0, 0, 0,
    .25, 0, 0, .25, .25, 0, 0, .25};
const std::vector<double> kGridGrad = {
    2, 1.25,   2, 11.25,    -16, 10,
    68, 10,    4, 20,       -96, 10,
    66, -41.25, 2, -91.25,  -80, -50};
// clang-format on

struct ProgramOutput {
  int exit_code = -1;
  std::string text;
};

ProgramOutput run(const std::string& command) {
  ProgramOutput out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.text.append(buffer, n);
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// "<name>[i] is: v" lines -> values by index; duplicates and gaps are reported as failures.
std::vector<double> parse(const std::string& text, const std::string& name, size_t expected_count) {
  const std::regex line(name + R"(\[(\d+)\] is: (-?[0-9]+\.[0-9]+))");
  std::map<size_t, double> values;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    const size_t index = std::stoul((*it)[1]);
    EXPECT_TRUE(values.emplace(index, std::stod((*it)[2])).second)
        << name << "[" << index << "] twice";
  }
  EXPECT_EQ(values.size(), expected_count) << name;
  std::vector<double> v;
  for (size_t i = 0; i < expected_count; ++i) {
    auto found = values.find(i);
    EXPECT_NE(found, values.end()) << name << "[" << i << "] missing";
    v.push_back(found == values.end() ? NAN : found->second);
  }
  return v;
}

TEST(Seed002Example, prints_the_hand_computed_gradients) {
  const ProgramOutput out = run(std::string("\"") + GRADCONF_SEED_002_EXAMPLE + "\" 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const auto input_grad = parse(out.text, "inputGradResultData", 40);
  const auto grid_grad = parse(out.text, "gridGradResultData", 18);
  // printf("%f") of these short binary fractions is exact.
  for (size_t i = 0; i < kInputGrad.size(); ++i) {
    EXPECT_EQ(input_grad[i], kInputGrad[i])
        << "inputGrad[" << i << "] (row " << i / 8 << ", col " << i % 8 << ")";
  }
  for (size_t i = 0; i < kGridGrad.size(); ++i) {
    EXPECT_EQ(grid_grad[i], kGridGrad[i]) << "gridGrad[" << i / 2 << "]." << (i % 2 ? "y" : "x");
  }
}

TEST(Seed002Example, reference_gives_the_hand_computed_gradients) {
  namespace ref = gradconf::grid_sampler2d::reference;
  std::vector<double> input(40);
  for (int i = 0; i < 40; ++i) input[i] = i + 1;
  const std::vector<double> grid = {-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1};
  const auto g =
      ref::backward({1, 1, 5, 8, 3, 3}, ref::Attrs{}, std::vector<double>(9, 1.0), input, grid);
  const auto& tol_in =
      gradconf::props::tolerance_for("GridSampler2DBackward", "inputGrad", ACL_DOUBLE);
  const auto& tol_grid =
      gradconf::props::tolerance_for("GridSampler2DBackward", "gridGrad", ACL_DOUBLE);
  const std::vector<int64_t> in_shape = {1, 1, 5, 8}, grid_shape = {1, 3, 3, 2};
  const auto c_in = gradconf::props::compare(g.input_grad, kInputGrad, in_shape, tol_in);
  const auto c_grid = gradconf::props::compare(g.grid_grad, kGridGrad, grid_shape, tol_grid);
  EXPECT_NE(c_in.status, gradconf::props::CompareStatus::kFailed) << c_in.summary();
  EXPECT_NE(c_grid.status, gradconf::props::CompareStatus::kFailed) << c_grid.summary();
  EXPECT_EQ(c_in.matched, 40);
  EXPECT_EQ(c_grid.matched, 18);
}

}  // namespace
