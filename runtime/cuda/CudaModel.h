/*===- CudaModel.h - what a CUDA model's trampolines call -----------------===*
 *
 * The generated invoke of each function of a CUDA model (emitABISource with
 * `cuda`) runs the compiled function between these two calls, on device
 * copies of its tensors; the compiled code's GPU work goes through the mgpu*
 * functions of GpuLaunchRuntime.cpp. Not part of the public ABI.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIXPREC_RUNTIME_CUDA_CUDAMODEL_H
#define MIXPREC_RUNTIME_CUDA_CUDAMODEL_H

#include "ModelEntries.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts a call: opens the CUDA driver if it is not open (MIXPREC_UNAVAILABLE
 * without one), allocates a device buffer for each input and output into
 * device_inputs and device_outputs, and uploads the inputs. Calls are
 * serialized: this waits for another thread's call to leave. On failure
 * nothing is held and the compiled function must not run. */
__attribute__((visibility("hidden"))) mixprec_status mixprec_cuda_enter(
    const mixprec_tensor *inputs, int32_t num_inputs, void **device_inputs,
    const mixprec_tensor *outputs, int32_t num_outputs, void **device_outputs);

/* Ends a call that mixprec_cuda_enter started: waits for its GPU work and
 * reports the first error of the call (MIXPREC_DEVICE_ERROR, or
 * MIXPREC_INTERNAL for a runtime misuse, with the message); downloads the
 * outputs only if there was none; frees every device buffer of the call,
 * the inputs' included. */
__attribute__((visibility("hidden"))) mixprec_status
mixprec_cuda_leave(const mixprec_tensor *outputs, int32_t num_outputs,
                   void *const *device_outputs);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_CUDA_CUDAMODEL_H */
