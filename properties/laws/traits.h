// What a law needs to know about an op, as members of a traits struct (one per op family, e.g.
// GridSampler2DTraits). Laws are written once against these; an op opts into a law by
// providing the members it uses.
//
//   using Problem, Call, Backend;
//   static Backend default_backend();
//   static std::string repro(const Problem&);
//   static Call make_call(const Problem&);                // the problem's own entry
//   static Problem as_forward(Problem), as_backward(Problem);
//   static Outcome run(const Call&, const RunOptions&, const Backend&);
//   static std::vector<ExpectedOutput> reference(const Problem&, const Call&);  // wanted outputs
//   static std::vector<int> wanted_outputs(const Problem&, const Call&);
//   static aclDataType dtype(const Problem&);  static Problem with_dtype(Problem, aclDataType);
//   static std::vector<Differentiable> differentiable(const Problem&);
//   static double adjoint_magnitude(const Problem&, const Call& forward, const Differentiable&);
//   static Problem smooth_double(Problem);     // finite differences: double, away from kinks
//   static std::vector<int> incoming_gradients(const Call& backward);
//   static int batch_size(const Problem&);  static int batch_dim(const Call&, int tensor);
#ifndef GRADCONF_PROPERTIES_LAWS_TRAITS_H_
#define GRADCONF_PROPERTIES_LAWS_TRAITS_H_

#include <string>
#include <vector>

namespace gradconf::props {

/// A reference value set for one output tensor of a call.
struct ExpectedOutput {
  int tensor = -1;   ///< index in the call's tensors
  std::string name;  ///< the C API parameter name (tolerance table key)
  std::vector<int64_t> dims;
  std::vector<double> values;
  /// Elements that are zero by construction whatever the inputs hold (an NSA key that no
  /// unmasked selection reaches gets dk = dv = 0). They are compared like the rest, but they are
  /// no evidence: the mistrust judgement leaves them out.
  int64_t structural_zeros = 0;
};

/// One input the forward is differentiable in, and where its gradient appears. Indices are
/// tensor positions in the forward call and the backward call of the same problem.
struct Differentiable {
  int forward_input = -1;      ///< x in forward(x, ...)
  int forward_output = -1;     ///< y = forward(...)
  int backward_incoming = -1;  ///< g = dL/dy in the backward call
  int backward_gradient = -1;  ///< dL/dx in the backward call
  bool linear = false;         ///< forward is linear in x: the adjoint identity holds exactly
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_TRAITS_H_
