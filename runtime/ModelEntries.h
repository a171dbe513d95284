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

/* Runs the compiled function on tensors already checked against its specs. */
typedef void (*mixprec_invoke_fn)(const mixprec_tensor *inputs,
                                  const mixprec_tensor *outputs);

typedef struct mixprec_model_entry {
  mixprec_function function;
  mixprec_invoke_fn invoke;
} mixprec_model_entry;

/* Defined by the generated code of each model. */
extern const mixprec_model_entry mixprec_model_entries[];
extern const int32_t mixprec_model_num_entries;

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_MODELENTRIES_H */
