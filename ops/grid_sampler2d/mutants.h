// Test-only: the GridSampler2D call path with one planted fault, as a Backend, so a harness runs
// any law against a mutant exactly as against the real backend. Linked only into tests, property
// runners and the mutation report.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_MUTANTS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_MUTANTS_H_

#include "grid_sampler2d/backend.h"
#include "grid_sampler2d/faults.h"

namespace gradconf::grid_sampler2d {

/// Our call path with `fault` planted (Fault::kNone gives a backend equal to ours).
Backend mutant_backend(Fault fault);

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_MUTANTS_H_
