//===- ModelRuntime.cpp - the C ABI every compiled model exports ----------===//
//
// Linked into each compiled model. It uses the C library only (no C++
// runtime, no exceptions), so a model needs nothing but libc and libm.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"
#include "ModelEntries.h"
#include "OutParameters.h"
#include "ThreadCount.h"
#include "TypeText.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

using namespace mixprec::runtime;

namespace {

thread_local char lastError[512];

/// Checks one tensor against its spec; `role` is "input" or "output". A
/// wrong dtype, rank or shape shows both types in full.
mixprec_status checkTensor(const char *function, const char *role,
                           int32_t index, const mixprec_tensor &tensor,
                           const mixprec_tensor_spec &spec) {
  bool matches = tensor.dtype == spec.dtype && tensor.rank == spec.rank &&
                 (tensor.rank == 0 || tensor.shape);
  for (int32_t dim = 0; matches && dim < spec.rank; ++dim)
    matches = tensor.shape[dim] == spec.shape[dim];
  if (!matches) {
    char expected[kTypeTextSize], actual[kTypeTextSize];
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: %s %d ('%s') must be %s, got %s", function, role,
                        index, spec.name,
                        formatType(expected, sizeof(expected), spec.dtype,
                                   spec.rank, spec.shape),
                        formatType(actual, sizeof(actual), tensor.dtype,
                                   tensor.rank, tensor.shape));
  }
  if (!tensor.data)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: %s %d ('%s') has no data", function, role, index,
                        spec.name);
  return MIXPREC_OK;
}

/// Checks the number of inputs or outputs; the message names the first
/// missing argument or the first one too many.
mixprec_status checkCount(const char *function, const char *role, int32_t count,
                          int32_t expected, const mixprec_tensor_spec *specs) {
  if (count == expected)
    return MIXPREC_OK;
  if (count > expected)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: expects %d %ss, got %d (%s %d is one too many)",
                        function, expected, role, count, role, expected);
  // Only a negative count is below 0 expected: there is nothing to name.
  if (expected == 0)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s: expects 0 %ss, got %d",
                        function, role, count);
  int32_t missing = count < 0 ? 0 : count;
  return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                      "%s: expects %d %ss, got %d (%s %d ('%s') is missing)",
                      function, expected, role, count, role, missing,
                      specs[missing].name);
}

} // namespace

extern "C" {

mixprec_status mixprec_fail(mixprec_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(lastError, sizeof(lastError), format, args);
  va_end(args);
  return status;
}

const mixprec_model_entry *mixprec_find_entry(const char *name) {
  if (!name)
    return nullptr;
  for (int32_t i = 0; i < mixprec_model_num_entries; ++i)
    if (std::strcmp(mixprec_model_entries[i].function.name, name) == 0)
      return &mixprec_model_entries[i];
  return nullptr;
}

const mixprec_model_entry *mixprec_entry_of(const mixprec_function *function) {
  // Integer arithmetic: comparing pointers into different objects is
  // undefined, and a caller may pass any pointer.
  auto address = reinterpret_cast<uintptr_t>(function);
  auto first = reinterpret_cast<uintptr_t>(&mixprec_model_entries[0].function);
  if (address < first)
    return nullptr;
  uintptr_t offset = address - first;
  if (offset % sizeof(mixprec_model_entry) != 0 ||
      offset / sizeof(mixprec_model_entry) >=
          uintptr_t(mixprec_model_num_entries))
    return nullptr;
  return &mixprec_model_entries[offset / sizeof(mixprec_model_entry)];
}

mixprec_status mixprec_call_entry(const mixprec_model_entry *entry,
                                  const mixprec_tensor *inputs,
                                  int32_t num_inputs,
                                  const mixprec_tensor *outputs,
                                  int32_t num_outputs) {
  const mixprec_function &function = entry->function;
  if (mixprec_status status = checkCount(function.name, "input", num_inputs,
                                         function.num_inputs, function.inputs))
    return status;
  if (mixprec_status status =
          checkCount(function.name, "output", num_outputs, function.num_outputs,
                     function.outputs))
    return status;
  if (num_inputs > 0 && !inputs)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: %d inputs in a null array", function.name,
                        num_inputs);
  if (num_outputs > 0 && !outputs)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s: %d outputs in a null array", function.name,
                        num_outputs);
  for (int32_t i = 0; i < num_inputs; ++i)
    if (mixprec_status status = checkTensor(function.name, "input", i,
                                            inputs[i], function.inputs[i]))
      return status;
  for (int32_t i = 0; i < num_outputs; ++i)
    if (mixprec_status status = checkTensor(function.name, "output", i,
                                            outputs[i], function.outputs[i]))
      return status;
  return entry->invoke(inputs, outputs);
}

mixprec_status mixprec_num_functions(int32_t *count) {
  return writeOut("mixprec_num_functions", "count", count,
                  mixprec_model_num_entries);
}

mixprec_status mixprec_function_at(int32_t index,
                                   const mixprec_function **function) {
  return writeItemAt(
      "mixprec_function_at", "function", index, mixprec_model_num_entries,
      function, [](int32_t i) { return &mixprec_model_entries[i].function; });
}

mixprec_status mixprec_find_function(const char *name,
                                     const mixprec_function **function) {
  if (!function)
    return noPlaceFor("mixprec_find_function", "function");
  const mixprec_model_entry *entry = mixprec_find_entry(name);
  if (!entry)
    return mixprec_fail(MIXPREC_NOT_FOUND, "no function named '%s'",
                        name ? name : "(null)");
  *function = &entry->function;
  return MIXPREC_OK;
}

mixprec_status mixprec_call(const char *name, const mixprec_tensor *inputs,
                            int32_t num_inputs, const mixprec_tensor *outputs,
                            int32_t num_outputs) {
  const mixprec_model_entry *entry = mixprec_find_entry(name);
  if (!entry)
    return mixprec_fail(MIXPREC_NOT_FOUND, "no function named '%s'",
                        name ? name : "(null)");
  return mixprec_call_entry(entry, inputs, num_inputs, outputs, num_outputs);
}

mixprec_status mixprec_call_function(const mixprec_function *function,
                                     const mixprec_tensor *inputs,
                                     int32_t num_inputs,
                                     const mixprec_tensor *outputs,
                                     int32_t num_outputs) {
  const mixprec_model_entry *entry = mixprec_entry_of(function);
  if (!entry)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "mixprec_call_function: %p is no function of this "
                        "model (use mixprec_find_function)",
                        static_cast<const void *>(function));
  return mixprec_call_entry(entry, inputs, num_inputs, outputs, num_outputs);
}

const char *mixprec_last_error(void) { return lastError; }

// Weak: the CUDA runtime (runtime/cuda/GpuLaunchRuntime.cpp), linked into
// CUDA models only, defines the one that counts.
__attribute__((weak)) mixprec_status mixprec_device_memory(int64_t *,
                                                           int64_t *) {
  return mixprec_fail(MIXPREC_UNAVAILABLE,
                      "this model runs on the CPU: it holds no device memory");
}

__attribute__((weak)) int64_t
mixprec_device_frame_bytes(const mixprec_model_entry *, const uint8_t *) {
  return 0;
}

// On the CPU the host buffer is the only copy.
__attribute__((weak)) mixprec_status mixprec_resident_add(void *, size_t) {
  return MIXPREC_OK;
}
__attribute__((weak)) void mixprec_resident_remove(void *) {}
__attribute__((weak)) mixprec_status mixprec_resident_sync(void *const *,
                                                           int32_t) {
  return MIXPREC_OK;
}
__attribute__((weak)) void mixprec_resident_written(void *) {}
__attribute__((weak)) mixprec_status mixprec_resident_read(const void *host,
                                                           void *out,
                                                           size_t bytes) {
  std::memcpy(out, host, bytes);
  return MIXPREC_OK;
}
__attribute__((weak)) int32_t mixprec_resident_recover(void *const *, int32_t) {
  return 0;
}

// Weak: the CPU runtime's contractions (runtime/cpu/Contraction.cpp), linked
// into CPU models that have any, define the one that prepares them.
__attribute__((weak)) int64_t mixprec_cpu_prepare_contractions(void) {
  return 0;
}

mixprec_status mixprec_function_memory(const mixprec_function *function,
                                       mixprec_memory_plan *plan) {
  const mixprec_model_entry *entry = mixprec_entry_of(function);
  if (!entry)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "mixprec_function_memory: %p is no function of this "
                        "model",
                        static_cast<const void *>(function));
  int64_t device = mixprec_device_frame_bytes(entry, nullptr);
  int64_t host = entry->workspace_bytes +
                 mixprec_cpu_prepare_contractions() * mixprec::numThreads();
  mixprec_memory_plan memory = {0, entry->workspace_bytes, device ? 0 : host,
                                device};
  return writeOut("mixprec_function_memory", "plan", plan, memory);
}

mixprec_status mixprec_dtype_size(mixprec_dtype dtype, size_t *bytes) {
  if (mixprec::dtypeSize(dtype) == 0)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no dtype %d", int(dtype));
  return writeOut("mixprec_dtype_size", "size", bytes,
                  mixprec::dtypeSize(dtype));
}

mixprec_status mixprec_dtype_name(mixprec_dtype dtype, const char **name) {
  if (mixprec::dtypeSize(dtype) == 0)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no dtype %d", int(dtype));
  return writeOut("mixprec_dtype_name", "name", name,
                  mixprec::dtypeName(dtype));
}

} // extern "C"
