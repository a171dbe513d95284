//===- NoLLVMAllocatorPoisoning.h - ASan against uninstrumented LLVM ------===//
//
// Included first into every C++ file of the sanitizer build
// (MIXPREC_SANITIZE). Under ASan, LLVM's headers make BumpPtrAllocator poison
// a new slab and unpoison each allocation from it. The prebuilt LLVM and
// MLIR libraries are built without ASan: their copies of the same inline
// code hand out memory from a slab our code poisoned without unpoisoning
// it, and every later access would be a false use-after-poison (the
// attribute storage MLIR uniques, for one). Poisoning is a no-op here, as it
// is in those libraries; ASan still checks every malloc'd block.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CMAKE_NOLLVMALLOCATORPOISONING_H
#define MIXPREC_CMAKE_NOLLVMALLOCATORPOISONING_H

#include "llvm/Support/Compiler.h"

#define __asan_poison_memory_region(addr, size) ((void)(addr), (void)(size))
#define __asan_unpoison_memory_region(addr, size) ((void)(addr), (void)(size))

#endif // MIXPREC_CMAKE_NOLLVMALLOCATORPOISONING_H
