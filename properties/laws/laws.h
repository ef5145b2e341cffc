// All laws (spec ARCHITECTURE.md "Properties"), one header each.
#ifndef GRADCONF_PROPERTIES_LAWS_LAWS_H_
#define GRADCONF_PROPERTIES_LAWS_LAWS_H_

#include "laws/adjoint.h"
#include "laws/batch_split.h"
#include "laws/determinism.h"
#include "laws/dtype_agreement.h"
#include "laws/error_contract.h"
#include "laws/finite_differences.h"
#include "laws/linearity.h"
#include "laws/matches_backend.h"
#include "laws/matches_reference.h"
#include "laws/repro_round_trip.h"
#include "laws/stride_invariance.h"
#include "laws/workspace_contract.h"

#endif  // GRADCONF_PROPERTIES_LAWS_LAWS_H_
