//===- ElfCheck.h - a model library's file checked before dlopen -*- C++
//-*-===//
//
// dlopen maps a shared object's segments straight from the file: one that
// reaches past the end of a truncated file faults (SIGBUS) on first touch,
// inside the loader, with no error to report. This reads the ELF headers
// first and refuses a file that dlopen could not map safely.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_ELFCHECK_H
#define MIXPREC_RUNTIME_ELFCHECK_H

#include <string>

namespace mixprec {

/// Checks that `path` is a 64-bit ELF shared object for this machine whose
/// ELF header, program headers, segments, section headers and sections all
/// lie inside the file. Returns "" when it is, else what is wrong (without
/// the path).
std::string checkSharedObject(const std::string &path);

} // namespace mixprec

#endif // MIXPREC_RUNTIME_ELFCHECK_H
