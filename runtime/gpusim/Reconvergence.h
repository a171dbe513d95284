//===- Reconvergence.h - where divergent lanes of a warp meet ---*- C++ -*-===//

#ifndef MIXPREC_GPUSIM_RECONVERGENCE_H
#define MIXPREC_GPUSIM_RECONVERGENCE_H

#include "Ptx.h"

namespace gpusim {

/// Sets each branch's (bra, brx.idx) `reconverge` to the first instruction of
/// the immediate post-dominator of its block (code.size() when that is the
/// function's exit), the point where the SIMT stack merges the lanes that
/// took the branch with those that did not.
void computeReconvergence(Function &function);

} // namespace gpusim

#endif // MIXPREC_GPUSIM_RECONVERGENCE_H
