//===- MixprecAttrs.cpp - initializer and optimizer attributes ------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;

FailureOr<APFloat> mixprec::parseF64Parameter(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  double value;
  if (parser.parseFloat(value))
    return failure();
  // Every hyper-parameter and initializer value is a finite number.
  if (!std::isfinite(value))
    return parser.emitError(loc, "expected a finite number, got ") << value;
  return APFloat(value);
}

FailureOr<bool> mixprec::parseBoolParameter(AsmParser &parser) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword == "true")
    return true;
  if (keyword == "false")
    return false;
  return parser.emitError(loc, "expected 'true' or 'false', got '")
         << keyword << "'";
}

#define GET_ATTRDEF_CLASSES
#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.cpp.inc"

void MixprecDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Initializers
//===----------------------------------------------------------------------===//

LogicalResult
NormalInitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       APFloat mean, APFloat std, uint64_t seed) {
  if (!(std.convertToDouble() > 0.0))
    return emitError() << "normal initializer needs std > 0, got "
                       << std.convertToDouble();
  return success();
}

LogicalResult
UniformInitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        APFloat low, APFloat high, uint64_t seed) {
  if (!(low.convertToDouble() < high.convertToDouble()))
    return emitError() << "uniform initializer needs low < high, got ["
                       << low.convertToDouble() << ", "
                       << high.convertToDouble() << ")";
  return success();
}

/// Xavier and Kaiming compute fans from dims 0 and 1 (and the receptive
/// field), as PyTorch does, so they need rank >= 2.
static LogicalResult
verifyHasFans(StringRef name, RankedTensorType type,
              function_ref<InFlightDiagnostic()> emitError) {
  if (type.getRank() >= 2)
    return success();
  return emitError() << name << " needs a tensor of rank >= 2 to compute fans, "
                     << "got rank " << type.getRank();
}

LogicalResult XavierUniformInitAttr::verifyFor(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  return verifyHasFans("xavier_uniform", type, emitError);
}
LogicalResult XavierNormalInitAttr::verifyFor(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  return verifyHasFans("xavier_normal", type, emitError);
}
LogicalResult KaimingUniformInitAttr::verifyFor(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  return verifyHasFans("kaiming_uniform", type, emitError);
}
LogicalResult KaimingNormalInitAttr::verifyFor(
    RankedTensorType type, function_ref<InFlightDiagnostic()> emitError) const {
  return verifyHasFans("kaiming_normal", type, emitError);
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

static LogicalResult
verifyWeightDecay(double weightDecay,
                  function_ref<InFlightDiagnostic()> emitError) {
  if (!(weightDecay >= 0.0))
    return emitError() << "weight_decay must be >= 0, got " << weightDecay;
  return success();
}

LogicalResult SGDAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              APFloat momentumValue, APFloat dampeningValue,
                              bool nesterov, APFloat weightDecay,
                              bool decayNormAndBias) {
  double momentum = momentumValue.convertToDouble();
  double dampening = dampeningValue.convertToDouble();
  if (!(momentum >= 0.0))
    return emitError() << "momentum must be >= 0, got " << momentum;
  if (!(dampening >= 0.0 && dampening <= 1.0))
    return emitError() << "dampening must be in [0, 1], got " << dampening;
  if (nesterov && (momentum == 0.0 || dampening != 0.0))
    return emitError() << "nesterov needs momentum > 0 and dampening = 0";
  return verifyWeightDecay(weightDecay.convertToDouble(), emitError);
}

static LogicalResult
verifyAdamFamily(function_ref<InFlightDiagnostic()> emitError,
                 APFloat beta1Value, APFloat beta2Value, APFloat epsValue,
                 APFloat weightDecay) {
  double beta1 = beta1Value.convertToDouble();
  double beta2 = beta2Value.convertToDouble();
  double eps = epsValue.convertToDouble();
  if (!(beta1 >= 0.0 && beta1 < 1.0))
    return emitError() << "beta1 must be in [0, 1), got " << beta1;
  if (!(beta2 >= 0.0 && beta2 < 1.0))
    return emitError() << "beta2 must be in [0, 1), got " << beta2;
  if (!(eps > 0.0))
    return emitError() << "eps must be > 0, got " << eps;
  return verifyWeightDecay(weightDecay.convertToDouble(), emitError);
}

LogicalResult AdamAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               APFloat beta1, APFloat beta2, APFloat eps,
                               APFloat weightDecay, bool decayNormAndBias) {
  return verifyAdamFamily(emitError, beta1, beta2, eps, weightDecay);
}

LogicalResult AdamWAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                APFloat beta1, APFloat beta2, APFloat eps,
                                APFloat weightDecay, bool decayNormAndBias) {
  return verifyAdamFamily(emitError, beta1, beta2, eps, weightDecay);
}
