//===- MixprecAttrs.td - initializers and optimizers --------*- tablegen -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECATTRS_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mixprec/Dialect/Mixprec/IR/MixprecDialect.td"
include "mixprec/Dialect/Mixprec/IR/MixprecInterfaces.td"

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

// A float hyper-parameter, stored as a double-precision APFloat.
class Mixprec_F64Parameter<string desc, string default = "">
    : APFloatParameter<desc> {
  let parser = "::mixprec::parseF64Parameter($_parser)";
  let printer = "$_printer.printFloat($_self)";
  let defaultValue = !if(!empty(default), "",
                         "::llvm::APFloat(" # default # ")");
}

class Mixprec_BoolParameter<string desc, string default>
    : AttrOrTypeParameter<"bool", desc> {
  let parser = "::mixprec::parseBoolParameter($_parser)";
  let printer = [{$_printer << ($_self ? "true" : "false")}];
  let defaultValue = default;
}

def Mixprec_SeedParameter
    : DefaultValuedParameter<"uint64_t", "0", "seed of the counter-based RNG">;

class Mixprec_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Mixprec_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Initializers of parameters and buffers
//===----------------------------------------------------------------------===//

class Mixprec_InitAttr<string name, string attrMnemonic, list<Trait> traits = []>
    : Mixprec_Attr<name, attrMnemonic,
                   !listconcat(traits, [Mixprec_InitializerAttrInterface])>;

def Mixprec_ZerosInitAttr : Mixprec_InitAttr<"ZerosInit", "zeros"> {
  let summary = "fills with 0";
}

def Mixprec_OnesInitAttr : Mixprec_InitAttr<"OnesInit", "ones"> {
  let summary = "fills with 1";
}

def Mixprec_ConstantInitAttr : Mixprec_InitAttr<"ConstantInit", "constant"> {
  let summary = "fills with one value";
  let parameters = (ins Mixprec_F64Parameter<"the value">:$value);
  let assemblyFormat = "`<` $value `>`";
}

def Mixprec_NormalInitAttr : Mixprec_InitAttr<"NormalInit", "normal"> {
  let summary = "draws from N(mean, std^2)";
  let parameters = (ins Mixprec_F64Parameter<"mean", "0.0">:$mean,
                        Mixprec_F64Parameter<"standard deviation", "1.0">:$std,
                        Mixprec_SeedParameter:$seed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Mixprec_UniformInitAttr : Mixprec_InitAttr<"UniformInit", "uniform"> {
  let summary = "draws from U(low, high)";
  let parameters = (ins Mixprec_F64Parameter<"lower bound", "0.0">:$low,
                        Mixprec_F64Parameter<"upper bound", "1.0">:$high,
                        Mixprec_SeedParameter:$seed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

class Mixprec_FanInitAttr<string name, string attrMnemonic, string what>
    : Mixprec_InitAttr<name, attrMnemonic, [
        DeclareAttrInterfaceMethods<Mixprec_InitializerAttrInterface,
                                    ["verifyFor"]>]> {
  let summary = what # "; fans from the tensor's first two dims and receptive field";
  let assemblyFormat = "`<` struct(params) `>`";
}

def Mixprec_XavierUniformInitAttr
    : Mixprec_FanInitAttr<"XavierUniformInit", "xavier_uniform",
                          "U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out))"> {
  let parameters = (ins Mixprec_F64Parameter<"gain", "1.0">:$gain,
                        Mixprec_SeedParameter:$seed);
}

def Mixprec_XavierNormalInitAttr
    : Mixprec_FanInitAttr<"XavierNormalInit", "xavier_normal",
                          "N(0, s^2), s = gain * sqrt(2 / (fan_in + fan_out))"> {
  let parameters = (ins Mixprec_F64Parameter<"gain", "1.0">:$gain,
                        Mixprec_SeedParameter:$seed);
}

def Mixprec_KaimingUniformInitAttr
    : Mixprec_FanInitAttr<"KaimingUniformInit", "kaiming_uniform",
                          "U(-b, b), b = sqrt(6 / ((1 + a^2) * fan_in))"> {
  let parameters = (ins Mixprec_F64Parameter<"negative slope of the rectifier",
                                             "0.0">:$a,
                        Mixprec_SeedParameter:$seed);
}

def Mixprec_KaimingNormalInitAttr
    : Mixprec_FanInitAttr<"KaimingNormalInit", "kaiming_normal",
                          "N(0, s^2), s = sqrt(2 / ((1 + a^2) * fan_in))"> {
  let parameters = (ins Mixprec_F64Parameter<"negative slope of the rectifier",
                                             "0.0">:$a,
                        Mixprec_SeedParameter:$seed);
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

// An optimizer: its hyper-parameters' getters serve the interface; the
// moments it keeps and the update op it builds are its own code.
class Mixprec_OptimizerAttr<string name, string attrMnemonic,
                            list<Trait> traits = [],
                            string extraDeclaration = "">
    : Mixprec_Attr<name, attrMnemonic,
                   !listconcat(traits, [Mixprec_OptimizerAttrInterface])> {
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::llvm::StringRef> getMomentNames() const;
    ::mixprec::OptimizerUpdateOpInterface
    buildUpdate(::mlir::OpBuilder &builder, ::mlir::Location loc,
                ::mlir::Value param, ::mlir::Value grad,
                ::mlir::ValueRange moments, ::mlir::Value lr,
                ::mlir::Value stepCount, bool decayed) const;
  }] # extraDeclaration;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Mixprec_SGDAttr : Mixprec_OptimizerAttr<"SGD", "sgd", [], [{
    /// Whether the update needs the step count: a momentum buffer with
    /// dampening is set to the undamped gradient on the first step.
    bool needsStepCount() const;
  }]> {
  let summary = "SGD with optional momentum, Nesterov momentum and L2 decay";
  let description = [{
    PyTorch's `torch.optim.SGD`: `g += wd * w; b = momentum * b + (1 - dampening) * g;
    w -= lr * (nesterov ? g + momentum * b : b)`, except that the first
    step sets `b = g`, undamped (under loss scaling, the first step not
    skipped). Weight decay skips parameters of rank <= 1 (biases, norm
    scales) unless `decay_norm_and_bias = true` or the parameter says
    otherwise. On `mixprec.sgd_update`, `weight_decay` is that parameter's
    decay and `decay_norm_and_bias` is false.

    ```mlir
    #mixprec.sgd<momentum = 0.9, nesterov = true, weight_decay = 5.0e-4>
    ```
  }];
  let parameters = (ins
      Mixprec_F64Parameter<"momentum factor", "0.0">:$momentum,
      Mixprec_F64Parameter<"dampening of the momentum", "0.0">:$dampening,
      Mixprec_BoolParameter<"Nesterov momentum", "false">:$nesterov,
      Mixprec_F64Parameter<"L2 weight decay", "0.0">:$weight_decay,
      Mixprec_BoolParameter<"decay rank <= 1 parameters too",
                            "false">:$decay_norm_and_bias);
}

// Adam's and AdamW's hyper-parameters; both update with `mixprec.adam_update`
// (whose `weight_decay` is its parameter's, `decay_norm_and_bias` false).
class Mixprec_AdamFamilyAttr<string name, string attrMnemonic,
                             string defaultDecay, bit decoupled>
    : Mixprec_OptimizerAttr<name, attrMnemonic,
        [Mixprec_AdamFamilyAttrInterface],
        "bool isDecoupled() const { return " #
            !if(decoupled, "true", "false") # "; }"> {
  let parameters = (ins
      Mixprec_F64Parameter<"decay of the first moment", "0.9">:$beta1,
      Mixprec_F64Parameter<"decay of the second moment", "0.999">:$beta2,
      Mixprec_F64Parameter<"denominator epsilon", "1.0e-8">:$eps,
      Mixprec_F64Parameter<"weight decay", defaultDecay>:$weight_decay,
      Mixprec_BoolParameter<"decay rank <= 1 parameters too",
                            "false">:$decay_norm_and_bias);
}

def Mixprec_AdamAttr : Mixprec_AdamFamilyAttr<"Adam", "adam", "0.0",
                                              /*decoupled=*/0> {
  let summary = "Adam with bias correction; weight decay added to the gradient";
}

def Mixprec_AdamWAttr : Mixprec_AdamFamilyAttr<"AdamW", "adamw", "0.01",
                                               /*decoupled=*/1> {
  let summary = "Adam with bias correction and decoupled weight decay";
}

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECATTRS_TD
