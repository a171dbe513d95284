//===- ABIEmitter.cpp - generated C for a model's function table ----------===//

#include "mixprec/ModelABI/ModelABI.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;

namespace mixprec {

static const char *dtypeEnumerator(mixprec_dtype dtype) {
  switch (dtype) {
  case MIXPREC_F32:
    return "MIXPREC_F32";
  case MIXPREC_F16:
    return "MIXPREC_F16";
  case MIXPREC_BF16:
    return "MIXPREC_BF16";
  case MIXPREC_I32:
    return "MIXPREC_I32";
  case MIXPREC_I64:
    return "MIXPREC_I64";
  case MIXPREC_BOOL:
    return "MIXPREC_BOOL";
  }
  llvm_unreachable("unknown dtype");
}

static const char *roleEnumerator(mixprec_state_role role) {
  switch (role) {
  case MIXPREC_STATE_PARAMETER:
    return "MIXPREC_STATE_PARAMETER";
  case MIXPREC_STATE_BUFFER:
    return "MIXPREC_STATE_BUFFER";
  case MIXPREC_STATE_STEP_COUNT:
    return "MIXPREC_STATE_STEP_COUNT";
  case MIXPREC_STATE_MOMENT:
    return "MIXPREC_STATE_MOMENT";
  case MIXPREC_STATE_LOSS_SCALE:
    return "MIXPREC_STATE_LOSS_SCALE";
  case MIXPREC_STATE_LOSS_SCALE_TRACKER:
    return "MIXPREC_STATE_LOSS_SCALE_TRACKER";
  case MIXPREC_STATE_LOSS_SCALE_HYSTERESIS:
    return "MIXPREC_STATE_LOSS_SCALE_HYSTERESIS";
  case MIXPREC_STATE_SKIPPED:
    return "MIXPREC_STATE_SKIPPED";
  case MIXPREC_STATE_SKIPPED_STEPS:
    return "MIXPREC_STATE_SKIPPED_STEPS";
  case MIXPREC_STATE_FINITE_GRADIENTS:
    return "MIXPREC_STATE_FINITE_GRADIENTS";
  }
  llvm_unreachable("unknown state role");
}

/// The strided-memref descriptor type of rank `rank`, as MLIR's C interface
/// lays it out.
static std::string descriptorType(size_t rank) {
  return "mixprec_memref_" + std::to_string(rank);
}

/// `text` as a C string literal; octal escapes cannot swallow the next
/// character.
static std::string cStringLiteral(StringRef text) {
  std::string literal = "\"";
  for (unsigned char c : text) {
    if (llvm::isAlnum(c) || c == '_' || c == ' ' || c == '.' || c == '-') {
      literal += c;
      continue;
    }
    char escape[5];
    snprintf(escape, sizeof(escape), "\\%03o", c);
    literal += escape;
  }
  return literal + "\"";
}

static void emitSpecs(llvm::raw_ostream &os, StringRef prefix,
                      ArrayRef<TensorSpec> specs) {
  for (auto [index, spec] : llvm::enumerate(specs))
    if (!spec.shape.empty())
      os << "static const int64_t " << prefix << index << "_shape[] = {"
         << llvm::join(
                llvm::map_range(spec.shape,
                                [](int64_t s) { return std::to_string(s); }),
                ", ")
         << "};\n";
  if (specs.empty())
    return;
  os << "static const mixprec_tensor_spec " << prefix << "specs[] = {\n";
  for (auto [index, spec] : llvm::enumerate(specs)) {
    os << "  {" << cStringLiteral(spec.name) << ", "
       << dtypeEnumerator(spec.dtype) << ", " << spec.shape.size() << ", ";
    if (spec.shape.empty())
      os << "0";
    else
      os << prefix << index << "_shape";
    os << "},\n";
  }
  os << "};\n";
}

/// The table of a function's index checks, `<prefix>checks`.
static void emitIndexChecks(llvm::raw_ostream &os, StringRef prefix,
                            ArrayRef<IndexCheckSpec> checks) {
  for (auto [index, check] : llvm::enumerate(checks))
    if (!check.shape.empty())
      os << "static const int64_t " << prefix << "check" << index
         << "_shape[] = {"
         << llvm::join(
                llvm::map_range(check.shape,
                                [](int64_t s) { return std::to_string(s); }),
                ", ")
         << "};\n";
  os << "static const mixprec_index_check " << prefix << "checks[] = {\n";
  for (auto [index, check] : llvm::enumerate(checks)) {
    os << "  {" << cStringLiteral(check.op) << ", "
       << cStringLiteral(check.location) << ", " << cStringLiteral(check.noun)
       << ", " << check.bound << ", " << check.shape.size() << ", ";
    if (check.shape.empty())
      os << "0";
    else
      os << prefix << "check" << index << "_shape";
    os << "},\n";
  }
  os << "};\n";
}

/// Declares a descriptor for the dense row-major tensor of `spec` at `data`.
static void emitDescriptor(llvm::raw_ostream &os, StringRef var, StringRef data,
                           const TensorSpec &spec) {
  size_t rank = spec.shape.size();
  os << "  " << descriptorType(rank) << " " << var << " = {" << data << ", "
     << data << ", 0";
  if (rank > 0) {
    SmallVector<int64_t> strides(rank, 1);
    for (size_t dim = rank - 1; dim > 0; --dim)
      strides[dim - 1] = strides[dim] * spec.shape[dim];
    auto join = [](ArrayRef<int64_t> values) {
      return llvm::join(
          llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
          ", ");
    };
    os << ", {" << join(spec.shape) << "}, {" << join(strides) << "}";
  }
  os << "};\n";
}

/// `<prefix>homes`: for each output, the input it lives in or -1.
static void emitOutputHomes(llvm::raw_ostream &os, StringRef prefix,
                            const FunctionSignature &function) {
  if (function.outputs.empty())
    return;
  SmallVector<std::string> homes;
  for (size_t output = 0; output < function.outputs.size(); ++output)
    homes.push_back(std::to_string(function.outputHome(output)));
  os << "static const int32_t " << prefix << "homes[] = {"
     << llvm::join(homes, ", ") << "};\n";
}

/// `<prefix>invoke`: the function's trampoline. Inputs come from `data`
/// (an input that an output lives in is that output's buffer, filled from
/// the input first: mixprec_place_inputs), outputs that live in no input
/// are out-parameters, then the index report and the workspace. On CUDA
/// every buffer is a device buffer of the call's frame (CudaModel.h).
static void emitInvoke(llvm::raw_ostream &os, StringRef prefix, size_t index,
                       const FunctionSignature &function, bool cuda) {
  size_t numInputs = function.inputs.size();
  size_t numOutputs = function.outputs.size();
  bool reports = !function.indexChecks.empty();
  bool workspace = function.workspaceBytes > 0;
  std::string entry = "&mixprec_model_entries[" + std::to_string(index) + "]";
  os << "extern void _mlir_ciface_" << function.name << "(";
  SmallVector<std::string> params;
  for (const TensorSpec &spec : function.inputs)
    params.push_back(descriptorType(spec.shape.size()) + " *");
  for (auto [output, spec] : llvm::enumerate(function.outputs))
    if (function.outputHome(output) < 0)
      params.push_back(descriptorType(spec.shape.size()) + " *");
  if (reports)
    params.push_back(descriptorType(1) + " *");
  if (workspace)
    params.push_back(descriptorType(1) + " *");
  os << (params.empty() ? "void" : llvm::join(params, ", ")) << ");\n";
  os << "static mixprec_status " << prefix
     << "invoke(const mixprec_tensor *in, const mixprec_tensor *out) {\n";
  // The report goes where the outputs go, as one more output (on CUDA:
  // downloaded first, so that a failed check keeps the caller's state).
  size_t callOutputs = numOutputs;
  std::string outputs = "out";
  if (reports) {
    os << "  int64_t report[3];\n";
    if (cuda) {
      callOutputs = numOutputs + 1;
      outputs = "outs";
      os << "  static const int64_t report_shape[] = {3};\n"
         << "  mixprec_tensor outs[" << callOutputs << "];\n"
         << "  for (int i = 0; i < " << numOutputs << "; ++i)\n"
         << "    outs[i] = out[i];\n"
         << "  outs[" << numOutputs
         << "] = (mixprec_tensor){report, MIXPREC_I64, 1, report_shape};\n";
    }
  }
  // C has no zero-length arrays.
  os << "  void *din[" << std::max<size_t>(numInputs, 1) << "];\n";
  if (cuda) {
    os << "  void *dout[" << std::max<size_t>(callOutputs, 1) << "], *dws;\n"
       << "  mixprec_status status = mixprec_cuda_enter(" << entry << ", in, "
       << numInputs << ", din, " << outputs << ", " << callOutputs
       << ", dout, &dws);\n"
       << "  if (status != MIXPREC_OK)\n    return status;\n";
  } else {
    os << "  mixprec_place_inputs(" << entry << ", in, out, din);\n";
    if (workspace)
      os << "  void *dws = mixprec_workspace_acquire(" << entry << ");\n"
         << "  if (!dws)\n    return MIXPREC_INTERNAL;\n";
  }
  // A descriptor per tensor, `in<i>` over din[i], `out<i>` over out[i] (on
  // CUDA its device buffer dout[i]).
  SmallVector<std::string> args;
  for (auto [i, spec] : llvm::enumerate(function.inputs)) {
    std::string var = "in" + std::to_string(i);
    emitDescriptor(os, var, "din[" + std::to_string(i) + "]", spec);
    args.push_back("&" + var);
  }
  for (auto [i, spec] : llvm::enumerate(function.outputs)) {
    if (function.outputHome(i) >= 0)
      continue;
    std::string var = "out" + std::to_string(i);
    std::string index = std::to_string(i);
    emitDescriptor(os, var,
                   cuda ? "dout[" + index + "]" : "out[" + index + "].data",
                   spec);
    args.push_back("&" + var);
  }
  if (reports && cuda)
    // All ones: check -1, no failure, until the compiled code's kernel
    // writes the report (a stand-in driver that runs no kernel leaves it).
    os << "  mgpuMemset32(dout[" << numOutputs
       << "], 0xffffffffu, 6, (void *)0);\n";
  if (reports) {
    emitDescriptor(os, "reportOut",
                   cuda ? "dout[" + std::to_string(numOutputs) + "]" : "report",
                   TensorSpec{"index report", MIXPREC_I64, {3}});
    args.push_back("&reportOut");
  }
  if (workspace) {
    emitDescriptor(
        os, "workspace", "dws",
        TensorSpec{"workspace", MIXPREC_BOOL, {function.workspaceBytes}});
    args.push_back("&workspace");
  }
  os << "  _mlir_ciface_" << function.name << "(" << llvm::join(args, ", ")
     << ");\n";
  if (cuda) {
    os << "  status = mixprec_cuda_leave(" << entry << ", " << outputs << ", "
       << callOutputs << ", dout);\n";
  } else {
    if (workspace)
      os << "  mixprec_workspace_release(dws);\n";
    os << "  mixprec_status status = MIXPREC_OK;\n";
  }
  if (reports)
    os << "  if (status == MIXPREC_OK)\n    status = "
       << "mixprec_index_failure(" << cStringLiteral(function.name)
       << ", report, " << prefix << "checks, " << function.indexChecks.size()
       << ");\n";
  os << "  return status;\n}\n";
}

/// The state table: every parameter and buffer with its initial draw.
static void emitStateTable(llvm::raw_ostream &os, ArrayRef<StateSpec> state) {
  std::vector<TensorSpec> tensors;
  for (const StateSpec &spec : state)
    tensors.push_back(spec.tensor);
  os << "\n/* parameters and buffers */\n";
  emitSpecs(os, "state_", tensors);
  os << "const mixprec_model_state mixprec_model_states[] = {\n";
  for (auto [index, spec] : llvm::enumerate(state)) {
    char numbers[128];
    // %a: hexadecimal floats carry the f64 values exactly.
    snprintf(numbers, sizeof(numbers), "%a, %a, %lluull", spec.init.a,
             spec.init.b, (unsigned long long)spec.init.seed);
    std::string step = spec.step.empty() ? "0" : cStringLiteral(spec.step);
    os << "  {&state_specs[" << index << "], " << roleEnumerator(spec.role)
       << ", " << step << ", " << int(spec.init.kind) << ", " << numbers
       << "},\n";
  }
  if (state.empty())
    os << "  {0, MIXPREC_STATE_PARAMETER, 0, 0, 0.0, 0.0, 0},\n";
  os << "};\nconst int32_t mixprec_model_num_states = " << state.size()
     << ";\n";
}

std::string emitABISource(ArrayRef<FunctionSignature> functions,
                          ArrayRef<StateSpec> state, bool cuda) {
  std::string source;
  llvm::raw_string_ostream os(source);
  os << "/* Generated by mixprec-compile: the function table of this model. "
        "*/\n#include \""
     << (cuda ? "CudaModel.h" : "ModelEntries.h") << "\"\n\n";
  if (cuda)
    os << "#include <stddef.h>\n"
       << "void mgpuMemset32(void *, unsigned, size_t, void *);\n\n";
  size_t maxRank = 0;
  for (const FunctionSignature &function : functions) {
    for (const std::vector<TensorSpec> *specs :
         {&function.inputs, &function.outputs})
      for (const TensorSpec &spec : *specs)
        maxRank = std::max(maxRank, spec.shape.size());
    // The index report and the workspace are 1-d.
    if (!function.indexChecks.empty() || function.workspaceBytes > 0)
      maxRank = std::max<size_t>(maxRank, 1);
  }
  os << "typedef struct { void *allocated, *aligned; int64_t offset; } "
     << descriptorType(0) << ";\n";
  for (size_t rank = 1; rank <= maxRank; ++rank)
    os << "typedef struct { void *allocated, *aligned; int64_t offset; "
          "int64_t sizes["
       << rank << "], strides[" << rank << "]; } " << descriptorType(rank)
       << ";\n";
  for (auto [index, function] : llvm::enumerate(functions)) {
    std::string prefix = "f" + std::to_string(index) + "_";
    os << "\n/* " << function.name << " */\n";
    emitSpecs(os, prefix + "in", function.inputs);
    emitSpecs(os, prefix + "out", function.outputs);
    emitOutputHomes(os, prefix, function);
    bool reports = !function.indexChecks.empty();
    if (reports)
      emitIndexChecks(os, prefix, function.indexChecks);
    emitInvoke(os, prefix, index, function, cuda);
  }
  os << "\nconst mixprec_model_entry mixprec_model_entries[] = {\n";
  for (auto [index, function] : llvm::enumerate(functions)) {
    std::string prefix = "f" + std::to_string(index) + "_";
    os << "  {{" << cStringLiteral(function.name) << ", "
       << function.inputs.size() << ", "
       << (function.inputs.empty() ? "0" : prefix + "inspecs") << ", "
       << function.outputs.size() << ", "
       << (function.outputs.empty() ? "0" : prefix + "outspecs") << "}, "
       << prefix << "invoke, " << int(function.trainStep) << ", "
       << (function.outputs.empty() ? "0" : prefix + "homes") << ", "
       << function.workspaceBytes << ", " << function.indexChecks.size()
       << "},\n";
  }
  os << "};\nconst int32_t mixprec_model_num_entries = " << functions.size()
     << ";\n";
  emitStateTable(os, state);
  return source;
}

static std::string describe(const TensorSpec &spec) {
  // "MIXPREC_F32" -> "f32"
  std::string text =
      spec.name + ": " +
      StringRef(dtypeEnumerator(spec.dtype)).drop_front(8).lower() + "[";
  text += llvm::join(
      llvm::map_range(spec.shape, [](int64_t s) { return std::to_string(s); }),
      ", ");
  return text + "]";
}

std::string emitABIHeader(ArrayRef<FunctionSignature> functions,
                          StringRef modelName) {
  std::string header;
  llvm::raw_string_ostream os(header);
  std::string guard = "MIXPREC_MODEL_" + modelName.upper() + "_H";
  for (char &c : guard)
    if (!llvm::isAlnum(c))
      c = '_';
  os << "/* Generated by mixprec-compile for " << modelName
     << ". Link the model library; see mixprec/Runtime/mixprec.h. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"mixprec/Runtime/mixprec.h\"\n\n";
  for (const FunctionSignature &function : functions) {
    os << "/* " << function.name << "(";
    os << llvm::join(llvm::map_range(function.inputs, describe), ", ");
    os << ") -> (";
    os << llvm::join(llvm::map_range(function.outputs, describe), ", ");
    os << ") */\nstatic inline mixprec_status mixprec_" << function.name
       << "(const mixprec_tensor *inputs, const mixprec_tensor *outputs) {\n"
       << "  return mixprec_call(\"" << function.name << "\", inputs, "
       << function.inputs.size() << ", outputs, " << function.outputs.size()
       << ");\n}\n\n";
  }
  os << "#endif /* " << guard << " */\n";
  return header;
}

} // namespace mixprec
