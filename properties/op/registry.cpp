#include "op/registry.h"

namespace gradconf::props {

const LawBinding* OpFamily::law(std::string_view name) const {
  for (const LawBinding& binding : laws) {
    if (binding.name == name) return &binding;
  }
  return nullptr;
}

const OpFamily* find_family(std::string_view family) {
  for (const OpFamily* f : op_families()) {
    if (f->family == family) return f;
  }
  return nullptr;
}

const EntrySpec* find_entry(std::string_view name) {
  for (const OpFamily* f : op_families()) {
    for (const EntrySpec* e : f->entries) {
      if (e->name == name) return e;
    }
  }
  return nullptr;
}

LawResult run_law_case(const LawBinding& binding, const Backend& backend, int index,
                       uint64_t seed) {
  const int size = (index * 37) % 101;
  const uint64_t random = (seed + static_cast<uint64_t>(index)) * 0x9E3779B97F4A7C15ull + 1;
  return binding.cases(backend)(rc::Random(random), size).value();
}

}  // namespace gradconf::props
