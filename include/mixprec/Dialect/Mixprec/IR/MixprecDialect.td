//===- MixprecDialect.td - the mixprec dialect --------------*- tablegen -*-===//
//
// The `mixprec` dialect describes a model's training step: model state
// (parameters and buffers), the forward computation on ranked tensors of
// f32/f16/bf16, the declarative train-step op, and the training ops that the
// mixed-precision passes insert.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_TD

include "mlir/IR/OpBase.td"

def Mixprec_Dialect : Dialect {
  let name = "mixprec";
  let cppNamespace = "::mixprec";
  let summary = "Training graphs for mixed-precision compilation";
  let description = [{
    Ops of this dialect work on statically shaped ranked tensors. Floating
    point tensors are f32, f16 or bf16; labels and indices are i32 or i64.
    Every compute op declares its default autocast category through
    `AutocastOpInterface`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
  private:
    // Defined beside the attribute classes, which need complete storage.
    void registerAttributes();
  public:
  }];
}

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_TD
