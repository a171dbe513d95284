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

/* Starts a call of `entry`: opens the CUDA driver if it is not open
 * (MIXPREC_UNAVAILABLE without one), lays the call's device buffers out in
 * the library's frame (one device allocation, kept from call to call and
 * grown only when a call needs more: a steady stream of calls allocates
 * nothing), uploads the inputs, and gives each input's, output's and the
 * workspace's device buffer in device_inputs, device_outputs and
 * device_workspace. An output that lives in an input (entry->output_homes;
 * `outputs` may hold one more, the index report, which lives in none) gets
 * that input's buffer. A resident input or output (mixprec_resident_add)
 * gets its device copy instead, uploaded only when the host's is newer.
 * Calls are serialized: this waits for another thread's call to leave. On
 * failure nothing is held and the compiled function must not run. */
__attribute__((visibility("hidden"))) mixprec_status mixprec_cuda_enter(
    const mixprec_model_entry *entry, const mixprec_tensor *inputs,
    int32_t num_inputs, void **device_inputs, const mixprec_tensor *outputs,
    int32_t num_outputs, void **device_outputs, void **device_workspace);
/* Ends a call that mixprec_cuda_enter started: waits for its GPU work and
 * reports the first error of the call (MIXPREC_DEVICE_ERROR, or
 * MIXPREC_INTERNAL for a runtime misuse, with the message); downloads the
 * outputs that are not resident only if there was none, so a failed call
 * leaves the caller's buffers as they were, and marks the resident ones it
 * wrote as lost (mixprec_resident_recover); frees what the compiled code
 * allocated itself. */
__attribute__((visibility("hidden"))) mixprec_status mixprec_cuda_leave(
    const mixprec_model_entry *entry, const mixprec_tensor *outputs,
    int32_t num_outputs, void *const *device_outputs);

#ifdef __cplusplus
}
#endif

#endif /* MIXPREC_RUNTIME_CUDA_CUDAMODEL_H */
