//===- Workspace.cpp - where a call's tensors and temporaries live --------===//
//
// The compiled code updates state in place and plans its temporaries in one
// workspace (docs/design.md §12). The trampolines call these to give it the
// buffers: inputs that outputs live in, and the workspace (in pages of its
// own), of which the library keeps one between calls. C library only.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"
#include "ModelEntries.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {

/// A workspace and, in the 64 bytes before its data, its capacity.
constexpr size_t kHeaderBytes = 64;

size_t &capacityOf(void *workspace) {
  return *reinterpret_cast<size_t *>(static_cast<char *>(workspace) -
                                     kHeaderBytes);
}

void destroy(void *workspace) {
  if (workspace)
    mixprec_pages_free(static_cast<char *>(workspace) - kHeaderBytes,
                       kHeaderBytes + capacityOf(workspace));
}

// The workspace released last, taken by the next call (a concurrent call
// finds none and makes its own).
std::atomic<void *> held{nullptr};

size_t bytesOf(const mixprec_tensor_spec &spec) {
  size_t bytes = mixprec::dtypeSize(spec.dtype);
  for (int32_t dim = 0; dim < spec.rank; ++dim)
    bytes *= size_t(spec.shape[dim]);
  return bytes;
}

} // namespace

extern "C" {

void mixprec_place_inputs(const mixprec_model_entry *entry,
                          const mixprec_tensor *inputs,
                          const mixprec_tensor *outputs, void **data) {
  const mixprec_function &function = entry->function;
  for (int32_t i = 0; i < function.num_inputs; ++i)
    data[i] = inputs[i].data;
  for (int32_t i = 0; i < function.num_outputs; ++i) {
    int32_t home = mixprec_output_home(entry, i);
    if (home < 0)
      continue;
    if (outputs[i].data != inputs[home].data)
      std::memcpy(outputs[i].data, inputs[home].data,
                  bytesOf(function.inputs[home]));
    data[home] = outputs[i].data;
  }
}

void *mixprec_workspace_acquire(const mixprec_model_entry *entry) {
  size_t bytes = size_t(entry->workspace_bytes);
  void *workspace = held.exchange(nullptr);
  if (workspace && capacityOf(workspace) >= bytes)
    return workspace;
  destroy(workspace);
  void *block = mixprec_pages_allocate(kHeaderBytes + bytes);
  if (!block) {
    mixprec_fail(MIXPREC_INTERNAL,
                 "%s: out of memory allocating its %zu-byte workspace",
                 entry->function.name, bytes);
    return nullptr;
  }
  workspace = static_cast<char *>(block) + kHeaderBytes;
  capacityOf(workspace) = bytes;
  return workspace;
}

void mixprec_workspace_release(void *workspace) {
  // Keep the larger of this one and any another call released meanwhile.
  void *other = held.exchange(workspace);
  if (other && capacityOf(other) > capacityOf(workspace)) {
    void *mine = held.exchange(other);
    destroy(mine);
  } else {
    destroy(other);
  }
}

} // extern "C"
