//===- KernelAssembler.cpp - PTX to a fatbin with the CUDA toolkit --------===//

#include "mixprec/Target/CUDA/KernelAssembler.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mixprec {

std::vector<KernelImage> collectKernelImages(ModuleOp module) {
  std::vector<KernelImage> images;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attribute : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attribute);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (target && object.getFormat() == gpu::CompilationTarget::Assembly)
        images.push_back({target.getChip().str(), object.getObject().str()});
    }
  });
  return images;
}

namespace {
/// Runs CUDA toolkit programs from one directory, in one work directory.
class Toolkit {
public:
  Toolkit(Operation *anchor, StringRef cudaPath, StringRef workDir)
      : anchor(anchor), cudaPath(cudaPath), workDir(workDir) {}

  std::string path(StringRef name) const {
    SmallString<128> file(workDir);
    llvm::sys::path::append(file, name);
    return file.str().str();
  }

  LogicalResult write(StringRef file, StringRef contents) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    if (!ec) {
      os << contents;
      os.close();
      ec = os.error();
    }
    if (ec)
      return anchor->emitError("cannot write ") << file << ": " << ec.message();
    return success();
  }

  /// Runs `program` from the toolkit with `arguments`; its output goes to
  /// the diagnostic when it fails.
  LogicalResult run(StringRef program, ArrayRef<std::string> arguments) {
    SmallString<128> executable(cudaPath);
    llvm::sys::path::append(executable, "bin", program);
    if (!llvm::sys::fs::can_execute(executable))
      return anchor->emitError("cannot find ")
             << program << " at " << executable
             << " (the CUDA toolkit; set --cuda-path)";
    SmallVector<StringRef> argv = {executable};
    for (const std::string &argument : arguments)
      argv.push_back(argument);
    std::string log = path(program.str() + ".log"), error;
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                            StringRef(log)};
    int status = llvm::sys::ExecuteAndWait(executable, argv, std::nullopt,
                                           redirects, 0, 0, &error);
    if (status == 0)
      return success();
    auto output = llvm::MemoryBuffer::getFile(log);
    return anchor->emitError()
           << program << " failed" << (error.empty() ? "" : " (" + error + ")")
           << ":\n"
           << (output ? (*output)->getBuffer() : "");
  }

private:
  Operation *anchor;
  StringRef cudaPath, workDir;
};
} // namespace

/// "sm_90a" -> "90a", fatbinary's spelling.
static StringRef smNumber(StringRef chip) { return chip.drop_front(3); }

/// Whether `chip` names an architecture-specific target (sm_90a): its PTX
/// runs on that architecture only, so the driver cannot JIT it for others.
static bool isArchSpecific(StringRef chip) { return chip.ends_with("a"); }

LogicalResult assembleKernels(ModuleOp module, StringRef cudaPath,
                              StringRef workDir) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  for (gpu::BinaryOp binary : binaries) {
    Toolkit toolkit(binary, cudaPath, workDir);
    std::string name = binary.getSymName().str();
    // The PTX stays uncompressed: the simulator (runtime/gpusim) reads it,
    // and the driver JITs it either way.
    std::vector<std::string> fatbinArguments = {
        "--64", "--compress=false",
        "--create=" + toolkit.path(name + ".fatbin")};
    // The PTX the driver JITs on GPUs newer than every cubin: the newest
    // portable architecture's.
    Attribute lastTarget;
    std::string portablePTX;
    int portableVersion = 0;
    for (Attribute attribute : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attribute);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly)
        return binary.emitError("expected the PTX of an NVVM target");
      StringRef chip = target.getChip();
      std::string ptx = toolkit.path(name + "_" + chip.str() + ".ptx");
      std::string cubin = toolkit.path(name + "_" + chip.str() + ".cubin");
      if (failed(toolkit.write(ptx, object.getObject().getValue())) ||
          failed(toolkit.run("ptxas",
                             {"-arch=" + chip.str(), "-O3", ptx, "-o", cubin})))
        return failure();
      fatbinArguments.push_back("--image3=kind=elf,sm=" + smNumber(chip).str() +
                                ",file=" + cubin);
      lastTarget = target;
      int version = 0;
      if (!isArchSpecific(chip) && !smNumber(chip).getAsInteger(10, version) &&
          version > portableVersion) {
        portableVersion = version;
        portablePTX = ptx;
      }
    }
    if (!lastTarget)
      return binary.emitError("no kernel image to assemble");
    if (portableVersion)
      fatbinArguments.push_back(
          "--image3=kind=ptx,sm=" + std::to_string(portableVersion) +
          ",file=" + portablePTX);
    if (failed(toolkit.run("fatbinary", fatbinArguments)))
      return failure();
    auto fatbin = llvm::MemoryBuffer::getFile(toolkit.path(name + ".fatbin"),
                                              /*IsText=*/false);
    if (!fatbin)
      return binary.emitError("cannot read the fatbin: ")
             << fatbin.getError().message();
    MLIRContext *context = module.getContext();
    auto object = gpu::ObjectAttr::get(
        context, lastTarget, gpu::CompilationTarget::Fatbin,
        StringAttr::get(context, (*fatbin)->getBuffer()),
        /*properties=*/nullptr, /*kernels=*/nullptr);
    binary.setObjectsAttr(ArrayAttr::get(context, {object}));
  }
  return success();
}

} // namespace mixprec
