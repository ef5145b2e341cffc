// The clause-table oracle for any registered entry: what phase 1 must answer for a call,
// computed from our spec without running the backend under test.
#ifndef GRADCONF_PROPERTIES_OP_PREDICT_H_
#define GRADCONF_PROPERTIES_OP_PREDICT_H_

#include <string>

#include "op/call.h"

namespace gradconf::props {

struct ExpectedVerdict {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string clause_id;  ///< the first clause that fires; empty when the call proceeds
  std::string message;    ///< "<id>: expected ..., but got ..." as phase 1 words it
  /// False when a tensor's view would be refused by aclCreateTensor (or its LayoutSpec does not
  /// fit its rank): the prediction then treats it as a null tensor, while the harness cannot run
  /// such a call at all (it reports ACLNN_ERR_INNER).
  bool views_created = true;

  /// True when validation passes and the operator computes.
  bool proceeds() const { return status == ACLNN_SUCCESS && clause_id.empty(); }
};

/// The verdict of the entry's clause table for `call` under `call.profile`. Views are modelled
/// exactly as the harness sizes their storage, over a dummy data pointer (validation never reads
/// tensor data, except index tensors' values, which data-dependent clauses get from the call).
ExpectedVerdict predict(const Call& call);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_OP_PREDICT_H_
