//===- PassOptions.h - the value sets of the passes' options ----*- C++ -*-===//
//
// The enums behind the passes' typed options (Passes.td names their values
// with cl::values, so a bad value is refused by the option parser) and the
// --mixprec-amp pipeline, which takes the same values; their parser, whose
// error lists the values.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_PASSOPTIONS_H
#define MIXPREC_TRANSFORMS_PASSOPTIONS_H

#include "llvm/Support/CommandLine.h"

namespace mixprec {

/// The 16-bit type autocast gives tensor-core ops (precision=f16|bf16).
enum class AutocastPrecision { F16, BF16 };

/// Which ops autocast may change (level=all|tensor-core-only).
enum class AutocastLevel { All, TensorCoreOnly };

/// How parameters are stored (--mixprec-master-weights mode=fp32|none).
enum class MasterWeightsMode { FP32, None };

/// How the loss scale evolves (--mixprec-loss-scaling
/// mode=dynamic|static|none).
enum class LossScalingMode { Dynamic, Static, None };

/// llvm::cl's parser of an option with cl::values, but a value outside them
/// is refused with the values listed: "for the --mode option: 'weird' is not
/// one of dynamic, static, none". llvm::cl::parser<EnumT> is this parser for
/// the enums above (below), so the passes' ODS options and MLIR's pass
/// option parsing use it.
template <typename EnumT>
class EnumOptionParser : public llvm::cl::generic_parser_base {
protected:
  struct OptionInfo : public GenericOptionInfo {
    OptionInfo(llvm::StringRef name, EnumT value, llvm::StringRef help)
        : GenericOptionInfo(name, help), V(value) {}
    llvm::cl::OptionValue<EnumT> V;
  };
  llvm::SmallVector<OptionInfo, 4> Values;

public:
  using parser_data_type = EnumT;

  EnumOptionParser(llvm::cl::Option &option) : generic_parser_base(option) {}

  unsigned getNumOptions() const override { return Values.size(); }
  llvm::StringRef getOption(unsigned n) const override {
    return Values[n].Name;
  }
  llvm::StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &
  getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Returns true on error, as llvm::cl's parsers do.
  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, EnumT &value) {
    llvm::StringRef given = Owner.hasArgStr() ? arg : argName;
    for (const OptionInfo &info : Values) {
      if (info.Name == given) {
        value = info.V.getValue();
        return false;
      }
    }
    std::string names;
    for (const OptionInfo &info : Values)
      names += (names.empty() ? "" : ", ") + info.Name.str();
    return option.error("'" + given + "' is not one of " + names);
  }

  template <typename T>
  void addLiteralOption(llvm::StringRef name, const T &value,
                        llvm::StringRef help) {
    Values.push_back(OptionInfo(name, static_cast<EnumT>(value), help));
    AddLiteralOption(Owner, name);
  }

  void removeLiteralOption(llvm::StringRef name) {
    Values.erase(Values.begin() + findOption(name));
  }
};

} // namespace mixprec

/// Makes mixprec::EnumOptionParser llvm::cl's parser for `ENUM`; at global
/// scope, before the first option of that type.
#define MIXPREC_ENUM_OPTION_PARSER(ENUM)                                       \
  namespace llvm::cl {                                                         \
  template <> class parser<ENUM> : public ::mixprec::EnumOptionParser<ENUM> {  \
    using EnumOptionParser::EnumOptionParser;                                  \
  };                                                                           \
  }

MIXPREC_ENUM_OPTION_PARSER(mixprec::AutocastPrecision)
MIXPREC_ENUM_OPTION_PARSER(mixprec::AutocastLevel)
MIXPREC_ENUM_OPTION_PARSER(mixprec::MasterWeightsMode)
MIXPREC_ENUM_OPTION_PARSER(mixprec::LossScalingMode)

#endif // MIXPREC_TRANSFORMS_PASSOPTIONS_H
