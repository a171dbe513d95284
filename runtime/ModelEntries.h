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
  /* For each output, the input whose buffer the compiled code updates to
   * hold it (a state written in place), or -1; null: every output is its
   * own (see mixprec_output_home). */
  const int32_t *output_homes;
  /* The bytes of the workspace the compiled code plans its temporaries in
   * (0: none). */
  int64_t workspace_bytes;
  /* The checks of its index report, a hidden last output (0: none). */
  int32_t num_index_checks;
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

/* The input whose buffer output `index` of `entry` lives in, or -1. */
static inline int32_t mixprec_output_home(const mixprec_model_entry *entry,
                                          int32_t index) {
  return entry->output_homes ? entry->output_homes[index] : -1;
}

/* The device memory a call of `entry` holds on CUDA (its frame: the
 * inputs and outputs that are not resident, the index report, the
 * workspace); 0 on the CPU. `resident`, when not null, flags each input
 * then each output that lives on the device between calls (see
 * mixprec_resident_add). Weak in the model runtime; the CUDA runtime
 * defines the one that counts. */
__attribute__((visibility("hidden"))) int64_t mixprec_device_frame_bytes(
    const mixprec_model_entry *entry, const uint8_t *resident);

/* Residency: a trainer's state stays on the device between calls (CUDA; on
 * the CPU, where the host buffer is the only copy, these do nothing). A
 * call whose input or output is a registered host buffer uses that
 * buffer's device copy, uploading it first only when the host's bytes are
 * newer, and leaves its result there: a step moves only the batch, the
 * scalars and the loss. A call that fails on the device (a fault, a failed
 * launch) loses the device copies it may have written, and a fault loses
 * them all: mixprec_resident_recover says so, and the host copies, as of
 * their last mixprec_resident_sync, are the state again. Weak in the model
 * runtime. */
__attribute__((visibility("hidden"))) mixprec_status
mixprec_resident_add(void *host, size_t bytes);
/* Forgets `host` and frees its device copy. */
__attribute__((visibility("hidden"))) void mixprec_resident_remove(void *host);
/* Downloads, of the `count` registered buffers, those whose device copy is
 * newer: their host copies are then all current. */
__attribute__((visibility("hidden"))) mixprec_status
mixprec_resident_sync(void *const *hosts, int32_t count);
/* The host copy of registered `host` was written: the next call uploads
 * it. */
__attribute__((visibility("hidden"))) void mixprec_resident_written(void *host);
/* Copies the first `bytes` of registered `host`'s current contents (the
 * device's when newer) into `out`, leaving the host copy as it is. */
__attribute__((visibility("hidden"))) mixprec_status
mixprec_resident_read(const void *host, void *out, size_t bytes);
/* Whether a failed call or a fault lost the device's newer bytes of any
 * of the `count` buffers; if so, every one of them is taken from its host
 * copy again (returns 1), else nothing changes (0). */
__attribute__((visibility("hidden"))) int32_t
mixprec_resident_recover(void *const *hosts, int32_t count);

/* Where the compiled code finds each input: the caller's buffer, or for an
 * input that an output lives in, that output's buffer, into which the input
 * is copied first unless the caller passed the same buffer for both (a
 * trainer does: its state is updated in place). */
__attribute__((visibility("hidden"))) void
mixprec_place_inputs(const mixprec_model_entry *entry,
                     const mixprec_tensor *inputs,
                     const mixprec_tensor *outputs, void **data);

/* The entry's workspace (at least entry->workspace_bytes, 64-byte aligned):
 * the library keeps the last one released and hands it out again, so a
 * steady stream of calls allocates nothing. Null, with the error set, when
 * memory runs out. */
__attribute__((visibility("hidden"))) void *
mixprec_workspace_acquire(const mixprec_model_entry *entry);
__attribute__((visibility("hidden"))) void
mixprec_workspace_release(void *workspace);

/* `bytes` of zeros in pages of their own (runtime/Pages.cpp), null when
 * there is no memory; freed with the same size. */
__attribute__((visibility("hidden"))) void *
mixprec_pages_allocate(size_t bytes);
__attribute__((visibility("hidden"))) void mixprec_pages_free(void *pages,
                                                              size_t bytes);

/* A CPU model's contractions (mixprec_cpu_contract.h) made ready for its
 * first call, once per process: their oneDNN matmuls, JIT-compiled now.
 * Returns the bytes each thread that runs them holds for them (scratchpads,
 * f32 sums of bf16 results, widened copies); 0 for a model without any. */
__attribute__((visibility("hidden"))) int64_t
mixprec_cpu_prepare_contractions(void);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_MODELENTRIES_H */
