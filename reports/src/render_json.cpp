// report.json (schema kReportSchemaVersion, reports/README.md) and back: each record of a campaign
// has one to_json / from_json pair, so what is written and what merge-reports reads cannot drift.
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "reports/src/render.h"
#include "reports/src/render_detail.h"

namespace gradconf::reports {

using nlohmann::json;

namespace {

// JSON has no infinity: nlohmann writes a non-finite double as null, read back as +inf.
double number_or_inf(const json& v) { return v.is_null() ? INFINITY : v.get<double>(); }

}  // namespace

void to_json(json& j, const Cell& cell) {
  j = {{"order", cell.order},
       {"family", cell.family},
       {"op", cell.entry},
       {"law", cell.law},
       {"dtype", cell.dtype},
       {"profile", cell.profile},
       {"status", cell_status_name(cell.status())},
       {"cases", cell.cases},
       {"failed", cell.failed},
       {"mistrusted", cell.mistrusted},
       {"mistrust_reason", cell.mistrust_reason},
       {"discarded", cell.discarded},
       {"measure", cell.measure()},
       {"bounded_elements", cell.bounded_elements},
       {"exact_elements", cell.exact_elements},
       {"checks", cell.checks},
       {"worst_error_over_bound", cell.worst_error_over_bound},
       {"worst_repro", cell.worst_repro},
       {"max_rel_error", cell.max_rel_error},
       {"max_abs_error", cell.max_abs_error},
       {"mere", cell.has_mere ? json(cell.mere) : json(nullptr)},
       {"mare", cell.has_mere ? json(cell.mare) : json(nullptr)},
       {"mere_threshold", cell.mere_threshold},
       {"seconds", cell.seconds},
       {"failures", cell.failures}};
}

// "status" and "measure" are derived (Cell::status(), Cell::measure()): written, never read.
void from_json(const json& j, Cell& cell) {
  j.at("order").get_to(cell.order);
  j.at("family").get_to(cell.family);
  j.at("op").get_to(cell.entry);
  j.at("law").get_to(cell.law);
  j.at("dtype").get_to(cell.dtype);
  cell.profile = j.value("profile", std::string("seed"));
  j.at("cases").get_to(cell.cases);
  j.at("failed").get_to(cell.failed);
  j.at("mistrusted").get_to(cell.mistrusted);
  j.at("mistrust_reason").get_to(cell.mistrust_reason);
  j.at("discarded").get_to(cell.discarded);
  j.at("bounded_elements").get_to(cell.bounded_elements);
  j.at("exact_elements").get_to(cell.exact_elements);
  j.at("checks").get_to(cell.checks);
  j.at("worst_error_over_bound").get_to(cell.worst_error_over_bound);
  j.at("worst_repro").get_to(cell.worst_repro);
  cell.max_rel_error = number_or_inf(j.at("max_rel_error"));
  cell.max_abs_error = number_or_inf(j.at("max_abs_error"));
  cell.has_mere = !j.at("mere").is_null();
  if (cell.has_mere) {
    cell.mere = number_or_inf(j.at("mere"));
    cell.mare = number_or_inf(j.at("mare"));
  }
  j.at("mere_threshold").get_to(cell.mere_threshold);
  j.at("seconds").get_to(cell.seconds);
  j.at("failures").get_to(cell.failures);
}

void to_json(json& j, const FaultCheck& f) {
  j = {{"order", f.order},
       {"family", f.family},
       {"fault", f.fault},
       {"law", f.law},
       {"caught", f.caught},
       {"cases", f.attempts},
       {"timing_dependent", f.timing_dependent}};
}

void from_json(const json& j, FaultCheck& f) {
  j.at("order").get_to(f.order);
  j.at("family").get_to(f.family);
  j.at("fault").get_to(f.fault);
  j.at("law").get_to(f.law);
  j.at("caught").get_to(f.caught);
  j.at("cases").get_to(f.attempts);
  f.timing_dependent = j.value("timing_dependent", false);
}

void to_json(json& j, const ClauseRow& r) {
  j = {{"family", r.family},
       {"clause", r.id},
       {"source", r.source},
       {"condition", r.condition},
       {"status", r.status},
       {"valid_cases", r.valid_cases},
       {"invalid_cases", r.invalid_cases},
       {"validation_test", r.validation_tested},
       {"covered", r.covered()}};
}

void from_json(const json& j, ClauseRow& r) {
  j.at("family").get_to(r.family);
  j.at("clause").get_to(r.id);
  j.at("source").get_to(r.source);
  j.at("condition").get_to(r.condition);
  j.at("status").get_to(r.status);
  j.at("valid_cases").get_to(r.valid_cases);
  j.at("invalid_cases").get_to(r.invalid_cases);
  j.at("validation_test").get_to(r.validation_tested);
}

void to_json(json& j, const MarginHistogram& m) {
  j = {{"order", m.order}, {"op", m.entry}, {"law", m.law}, {"dtype", m.dtype}, {"bins", m.bins}};
}

void from_json(const json& j, MarginHistogram& m) {
  j.at("order").get_to(m.order);
  j.at("op").get_to(m.entry);
  j.at("law").get_to(m.law);
  j.at("dtype").get_to(m.dtype);
  j.at("bins").get_to(m.bins);
  m.bins.resize(kMarginBins);
}

void to_json(json& j, const ErrorHistogram& h) {
  j = {{"op", h.entry}, {"dtype", h.dtype}, {"tolerance_ulps", h.tolerance_ulps}, {"bins", h.bins}};
}

void from_json(const json& j, ErrorHistogram& h) {
  j.at("op").get_to(h.entry);
  j.at("dtype").get_to(h.dtype);
  j.at("tolerance_ulps").get_to(h.tolerance_ulps);
  j.at("bins").get_to(h.bins);
  h.bins.resize(kUlpBins);
}

void to_json(json& j, const Round& r) {
  j = {{"shard", r.shard},
       {"seed", r.seed},
       {"cases", r.cases},
       {"spreads_capped", r.spreads_capped}};
}

void from_json(const json& j, Round& r) {
  j.at("shard").get_to(r.shard);
  j.at("seed").get_to(r.seed);
  j.at("cases").get_to(r.cases);
  r.spreads_capped = j.value("spreads_capped", false);  // absent in reports of before it
}

void to_json(json& j, const CampaignOptions& o) {
  j = {{"ops", o.ops},
       {"laws", o.laws},
       {"skipped_laws", o.skipped_laws},
       {"dtypes", o.dtypes},
       {"profile", o.profile},
       {"shard_index", o.shard_index},
       {"shard_count", o.shard_count},
       {"backend", o.backend},
       {"against", o.against}};
}

void from_json(const json& j, CampaignOptions& o) {
  j.at("ops").get_to(o.ops);
  j.at("laws").get_to(o.laws);
  o.skipped_laws = j.value("skipped_laws", std::vector<std::string>());
  j.at("dtypes").get_to(o.dtypes);
  j.at("profile").get_to(o.profile);
  j.at("shard_index").get_to(o.shard_index);
  j.at("shard_count").get_to(o.shard_count);
  o.backend = j.value("backend", std::string());
  o.against = j.value("against", std::string());
}

std::string render_json(const Campaign& c, const Errata& errata) {
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["verdict"] = c.failed() ? "FAILED" : "PASSED";
  j["seed"] = c.options.seed;
  j["budget_seconds"] = c.options.budget_seconds;
  j["cases_per_binding"] = c.cases_per_cell;
  j["fewest_cases_per_binding"] = c.fewest_cases_per_cell;
  j["seconds"] = c.seconds;
  j["started_at"] = c.started_at;
  j["rounds"] = c.rounds;
  j["backend"] = c.options.backend;
  j["against"] = c.options.against;
  j["options"] = c.options;
  j["cells"] = c.cells;
  j["planted_faults"] = c.faults;
  j["traceability"] = c.clauses;
  j["errors"] = c.errors;
  j["margins"] = c.margins;
  j["coverage"] = c.coverage;
  j["errata"]["project"] = detail::project_errata(errata);
  j["errata"]["seed_documents"] = detail::spec_errata(errata);
  return j.dump(2) + "\n";
}

bool campaign_from_json(const std::string& text, Campaign* out, std::string* error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *error = "not JSON";
    return false;
  }
  if (j.value("schema_version", 0) != kReportSchemaVersion) {
    *error = "schema_version is not " + std::to_string(kReportSchemaVersion);
    return false;
  }
  try {
    Campaign c;
    j.at("options").get_to(c.options);
    j.at("seed").get_to(c.options.seed);
    j.at("budget_seconds").get_to(c.options.budget_seconds);
    j.at("cases_per_binding").get_to(c.cases_per_cell);
    // Reports written before shards were told apart carry only the largest count.
    c.fewest_cases_per_cell = j.value("fewest_cases_per_binding", c.cases_per_cell);
    j.at("seconds").get_to(c.seconds);
    j.at("started_at").get_to(c.started_at);
    j.at("rounds").get_to(c.rounds);
    j.at("cells").get_to(c.cells);
    j.at("planted_faults").get_to(c.faults);
    j.at("traceability").get_to(c.clauses);
    j.at("margins").get_to(c.margins);
    j.at("errors").get_to(c.errors);
    j.at("coverage").get_to(c.coverage);
    *out = std::move(c);
    return true;
  } catch (const json::exception& e) {
    *error = e.what();
    return false;
  }
}

}  // namespace gradconf::reports
