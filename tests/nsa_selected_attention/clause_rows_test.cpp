// Hand-written NSA-* rows (tests/support/clause_rows.h). Seed 003 gives no status table (it gives
// formulas, tensors and constraints; the prototypes are CANN's), so the statuses follow the aclnn
// convention seed 000 spells out: 161001 for a null pointer, 161002 for every other rejected
// argument; errata E-NSA-7 records that CANN's backward returns 561103 for a non-TND layout and
// that the spec chose 161002 as its forward does. Boundaries come from 003's 约束说明 (N1, N2 in
// 1..128, G <= 32, D in {128, 192}, S in 1..128K, kv lengths multiples of B, at least B*K),
// CANN's forward doc (B a multiple of 16 in 16..128, K in 1..32, sparseMode 0 or 2) and the
// spec's extended relaxations, typed here as numbers.
#include <gtest/gtest.h>

#include "families/nsa_selected_attention/entries.h"
#include "nsa_selected_attention/clauses.h"
#include "support/clause_rows.h"

namespace {

using gradconf::Direction;
using gradconf::SpecProfile;
using gradconf::nsa::Problem;
using gradconf::props::Call;
using gradconf::testing::ClauseRow;
using gradconf::testing::kAsGiven;
using gradconf::testing::kBackwardEntry;
using gradconf::testing::kBothEntries;
using gradconf::testing::kInvalidStatus;
using gradconf::testing::kNullStatus;
using gradconf::testing::null_tensor_row;
using gradconf::testing::resize;

constexpr SpecProfile kSeed = SpecProfile::kSeed, kExtended = SpecProfile::kExtended,
                      kCannLatest = SpecProfile::kCannLatest;

// One batch of 16 queries over 16 keys, N1 = N2 = 1, Dqk = Dv = 128, B 16, K 1, sparseMode 2.
const gradconf::testing::ProblemCalls<Problem> kCalls = {
    [](const Problem& p) { return gradconf::props::nsa::make_call(p); },
    // The backward's make_call runs the reference forward, which assumes a valid problem.
    [](const Problem& p) { return gradconf::props::nsa::make_validation_call(p); }};

const char* const kFloatTensors[] = {"query", "key",   "value", "attentionOut", "attentionOutGrad",
                                     "dqOut", "dkOut", "dvOut"};

void set_float_dtype(Call& c, aclDataType dtype) {
  for (const char* name : kFloatTensors) {
    if (c.index_of(name) >= 0) c.tensor(name).dtype = dtype;
  }
}

void set_stat_dtype(Call& c, aclDataType dtype) {
  for (const char* name : {"softmaxMax", "softmaxSum", "softmaxMaxOut", "softmaxSumOut"}) {
    if (c.index_of(name) >= 0) c.tensor(name).dtype = dtype;
  }
}

void set_topk(Call& c, double index) {
  for (double& v : c.tensor("topkIndices").values) v = index;
}

// The first output of the entry (forward: attentionOut, backward: dqOut).
gradconf::props::TensorSpec& first_output(Call& c) {
  return c.index_of("dqOut") >= 0 ? c.tensor("dqOut") : c.tensor("attentionOut");
}

const std::vector<ClauseRow>& rows() {
  static const std::vector<ClauseRow> r = {
      null_tensor_row("NSA-NULL-01", {kSeed, kExtended, kCannLatest}, kBothEntries, "key"),
      {"NSA-NULL-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kNullStatus,
       kAsGiven,
       {"actualSeqKvLen = nullptr",
        [](Call& c) { c.attr("actualSeqKvLenOptional") = std::monostate{}; }}},
      // attentionOut is optional in the backward (003: recomputed when absent); dv is not.
      {"NSA-NULL-01",
       {kSeed, kCannLatest},
       kBackwardEntry,
       kNullStatus,
       {"attentionOut = nullptr", [](Call& c) { c.tensor("attentionOut").null = true; }},
       {"dvOut = nullptr", [](Call& c) { c.tensor("dvOut").null = true; }}},
      {"NSA-DTYPE-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"float tensors BFLOAT16", [](Call& c) { set_float_dtype(c, ACL_BF16); }},
       {"float tensors FLOAT", [](Call& c) { set_float_dtype(c, ACL_FLOAT); }}},
      {"NSA-DTYPE-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"topkIndices INT32", [](Call&) {}},
       {"topkIndices INT64", [](Call& c) { c.tensor("topkIndices").dtype = ACL_INT64; }}},
      {"NSA-DTYPE-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"softmax statistics FLOAT", [](Call&) {}},
       {"softmax statistics FLOAT16", [](Call& c) { set_stat_dtype(c, ACL_FLOAT16); }}},
      {"NSA-DTYPE-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"float tensors and statistics DOUBLE",
        [](Call& c) {
          set_float_dtype(c, ACL_DOUBLE);
          set_stat_dtype(c, ACL_DOUBLE);
        }},
       {"float tensors DOUBLE but key FLOAT",
        [](Call& c) {
          set_float_dtype(c, ACL_DOUBLE);
          c.tensor("key").dtype = ACL_FLOAT;
        }}},
      {"NSA-FORMAT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"query ND", [](Call&) {}},
       {"query NCHW (an alias only on 4-D tensors)",
        [](Call& c) { c.tensor("query").format = ACL_FORMAT_NCHW; }}},
      {"NSA-LAYOUT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"inputLayout \"TND\"", [](Call&) {}},
       {"inputLayout \"BSND\"", [](Call& c) { c.attr("inputLayout") = std::string("BSND"); }}},
      {"NSA-LAYOUT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"inputLayout \"TND\"", [](Call&) {}},
       {"inputLayout null", [](Call& c) { c.attr("inputLayout") = std::monostate{}; }}},
      {"NSA-RANK-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"query 4-D (a leading unit dim)",
        [](Call& c) {
          auto& t = c.tensor("query");
          t.dims.insert(t.dims.begin(), 1);
        }}},
      {"NSA-RANK-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"softmax statistics (16, 1, 8)", [](Call&) {}},
       {"softmax statistics (16, 1, 4)",
        [](Call& c) {
          resize(c,
                 {{"softmaxMax", 2}, {"softmaxSum", 2}, {"softmaxMaxOut", 2}, {"softmaxSumOut", 2}},
                 4);
        }}},
      {"NSA-SHAPE-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"value with 17 tokens (key has 16)",
        [](Call& c) {
          resize(c, {{"value", 0}}, 17);
        }}},
      {"NSA-HEAD-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"headNum = N1 = 2, N2 = 1", kCalls.remade([](Problem& p) { p.q_heads = 2; })},
       {"headNum = 2 with N1 = 1", [](Call& c) { c.attr("headNum") = int64_t{2}; }}},
      {"NSA-HEAD-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"N1 = 32, N2 = 1 (G 32)", kCalls.remade([](Problem& p) { p.q_heads = 32; })},
       {"N1 = 33, N2 = 1 (G 33)", kCalls.broken([](Problem& p) { p.q_heads = 33; })}},
      {"NSA-HEAD-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"N1 = 4, N2 = 2", kCalls.remade([](Problem& p) {
          p.q_heads = 4;
          p.kv_heads = 2;
        })},
       {"N1 = 3, N2 = 2 (N1 % N2 != 0)", kCalls.broken([](Problem& p) {
          p.q_heads = 3;
          p.kv_heads = 2;
        })}},
      {"NSA-DIM-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"Dqk = Dv = 192", kCalls.remade([](Problem& p) { p.dim_qk = p.dim_v = 192; })},
       {"Dv = 64", kCalls.broken([](Problem& p) { p.dim_v = 64; })}},
      {"NSA-DIM-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"Dqk = 512, Dv = 1", kCalls.remade([](Problem& p) {
          p.dim_qk = 512;
          p.dim_v = 1;
        })},
       {"Dqk = 513", kCalls.broken([](Problem& p) { p.dim_qk = 513; })}},
      {"NSA-BLOCK-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"B = 128 over 128 keys", kCalls.remade([](Problem& p) {
          p.block = 128;
          p.seqs = {{16, 128}};
        })},
       {"B = 24", [](Call& c) { c.attr("selectedBlockSize") = int64_t{24}; }}},
      {"NSA-BLOCK-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"K = 32 over 512 keys", kCalls.remade([](Problem& p) {
          p.count = 32;
          p.seqs = {{16, 512}};
        })},
       {"K = 33 over 528 keys", kCalls.broken([](Problem& p) {
          p.count = 33;
          p.seqs = {{16, 528}};
        })}},
      {"NSA-BLOCK-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"B = 1, K = 1", kCalls.remade([](Problem& p) { p.block = 1; })},
       {"B = 0", [](Call& c) { c.attr("selectedBlockSize") = int64_t{0}; }}},
      {"NSA-SEQ-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"two batches of (8 queries, 16 keys)", kCalls.remade([](Problem& p) {
          p.seqs = {{8, 16}, {8, 16}};
        })},
       {"actualSeqKvLen {16, 31} (last != T2)",
        kCalls.broken(
            [](Problem& p) {
              p.seqs = {{8, 16}, {8, 16}};
            },
            [](Call& c) {
              c.attr("actualSeqKvLenOptional") = std::vector<int64_t>{16, 31};
            })}},
      {"NSA-SEQ-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"actualSeqQLen {0, 16} (a batch with 0 queries)",
        kCalls.broken(
            [](Problem& p) {
              p.seqs = {{8, 16}, {8, 16}};
            },
            [](Call& c) {
              c.attr("actualSeqQLenOptional") = std::vector<int64_t>{0, 16};
            })}},
      {"NSA-SEQ-02",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"K = 2 over 32 keys (B*K)", kCalls.remade([](Problem& p) {
          p.count = 2;
          p.seqs = {{16, 32}};
        })},
       {"K = 2 over 16 keys (< B*K)", kCalls.broken([](Problem& p) { p.count = 2; })}},
      {"NSA-SEQ-02",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"32 keys", kCalls.remade([](Problem& p) {
          p.seqs = {{16, 32}};
        })},
       {"24 keys (not a multiple of B = 16)", kCalls.broken([](Problem& p) {
          p.seqs = {{16, 24}};
        })}},
      // Dqk = Dv = 1 (extended) keeps 128K keys small.
      {"NSA-SEQ-03",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"131072 keys", kCalls.remade([](Problem& p) {
          p.dim_qk = p.dim_v = 1;
          p.seqs = {{16, 131072}};
        })},
       {"131088 keys", kCalls.broken([](Problem& p) {
          p.dim_qk = p.dim_v = 1;
          p.seqs = {{16, 131088}};
        })}},
      {"NSA-SEQ-03",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"131072 keys", kCalls.remade([](Problem& p) {
          p.seqs = {{16, 131072}};
        })},
       {"131088 keys", kCalls.broken([](Problem& p) {
          p.seqs = {{16, 131088}};
        })}},
      {"NSA-SPARSE-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"sparseMode = 0", [](Call& c) { c.attr("sparseMode") = int64_t{0}; }},
       {"sparseMode = 1", [](Call& c) { c.attr("sparseMode") = int64_t{1}; }}},
      {"NSA-DATA-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"topk index 1 over 32 keys (2 blocks)", kCalls.remade(
                                                    [](Problem& p) {
                                                      p.seqs = {{16, 32}};
                                                    },
                                                    [](Call& c) { set_topk(c, 1); })},
       {"topk index 2 over 32 keys", kCalls.broken(
                                         [](Problem& p) {
                                           p.seqs = {{16, 32}};
                                         },
                                         [](Call& c) { set_topk(c, 2); })}},
      {"NSA-DATA-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"topk index 0", [](Call& c) { set_topk(c, 0); }},
       {"topk index -1", [](Call& c) { set_topk(c, -1); }}},
      {"NSA-OUT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"the first output's head dim (size 1) with stride 0",
        [](Call& c) { first_output(c).layout.broadcast = 1u << 1; }},
       {"the first output's token dim with stride 0",
        [](Call& c) { first_output(c).layout.broadcast = 1u << 0; }}},
  };
  return r;
}

TEST(NsaClauseRows, rows_cover_the_clause_table) {
  gradconf::testing::expect_rows_cover(gradconf::testing::clause_ids(gradconf::nsa::clause_table()),
                                       rows());
}

TEST(NsaClauseRows, just_valid_runs_and_just_invalid_returns_the_documented_status) {
  gradconf::testing::expect_rows_hold(kCalls.base(), rows());
}

}  // namespace
