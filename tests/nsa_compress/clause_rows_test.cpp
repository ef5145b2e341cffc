// Hand-written NC-* rows (tests/support/clause_rows.h). Seed 004 gives no status table of its
// own (its 返回值 refers to the aclnn convention that seed 000 spells out): 161001 for a null
// pointer, 161002 for every other rejected argument. Boundaries come from 004's 约束说明
// (compressBlockSize and compressStride multiples of 16, l > d, actSeqLenType 0, TND, no empty
// tensor), CANN's forward doc (N <= 128, D % 16 == 0, D <= 256) and the spec's extended
// relaxations, typed here as numbers.
#include <gtest/gtest.h>

#include "families/nsa_compress/entries.h"
#include "nsa_compress/clauses.h"
#include "support/clause_rows.h"

namespace {

using gradconf::Direction;
using gradconf::SpecProfile;
using gradconf::nc::Problem;
using gradconf::props::Call;
using gradconf::testing::ClauseRow;
using gradconf::testing::kAsGiven;
using gradconf::testing::kBackwardEntry;
using gradconf::testing::kBothEntries;
using gradconf::testing::kForwardEntry;
using gradconf::testing::kInvalidStatus;
using gradconf::testing::kNullStatus;
using gradconf::testing::null_tensor_row;
using gradconf::testing::resize;

constexpr SpecProfile kSeed = SpecProfile::kSeed, kExtended = SpecProfile::kExtended,
                      kCannLatest = SpecProfile::kCannLatest;

// T = 48 tokens in one batch, N 1, D 16, l 32, d 16: windows at 0 and 16, T_cmp = 2. FLOAT16.
const gradconf::testing::ProblemCalls<Problem> kCalls = {
    [](const Problem& p) { return gradconf::props::nc::make_call(p); },
    // Values drawn for a problem assume it is valid: invalid ones get zero-filled inputs.
    [](const Problem& p) { return gradconf::props::nc::make_validation_call(p); }};

const char* const kTensors[] = {"outputGrad", "input",     "weight",
                                "output",     "inputGrad", "weightGrad"};

void set_dtype(Call& c, aclDataType dtype) {
  for (const char* name : kTensors) {
    if (c.index_of(name) >= 0) c.tensor(name).dtype = dtype;
  }
}

// The output of the entry (forward: output, backward: inputGrad).
gradconf::props::TensorSpec& first_output(Call& c) {
  return c.index_of("output") >= 0 ? c.tensor("output") : c.tensor("inputGrad");
}

const std::vector<ClauseRow>& rows() {
  static const std::vector<ClauseRow> r = {
      null_tensor_row("NC-NULL-01", {kSeed, kExtended, kCannLatest}, kBothEntries, "weight"),
      {"NC-NULL-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kNullStatus,
       kAsGiven,
       {"executor = nullptr", [](Call& c) { c.null_executor = true; }}},
      null_tensor_row("NC-NULL-01", {kSeed, kCannLatest}, kBackwardEntry, "weightGrad"),
      {"NC-DTYPE-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"every tensor BFLOAT16", [](Call& c) { set_dtype(c, ACL_BF16); }},
       {"every tensor FLOAT", [](Call& c) { set_dtype(c, ACL_FLOAT); }}},
      {"NC-DTYPE-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"every tensor FLOAT16", [](Call&) {}},
       {"weight BFLOAT16, the rest FLOAT16", [](Call& c) { c.tensor("weight").dtype = ACL_BF16; }}},
      {"NC-DTYPE-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"every tensor DOUBLE", [](Call& c) { set_dtype(c, ACL_DOUBLE); }},
       {"every tensor DOUBLE but input FLOAT",
        [](Call& c) {
          set_dtype(c, ACL_DOUBLE);
          c.tensor("input").dtype = ACL_FLOAT;
        }}},
      {"NC-DTYPE-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"every tensor FLOAT", [](Call& c) { set_dtype(c, ACL_FLOAT); }},
       {"every tensor INT32", [](Call& c) { set_dtype(c, ACL_INT32); }}},
      {"NC-FORMAT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"input ND", [](Call&) {}},
       {"input NCHW (an alias only on 4-D tensors)",
        [](Call& c) { c.tensor("input").format = ACL_FORMAT_NCHW; }}},
      {"NC-RANK-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"weight 3-D (a leading unit dim)",
        [](Call& c) {
          auto& t = c.tensor("weight");
          t.dims.insert(t.dims.begin(), 1);
        }}},
      {"NC-ATTR-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"l = 48, d = 32 (T_cmp 1)", kCalls.remade([](Problem& p) {
          p.block = 48;
          p.stride = 32;
        })},
       {"d = 24 (not a multiple of 16)", [](Call& c) { c.attr("compressStride") = int64_t{24}; }}},
      {"NC-ATTR-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"l = 3, d = 1 (T_cmp 46)", kCalls.remade([](Problem& p) {
          p.block = 3;
          p.stride = 1;
        })},
       {"d = 0", [](Call& c) { c.attr("compressStride") = int64_t{0}; }}},
      {"NC-ATTR-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"l = -32", [](Call& c) { c.attr("compressBlockSize") = int64_t{-32}; }}},
      // 004 约束说明: compressBlockSize > compressStride (so l == d is refused in seed).
      {"NC-ATTR-02",
       {kSeed},
       kBothEntries,
       kInvalidStatus,
       {"l = 32, d = 16", [](Call&) {}},
       {"l = d = 32", kCalls.broken([](Problem& p) { p.stride = 32; })}},
      // errata E-NC-1: cann-latest accepts l == d (the forward doc, MindSpore and the kernel).
      {"NC-ATTR-02",
       {kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"l = d = 32", kCalls.remade([](Problem& p) { p.stride = 32; })},
       {"l = 32, d = 48", kCalls.broken([](Problem& p) { p.stride = 48; })}},
      {"NC-ATTR-03",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"actSeqLenType = 0", [](Call&) {}},
       {"actSeqLenType = 1", [](Call& c) { c.attr("actSeqLenType") = int64_t{1}; }}},
      {"NC-ATTR-04",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"layout null", [](Call& c) { c.attr("layoutOptional") = std::monostate{}; }},
       {"layout \"BSND\"", [](Call& c) { c.attr("layoutOptional") = std::string("BSND"); }}},
      {"NC-SEQ-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"actSeqLen {16, 48} (batches of 16 and 32 tokens: T_cmp 1)", kCalls.remade([](Problem& p) {
          p.lengths = {16, 32};
        })},
       {"actSeqLen {16, 47} (last != T)",
        kCalls.broken(
            [](Problem& p) {
              p.lengths = {16, 32};
            },
            [](Call& c) {
              c.attr("actSeqLenOptional") = std::vector<int64_t>{16, 47};
            })}},
      {"NC-SEQ-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"actSeqLen {0, 48} (an empty first batch)",
        [](Call& c) {
          c.attr("actSeqLenOptional") = std::vector<int64_t>{0, 48};
        }},
       {"actSeqLen {-1, 48}",
        [](Call& c) {
          c.attr("actSeqLenOptional") = std::vector<int64_t>{-1, 48};
        }}},
      {"NC-SEQ-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"actSeqLen null (one batch of T)",
        [](Call& c) { c.attr("actSeqLenOptional") = std::monostate{}; }},
       {"actSeqLen {} (empty)",
        [](Call& c) { c.attr("actSeqLenOptional") = std::vector<int64_t>{}; }}},
      {"NC-SHAPE-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"weight (33, 1) with l = 32",
        [](Call& c) {
          resize(c, {{"weight", 0}}, 33);
        }}},
      {"NC-SHAPE-01",
       {kSeed, kExtended, kCannLatest},
       kBackwardEntry,
       kInvalidStatus,
       kAsGiven,
       {"outputGrad with 3 rows (T_cmp is 2)",
        [](Call& c) {
          resize(c, {{"outputGrad", 0}}, 3);
        }}},
      {"NC-EMPTY-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"T = 32 (one window)", kCalls.remade([](Problem& p) { p.lengths = {32}; })},
       {"T = 31 (no window: T_cmp 0)", kCalls.broken([](Problem& p) { p.lengths = {31}; })}},
      {"NC-LIMIT-01",
       {kSeed, kCannLatest},
       kForwardEntry,
       kInvalidStatus,
       {"D = 256", kCalls.remade([](Problem& p) { p.dim = 256; })},
       {"D = 272", kCalls.broken([](Problem& p) { p.dim = 272; })}},
      {"NC-LIMIT-01",
       {kSeed, kCannLatest},
       kForwardEntry,
       kInvalidStatus,
       {"N = 128", kCalls.remade([](Problem& p) { p.heads = 128; })},
       {"N = 129", kCalls.broken([](Problem& p) { p.heads = 129; })}},
      {"NC-LIMIT-01",
       {kSeed, kCannLatest},
       kForwardEntry,
       kInvalidStatus,
       {"D = 32", kCalls.remade([](Problem& p) { p.dim = 32; })},
       {"D = 24", kCalls.broken([](Problem& p) { p.dim = 24; })}},
      {"NC-OUT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"the output's head dim (size 1) with stride 0",
        [](Call& c) { first_output(c).layout.broadcast = 1u << 1; }},
       {"the output's token dim with stride 0",
        [](Call& c) { first_output(c).layout.broadcast = 1u << 0; }}},
  };
  return r;
}

TEST(NcClauseRows, rows_cover_the_clause_table) {
  // NC-LIMIT-02 (a workspace beyond 2^62 bytes) needs views far beyond any memory:
  // validation_test.cpp declares them over tiny storage and pins that boundary.
  gradconf::testing::expect_rows_cover(
      gradconf::testing::clause_ids(gradconf::nc::clause_table(), {"NC-LIMIT-02"}), rows());
}

TEST(NcClauseRows, just_valid_runs_and_just_invalid_returns_the_documented_status) {
  gradconf::testing::expect_rows_hold(kCalls.base(), rows());
}

}  // namespace
