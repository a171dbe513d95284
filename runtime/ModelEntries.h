/*===- ModelEntries.h - what mixprec-compile generates for a model --------===*
 *
 * The contract between the code mixprec-compile generates for each model
 * (the function table and one trampoline per function) and the runtime that
 * checks calls against that table. Not part of the public ABI.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_MODELENTRIES_H
#define MIXPREC_RUNTIME_MODELENTRIES_H

#include "mixprec/Runtime/mixprec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the compiled function on tensors already checked against its specs.
 * A CPU function cannot fail (MIXPREC_OK); a CUDA function reports the
 * GPU's errors, with the message set, and then leaves the outputs as they
 * were or partly written. */
typedef mixprec_status (*mixprec_invoke_fn)(const mixprec_tensor *inputs,
                                            const mixprec_tensor *outputs);

typedef struct mixprec_model_entry {
  mixprec_function function;
  mixprec_invoke_fn invoke;
  int32_t train_step; /* built by --mixprec-autodiff from a train step */
} mixprec_model_entry;

/* How a state tensor starts (mixprec.h describes the draws). */
typedef enum mixprec_init_kind {
  MIXPREC_INIT_CONSTANT = 0, /* a */
  MIXPREC_INIT_UNIFORM = 1,  /* U(a, b) */
  MIXPREC_INIT_NORMAL = 2,   /* N(a, b^2) */
} mixprec_init_kind;

typedef struct mixprec_model_state {
  const mixprec_tensor_spec *spec;
  mixprec_state_role role;
  const char *step; /* the train step that owns it, or null */
  int32_t init_kind;
  double a, b;
  uint64_t seed;
} mixprec_model_state;

/* One check of a function's indices (labels, token ids): what its failure
 * message says. */
typedef struct mixprec_index_check {
  const char *op;       /* "softmax_cross_entropy" */
  const char *location; /* "model.mlir:31:13" */
  const char *noun;     /* "label" */
  int64_t bound;        /* indices lie in [0, bound) */
  int32_t rank;
  const int64_t *shape; /* of the indices */
} mixprec_index_check;

/* Defined by the generated code of each model. */
extern const mixprec_model_entry mixprec_model_entries[];
extern const int32_t mixprec_model_num_entries;
extern const mixprec_model_state mixprec_model_states[];
extern const int32_t mixprec_model_num_states;

/* Sets the calling thread's error message (mixprec_last_error) and returns
 * `status`. */
__attribute__((visibility("hidden"), format(printf, 2, 3))) mixprec_status
mixprec_fail(mixprec_status status, const char *format, ...);

/* Reads the index report (check, position, value) a compiled function
 * returned: MIXPREC_OK when it names no check, else MIXPREC_INVALID_ARGUMENT
 * with a message naming the op, its location, the position and the value. */
__attribute__((visibility("hidden"))) mixprec_status
mixprec_index_failure(const char *function, const int64_t *report,
                      const mixprec_index_check *checks, int32_t num_checks);

/* The entry named `name`, or null. */
__attribute__((visibility("hidden"))) const mixprec_model_entry *
mixprec_find_entry(const char *name);

/* The entry whose function is `function` (a handle the library gave), or
 * null for any other pointer. */
__attribute__((visibility("hidden"))) const mixprec_model_entry *
mixprec_entry_of(const mixprec_function *function);

/* Checks the tensors against the entry's specs and runs it: mixprec_call
 * after the name is looked up. */
__attribute__((visibility("hidden"))) mixprec_status mixprec_call_entry(
    const mixprec_model_entry *entry, const mixprec_tensor *inputs,
    int32_t num_inputs, const mixprec_tensor *outputs, int32_t num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_MODELENTRIES_H */
