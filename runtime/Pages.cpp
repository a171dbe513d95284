//===- Pages.cpp - buffers in pages of their own
//---------------------------===//
//
// The trainer's state, a call's workspace and the contractions' per-thread
// buffers are mapped from the system directly: zero-filled, no allocator
// header on a neighbouring page, and returned whole when freed, so that
// they take the pages their bytes need and the memory plan counts what
// the process holds. C library only.
//
//===----------------------------------------------------------------------===//

#include "ModelEntries.h"

#include <sys/mman.h>

extern "C" {

void *mixprec_pages_allocate(size_t bytes) {
  void *pages = mmap(nullptr, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return pages == MAP_FAILED ? nullptr : pages;
}

void mixprec_pages_free(void *pages, size_t bytes) {
  if (pages)
    munmap(pages, bytes ? bytes : 1);
}

} // extern "C"
