//===- Contraction.h - a CPU model's contractions ---------------*- C++ -*-===//

#ifndef MIXPREC_RUNTIME_CPU_CONTRACTION_H
#define MIXPREC_RUNTIME_CPU_CONTRACTION_H

#include <cstddef>
#include <cstdint>

namespace mixprec::cpu {

/// result[i][j] (+)= sum over l of lhs[i][l] * rhs[l][j], strides in
/// elements.
struct Gemm {
  int64_t m, n, k;
  int64_t lhsM, lhsK, rhsK, rhsN, resultM, resultN;
};

/// Runs the contraction `description` describes (mixprec_cpu_contract.h);
/// false, with `error` saying why, for a description no compiler writes.
bool contract(const int64_t *description, char *error, size_t errorSize);

/// `rows` rows of `gemm` in plain loops, k in order with fused
/// multiply-adds: where oneDNN has no matmul for a shape.
void referenceGemm(const Gemm &gemm, int64_t rows, int64_t type,
                   bool accumulate, const void *lhs, const void *rhs,
                   float *result);

} // namespace mixprec::cpu

#endif
