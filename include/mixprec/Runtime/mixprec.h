/*===- mixprec.h - the C ABI of compiled mixprec models -------------------===*
 *
 * A model compiled by `mixprec-compile --target=cpu` is a shared library that
 * exports the functions below. Each public function of the model becomes one
 * entry of a function table; a function takes input tensors and fills output
 * tensors.
 *
 * Memory: the caller allocates every input and output buffer and owns it; a
 * call never keeps a pointer past its return and never returns memory that
 * the caller must free. Temporaries are allocated and freed inside the call.
 * Tensors are dense and row-major. bf16 elements are the upper 16 bits of
 * the f32 with the same value; f16 elements are IEEE binary16.
 *
 * Errors: every entry point returns a mixprec_status; on failure,
 * mixprec_last_error() describes it (the message is per thread and stays
 * valid until the next failing call on that thread).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_MIXPREC_H
#define MIXPREC_RUNTIME_MIXPREC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MIXPREC_ABI_VERSION 1

typedef enum mixprec_dtype {
  MIXPREC_F32 = 0,
  MIXPREC_F16 = 1,
  MIXPREC_BF16 = 2,
  MIXPREC_I32 = 3,
  MIXPREC_I64 = 4,
  MIXPREC_BOOL = 5, /* one byte per element, 0 or 1 */
} mixprec_dtype;

typedef enum mixprec_status {
  MIXPREC_OK = 0,
  MIXPREC_INVALID_ARGUMENT = 1, /* wrong count, dtype, rank, shape or null */
  MIXPREC_NOT_FOUND = 2,        /* no function of that name */
  MIXPREC_INTERNAL = 3,
} mixprec_status;

/* A tensor the caller passes in: `data` points at the first element. */
typedef struct mixprec_tensor {
  void *data;
  mixprec_dtype dtype;
  int32_t rank;
  const int64_t *shape; /* `rank` sizes; may be null when rank is 0 */
} mixprec_tensor;

/* What a function expects for one argument or result. */
typedef struct mixprec_tensor_spec {
  const char *name; /* the parameter/buffer name, or "arg<i>" / "result<i>" */
  mixprec_dtype dtype;
  int32_t rank;
  const int64_t *shape;
} mixprec_tensor_spec;

typedef struct mixprec_function {
  const char *name;
  int32_t num_inputs;
  const mixprec_tensor_spec *inputs;
  int32_t num_outputs;
  const mixprec_tensor_spec *outputs;
} mixprec_function;

/* The ABI version this library was compiled for (MIXPREC_ABI_VERSION). */
int32_t mixprec_abi_version(void);

/* The function table. */
int32_t mixprec_num_functions(void);
const mixprec_function *mixprec_function_at(int32_t index);
const mixprec_function *mixprec_find_function(const char *name);

/* Checks every input and output against the function's specs, then runs it.
 * Nothing is written to the outputs when a check fails. */
mixprec_status mixprec_call(const char *name, const mixprec_tensor *inputs,
                            int32_t num_inputs, const mixprec_tensor *outputs,
                            int32_t num_outputs);

const char *mixprec_last_error(void);

/* Bytes per element of `dtype` (0 for an unknown value). */
size_t mixprec_dtype_size(mixprec_dtype dtype);
const char *mixprec_dtype_name(mixprec_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_MIXPREC_H */
