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
 * Errors: every entry point returns a mixprec_status except four that
 * cannot fail: mixprec_last_error, mixprec_trainer_destroy, mixprec_get_api
 * and mixprec_abi_version. On failure, mixprec_last_error() describes it
 * (the message is per thread and stays valid until the next failing call on
 * that thread). Results come back through out-parameters, written only on
 * success.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_MIXPREC_H
#define MIXPREC_RUNTIME_MIXPREC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the entry points and of their table (mixprec_api): raised
 * whenever an entry point is added or changes. Version 3 made every entry
 * point that can fail return a status and added mixprec_call_function,
 * mixprec_get_api and the state roles (mixprec_state_role_at); version 5
 * added the thread count (mixprec_set_num_threads). */
#define MIXPREC_API_VERSION 5

/* A dtype field holds any 32-bit value a caller or a file puts there; in C++
 * the fixed underlying type makes every such value one the runtime may read
 * (and reject) without undefined behaviour. */
/* clang-format off: the base type only in C++ */
typedef enum mixprec_dtype
#ifdef __cplusplus
    : int32_t
#endif
{
  /* clang-format on */
  MIXPREC_F32 = 0,
  MIXPREC_F16 = 1,
  MIXPREC_BF16 = 2,
  MIXPREC_I32 = 3,
  MIXPREC_I64 = 4,
  MIXPREC_BOOL = 5, /* one byte per element, 0 or 1 */
} mixprec_dtype;

/* What a parameter or buffer of the model holds (mixprec_state_role_at).
 * A buffer that a train step owns has the role the compiler gave it; the
 * trainer finds a step's state by role and owning step, never by name. */
/* clang-format off: the base type only in C++ */
typedef enum mixprec_state_role
#ifdef __cplusplus
    : int32_t
#endif
{
  /* clang-format on */
  MIXPREC_STATE_PARAMETER = 0,  /* trained by the optimizer */
  MIXPREC_STATE_BUFFER = 1,     /* any other buffer (batch-norm statistics) */
  MIXPREC_STATE_STEP_COUNT = 2, /* i64[]: steps taken */
  MIXPREC_STATE_MOMENT = 3,     /* f32: an optimizer moment of a parameter */
  MIXPREC_STATE_LOSS_SCALE = 4, /* f32[]: the scale the next step uses */
  /* i32[]: finite steps since the scale last changed */
  MIXPREC_STATE_LOSS_SCALE_TRACKER = 5,
  /* i32[]: non-finite steps the scale may still absorb */
  MIXPREC_STATE_LOSS_SCALE_HYSTERESIS = 6,
  MIXPREC_STATE_SKIPPED = 7,       /* bool[]: the last step was skipped */
  MIXPREC_STATE_SKIPPED_STEPS = 8, /* i64[]: steps skipped so far */
  /* bool[parameters]: parameter k's gradient was finite in the last step */
  MIXPREC_STATE_FINITE_GRADIENTS = 9,
} mixprec_state_role;

typedef enum mixprec_status {
  MIXPREC_OK = 0,
  /* wrong count, dtype, rank, shape or null; or a label or token id out of
   * range (nothing was read out of bounds and no state changed) */
  MIXPREC_INVALID_ARGUMENT = 1,
  MIXPREC_NOT_FOUND = 2, /* no function of that name */
  MIXPREC_INTERNAL = 3,
  MIXPREC_UNAVAILABLE = 4,  /* no CUDA driver or device on this machine */
  MIXPREC_DEVICE_ERROR = 5, /* the GPU reported an error (launch, memory) */
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

typedef struct mixprec_trainer mixprec_trainer;

/* The memory of calls, planned at compile time (docs/design.md §12): every
 * temporary of a function lives in one workspace at an offset fixed at
 * compile time, state is updated in place, and a CUDA library keeps one
 * device allocation (its frame: the call's tensors and workspace) from call
 * to call, and a trainer's state on the device (docs/design.md §9). */
typedef struct mixprec_memory_plan {
  int64_t state_bytes;     /* a trainer's parameters, buffers, optimizer and
                              loss-scale state and RNG state, held once */
  int64_t workspace_bytes; /* the temporaries of one call */
  int64_t host_bytes;      /* host memory: the state, the step's other
                              outputs and, on the CPU, the workspace and
                              each thread's buffers for the contractions */
  int64_t device_bytes;    /* CUDA: device memory of a call (its inputs,
                              its outputs that are not updated inputs, the
                              workspace; for a trainer, its state on the
                              device and the step's other tensors and
                              workspace); 0 on the CPU */
} mixprec_memory_plan;

/*===----------------------------------------------------------------------===*
 * Model state and training
 *
 * Every parameter and buffer of the model is listed with its name, type and
 * shape. A trainer owns one copy of that state, initialized deterministically
 * from the declarations' initializers and seeds, and threads it through a
 * train step (a function built by `mixprec-compile --autodiff`), so a caller
 * passes only batches.
 *
 * Initial values: element i of a random tensor comes from Philox4x32-10
 * (python/mixprec/philox.py) with key (seed & 0xffffffff, seed >> 32) and
 * counter (i & 0xffffffff, i >> 32, 0, 0xffffffff); with w0, w1 its first two
 * output words, u = (w0 >> 8) * 2^-24 and v = (w1 >> 8) * 2^-24:
 *   uniform(low, high): low + (high - low) * u
 *   normal(mean, std):  mean + std * sqrt(-2 ln(1 - u)) * cos(2 pi v)
 * evaluated in double and rounded once to the tensor's type. Xavier and
 * Kaiming initializers are uniform or normal draws with torch.nn.init's
 * bounds.
 *===----------------------------------------------------------------------===*/

/*===----------------------------------------------------------------------===*
 * The entry points, declared from the one list in mixprec_entry_points.def
 * (which documents each), and the versioned table of them.
 *===----------------------------------------------------------------------===*/

#define MIXPREC_ENTRY_POINT(result, name, parameters) result name parameters;
#include "mixprec_entry_points.def"
#undef MIXPREC_ENTRY_POINT

/* Every entry point, in the order of mixprec_entry_points.def. */
typedef struct mixprec_api {
#define MIXPREC_ENTRY_POINT(result, name, parameters) result(*name) parameters;
#include "mixprec_entry_points.def"
#undef MIXPREC_ENTRY_POINT
} mixprec_api;

/* The table of entry points of version `version`, or null when the library
 * has none of that version (as ONNX Runtime's OrtApiBase::GetApi): a caller
 * that loads a library with dlopen looks up this one symbol and calls
 * through the table it returns. Cannot fail. */
const mixprec_api *mixprec_get_api(uint32_t version);

/* MIXPREC_API_VERSION of the library. Its name and signature are the same
 * in every version, so a loader can tell a library of another version from
 * a file that is no model; it is not in the table. Cannot fail. */
int32_t mixprec_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_MIXPREC_H */
