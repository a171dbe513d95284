//===- Deallocation.h - the pipelines' buffer deallocation ------*- C++ -*-===//

#ifndef MIXPREC_LIB_CONVERSION_PIPELINES_DEALLOCATION_H
#define MIXPREC_LIB_CONVERSION_PIPELINES_DEALLOCATION_H

namespace mixprec {

/// Upstream's buffer-deallocation-pipeline, with a straight-line function's
/// frees split in linear time (--mixprec-split-deallocs) before the
/// simplification, whose alias queries are quadratic in their number.
inline constexpr const char *kBufferDeallocation =
    "expand-realloc{emit-deallocs=false},canonicalize,"
    "ownership-based-buffer-deallocation,canonicalize,"
    "mixprec-split-deallocs,buffer-deallocation-simplification,"
    "bufferization-lower-deallocations,cse,canonicalize,";

} // namespace mixprec

#endif // MIXPREC_LIB_CONVERSION_PIPELINES_DEALLOCATION_H
