// The op and law registries: every consumer (CLI list/replay/check, property suites, planted-fault
// suites, reports) enumerates op families, their entries, clauses, planted faults and laws here.
// The list of families is generated at configure time from the gradconf_add_op() calls, so adding
// an op edits nothing shared (cmake/GradconfOp.cmake, docs/adding-an-op.md).
#ifndef GRADCONF_PROPERTIES_REGISTRY_REGISTRY_H_
#define GRADCONF_PROPERTIES_REGISTRY_REGISTRY_H_

#include <rapidcheck.h>

#include <algorithm>
#include <concepts>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compare/tolerance.h"
#include "harness/backend.h"
#include "laws/law.h"
#include "op/op_spec.h"
#include "registry/repro_check.h"

namespace gradconf::props {

/// What a law needs of an op (spec ARCHITECTURE.md "Properties"): checked by the compiler wherever
/// a family instantiates the laws. Most members have a default in registry/traits_defaults.h; ops
/// whose batches are sequences also provide slice_batch and summed_over_batch (laws/batch_split.h,
/// SlicesBatches).
template <typename T>
concept OpTraits = requires(const typename T::Problem& p, typename T::Problem q,
                            const typename T::Call& call, const RunOptions& options,
                            const Backend& backend) {
  typename T::Problem;
  requires std::same_as<typename T::Call, Call>;
  { T::default_backend() } -> std::convertible_to<const Backend&>;
  { T::repro(p) } -> std::convertible_to<std::string>;
  { T::make_call(p) } -> std::same_as<Call>;
  { T::as_forward(q) } -> std::same_as<typename T::Problem>;
  { T::as_backward(q) } -> std::same_as<typename T::Problem>;
  { T::with_all_outputs(q) } -> std::same_as<typename T::Problem>;
  { T::run(call, options, backend) } -> std::same_as<Outcome>;
  { T::reference(p, call) } -> std::same_as<std::vector<ExpectedOutput>>;
  { T::wanted_outputs(p, call) } -> std::same_as<std::vector<int>>;
  { T::dtype(p) } -> std::same_as<aclDataType>;
  { T::with_dtype(q, ACL_FLOAT) } -> std::same_as<typename T::Problem>;
  { T::differentiable(p) } -> std::same_as<std::vector<Differentiable>>;
  { T::smooth_double(q) } -> std::same_as<typename T::Problem>;
  { T::incoming_gradients(call) } -> std::same_as<std::vector<int>>;
  { T::accumulation_length(p) } -> std::convertible_to<int64_t>;
  { T::batch_size(p) } -> std::convertible_to<int64_t>;
  { T::op_name(p) } -> std::convertible_to<std::string_view>;
  { T::adjoint_magnitude(p, call, call, Differentiable{}) } -> std::convertible_to<double>;
  { T::batch_dim(call, 0) } -> std::convertible_to<int>;
  { T::tags(p) } -> std::same_as<std::vector<std::string>>;
  { T::same_semantics_in_float64(p) } -> std::convertible_to<bool>;
  { T::in_float64(call) } -> std::same_as<Call>;
};

/// One case as data, for `gradconf export` and `gradconf run --repro`: the call, what the spec
/// expects of it (the status; for a valid call the double reference of every wanted output) and
/// its labels.
struct CaseRecord {
  Call call;
  std::string op;  ///< tolerance-table key of the entry ("GridSampler2DBackward")
  aclDataType dtype = ACL_FLOAT;
  aclnnStatus expected_status = ACLNN_SUCCESS;
  std::vector<ExpectedOutput> expected;  ///< valid problems only (boundary cases: none)
  std::string repro;
  std::string clause;  ///< boundary cases: the clause broken (or kept just valid)
  bool just_valid = false;
};

/// One law instantiated for one entry of one family: a RapidCheck generator of checked cases
/// (it shrinks like the problem generator it wraps), run against a backend.
struct LawBinding {
  std::string_view law;    ///< "matches_reference", "adjoint_identity", ...
  std::string_view entry;  ///< the entry it draws problems of
  std::string name;        ///< "<entry>.<law>[.<variant>]": unique, readable in test names
  std::function<rc::Gen<LawResult>(const Backend& backend)> cases;
  /// The same draws as data (export): problems, or boundary cases for error_contract.
  std::function<rc::Gen<CaseRecord>()> records;
  /// A problem repro line of this binding's entry as a case; nullopt for any other line.
  std::function<std::optional<CaseRecord>(std::string_view line)> parse;
  /// At most this many cases per run (0: as many as the suite or campaign runs). The host-process
  /// laws fork and load a child per case; a few cases already hold hundreds of forks.
  int max_cases = 0;
  /// The law compares the backend with its against() (matches_backend): it runs only when the
  /// backend has one (`gradconf check --against`).
  bool differential = false;

  /// The cases to run of `requested`.
  int cases_of(int requested) const {
    return max_cases > 0 ? std::min(requested, max_cases) : requested;
  }
};

/// A planted fault and the law that must see it (the fault's row in the law x fault table).
struct FaultRow {
  std::string_view fault;  ///< fault_name() in the op's Fault enum, or a full "core.<name>"
  std::string_view law;    ///< a LawBinding name
  int attempts = 100;      ///< problems drawn (fixed seeds) before the row fails
  /// The fault shows only under some interleaving of threads and forks, or some state of the
  /// heap, so the case that catches it depends on the run (reports compare only whether it was
  /// caught).
  bool timing_dependent = false;
};

/// A benchmark case: a name and the repro line of the problem it times (like benchdnn's batch
/// files); `gradconf bench` and the Google Benchmark registrations read them.
struct BenchCase {
  std::string_view name;
  std::string_view repro;
};

struct OpFamily {
  std::string_view family;
  std::vector<const EntrySpec*> entries;
  std::vector<ClauseInfo> clauses;
  std::vector<std::string_view> faults;  ///< every planted fault (Fault::kNone excluded)
  std::vector<LawBinding> laws;
  std::vector<FaultRow> fault_rows;
  /// Tolerance rows for this family's outputs (beyond the common table), each with its reason.
  std::vector<ToleranceRow> tolerances = {};
  /// The family's repro-line parser round trip (check_repro_line<Problem>).
  ReproCheck (*check_repro)(std::string_view line) = nullptr;
  /// Clauses no small problem reaches (size and workspace limits), tested at their exact
  /// boundary by the op's validation test instead (tests/<op>/validation_test.cpp): the report's
  /// traceability says so rather than UNCOVERED.
  std::vector<std::string_view> validation_tested;
  /// The cases `gradconf bench` times by default.
  std::vector<BenchCase> bench_cases;
  /// Useful floating-point operations of one call, for families whose limit is arithmetic (a
  /// GFLOP/s column and a share of the machine's GEMM peak); null: the family is held to memory
  /// bandwidth (bytes: every input view read once, every output view written once).
  double (*bench_flops)(const Call& call) = nullptr;

  const LawBinding* law(std::string_view name) const;
};

/// The name a planted-fault library selects for fault `fault` of `family`: "<family>.<fault>", or
/// the fault's own full name for a fault of the shared core ("core.<name>").
std::string planted_fault_name(std::string_view family, std::string_view fault);

/// Rows every family carries for the planted faults of the shared core (ops/core): the
/// host-process laws of each of its entries must see them.
std::vector<FaultRow> core_fault_rows(std::string_view backward_entry);

/// Every registered family (the generated list), in folder order.
std::span<const OpFamily* const> op_families();
const OpFamily* find_family(std::string_view family);
/// The entry named `name` ("GridSampler2DBackward") in any family.
const EntrySpec* find_entry(std::string_view name);

/// The generator size of case `index` (0..100): 0, 37, 74, 10, ... (37 is prime to 101, so
/// any 101 consecutive cases take every size once).
int case_size(int index);
/// Draws case `index` of a binding deterministically (fixed seed, sizes spread over 0..100).
LawResult run_law_case(const LawBinding& binding, const Backend& backend, int index,
                       uint64_t seed = 0);
/// Case `index` of a binding as data, drawn as run_law_case draws it.
CaseRecord law_case_record(const LawBinding& binding, int index, uint64_t seed = 0);
/// The case a problem repro line describes, from whichever entry's binding parses it.
std::optional<CaseRecord> parse_repro_line(std::string_view line);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_REGISTRY_REGISTRY_H_
