/*===- mixprec_cpu_contract.h - contractions a CPU model hands off -*- C -*-===*
 *
 * A CPU model computes each static contraction (matmul, batch_matmul,
 * linear and their gradients) with one call,
 *
 *   mixprec_cpu_contract(description)
 *
 * whose argument is an array of int64 words laid out as below, built by
 * --mixprec-contractions-to-calls: the operands' addresses and element
 * types, then the loops, each with its kind, extent and the stride (in
 * elements) of every operand along it (0 for an operand it does not index).
 * The call computes result (+)= sum over k of lhs * rhs (products exact,
 * sums in f32) and gives the same bits for every thread count
 * (docs/design.md §8). The result is f32, or the f32 sums rounded once to
 * bf16 (to nearest even; NaN as arith.truncf makes it, 0x7fc0), which it
 * never accumulates into.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_MIXPREC_CPU_CONTRACT_H
#define MIXPREC_RUNTIME_MIXPREC_CPU_CONTRACT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The header words. */
enum {
  MIXPREC_CONTRACT_NUM_LOOPS = 0,
  MIXPREC_CONTRACT_LHS_TYPE = 1,   /* mixprec_dtype: F32 or BF16 */
  MIXPREC_CONTRACT_RHS_TYPE = 2,   /* the same as the LHS's */
  MIXPREC_CONTRACT_ACCUMULATE = 3, /* 1: add to the result's values */
  MIXPREC_CONTRACT_LHS = 4,        /* addresses of the first elements */
  MIXPREC_CONTRACT_RHS = 5,
  MIXPREC_CONTRACT_RESULT = 6,
  /* bf16 only. 1: on the CPU's bf16 dot-product instructions where it has
   * them (AVX512-BF16, AMX), which add products in pairs; 0: widened to f32
   * and summed in k order, as the f32 GEMMs and the tensor cores sum. */
  MIXPREC_CONTRACT_BF16_DOT = 7,
  MIXPREC_CONTRACT_RESULT_TYPE = 8, /* mixprec_dtype: F32 or BF16 */
  MIXPREC_CONTRACT_HEADER_WORDS = 9
};

/* Then MIXPREC_CONTRACT_LOOP_WORDS words per loop, at most
 * MIXPREC_CONTRACT_MAX_LOOPS loops. */
enum {
  MIXPREC_CONTRACT_LOOP_KIND = 0, /* mixprec_contract_loop */
  MIXPREC_CONTRACT_LOOP_EXTENT = 1,
  MIXPREC_CONTRACT_LOOP_LHS_STRIDE = 2,
  MIXPREC_CONTRACT_LOOP_RHS_STRIDE = 3,
  MIXPREC_CONTRACT_LOOP_RESULT_STRIDE = 4,
  MIXPREC_CONTRACT_LOOP_WORDS = 5,
  MIXPREC_CONTRACT_MAX_LOOPS = 12
};

/* What a loop indexes: batch all three operands, m the LHS and the result,
 * n the RHS and the result, k (summed) the LHS and the RHS. */
typedef enum mixprec_contract_loop {
  MIXPREC_CONTRACT_BATCH = 0,
  MIXPREC_CONTRACT_M = 1,
  MIXPREC_CONTRACT_N = 2,
  MIXPREC_CONTRACT_K = 3
} mixprec_contract_loop;

/* Internal to a model library: hidden, not part of its ABI. */
__attribute__((visibility("hidden"))) void
mixprec_cpu_contract(const int64_t *description);

/* The model's contractions whose words are all known at compile time, for
 * the runtime to make their GEMMs and size their buffers before the first
 * call: a count, then that many descriptions one after another, their
 * address words 0. Weak: absent from a model without contractions. */
extern __attribute__((weak, visibility("hidden")))
const int64_t mixprec_cpu_contractions[];

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
