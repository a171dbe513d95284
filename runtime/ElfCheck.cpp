//===- ElfCheck.cpp - a model library's file checked before dlopen --------===//

#include "ElfCheck.h"

#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace mixprec {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kThisMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kThisMachine = EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
constexpr uint16_t kThisMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr uint16_t kThisMachine = EM_PPC64;
#else
#error "unknown machine: add its ELF e_machine"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kThisByteOrder = ELFDATA2LSB;
#else
constexpr unsigned char kThisByteOrder = ELFDATA2MSB;
#endif

std::string machineName(uint16_t machine) {
  switch (machine) {
  case EM_X86_64:
    return "x86-64";
  case EM_386:
    return "i386";
  case EM_AARCH64:
    return "AArch64";
  case EM_ARM:
    return "ARM";
  case EM_RISCV:
    return "RISC-V";
  case EM_PPC64:
    return "PowerPC64";
  }
  return "machine " + std::to_string(machine);
}

std::string segmentKind(uint32_t type) {
  switch (type) {
  case PT_LOAD:
    return "LOAD";
  case PT_DYNAMIC:
    return "DYNAMIC";
  case PT_INTERP:
    return "INTERP";
  case PT_NOTE:
    return "NOTE";
  case PT_TLS:
    return "TLS";
  case PT_GNU_EH_FRAME:
    return "GNU_EH_FRAME";
  }
  return "type " + std::to_string(type);
}

/// Whether bytes [offset, offset + length) lie inside a file of `size`
/// bytes, without overflow.
bool within(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

/// "bytes 4096..1234567, past the end of the file (102400 bytes)"
std::string pastTheEnd(uint64_t offset, uint64_t length, uint64_t size) {
  std::string end = offset + length < offset ? "beyond 2^64"
                                             : std::to_string(offset + length);
  return "bytes " + std::to_string(offset) + ".." + end +
         ", past the end of the file (" + std::to_string(size) + " bytes)";
}

/// A file descriptor closed on scope exit.
struct File {
  int fd;
  ~File() {
    if (fd >= 0)
      close(fd);
  }
};

/// Reads `length` bytes at `offset`, which the caller checked lie in the
/// file; "" or the error.
std::string readAt(int fd, void *buffer, size_t length, uint64_t offset) {
  auto *bytes = static_cast<char *>(buffer);
  while (length > 0) {
    ssize_t got = pread(fd, bytes, length, off_t(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return got < 0 ? std::string("cannot read: ") + std::strerror(errno)
                     : "the file shrank while it was read";
    bytes += got;
    length -= size_t(got);
    offset += uint64_t(got);
  }
  return "";
}

std::string checkHeader(const Elf64_Ehdr &header, uint64_t size) {
  const unsigned char *ident = header.e_ident;
  if (ident[EI_CLASS] == ELFCLASS32)
    return "a 32-bit ELF file; this machine loads 64-bit shared libraries";
  if (ident[EI_CLASS] != ELFCLASS64)
    return "unknown ELF class " + std::to_string(ident[EI_CLASS]);
  if (ident[EI_DATA] != kThisByteOrder)
    return std::string("an ELF file of the other byte order (") +
           (kThisByteOrder == ELFDATA2LSB ? "big" : "little") + "-endian)";
  if (ident[EI_VERSION] != EV_CURRENT || header.e_version != EV_CURRENT)
    return "unknown ELF version " + std::to_string(header.e_version);
  if (header.e_type != ET_DYN) {
    std::string kind = header.e_type == ET_EXEC  ? "an executable"
                       : header.e_type == ET_REL ? "a relocatable object (.o)"
                       : header.e_type == ET_CORE
                           ? "a core dump"
                           : "ELF type " + std::to_string(header.e_type);
    return kind + ", not a shared library";
  }
  if (header.e_machine != kThisMachine)
    return "a shared library for " + machineName(header.e_machine) +
           "; this machine is " + machineName(kThisMachine);
  if (header.e_phnum == 0)
    return "no program headers: nothing to load";
  if (header.e_phentsize != sizeof(Elf64_Phdr))
    return "program headers of " + std::to_string(header.e_phentsize) +
           " bytes, not " + std::to_string(sizeof(Elf64_Phdr));
  uint64_t tableBytes = uint64_t(header.e_phnum) * sizeof(Elf64_Phdr);
  if (!within(header.e_phoff, tableBytes, size))
    return "truncated or corrupt: the program headers span " +
           pastTheEnd(header.e_phoff, tableBytes, size);
  return "";
}

std::string checkSegments(int fd, const Elf64_Ehdr &header, uint64_t size) {
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  if (std::string error =
          readAt(fd, segments.data(), segments.size() * sizeof(Elf64_Phdr),
                 header.e_phoff);
      !error.empty())
    return error;
  bool loads = false;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Elf64_Phdr &segment = segments[i];
    loads |= segment.p_type == PT_LOAD;
    if (!within(segment.p_offset, segment.p_filesz, size))
      return "truncated or corrupt: segment " + std::to_string(i) + " (" +
             segmentKind(segment.p_type) + ") spans " +
             pastTheEnd(segment.p_offset, segment.p_filesz, size);
  }
  return loads ? "" : "no loadable (LOAD) segment";
}

std::string checkSections(int fd, const Elf64_Ehdr &header, uint64_t size) {
  if (header.e_shoff == 0)
    return "";
  if (header.e_shentsize != sizeof(Elf64_Shdr))
    return "section headers of " + std::to_string(header.e_shentsize) +
           " bytes, not " + std::to_string(sizeof(Elf64_Shdr));
  if (!within(header.e_shoff, sizeof(Elf64_Shdr), size))
    return "truncated or corrupt: the section headers span " +
           pastTheEnd(header.e_shoff, sizeof(Elf64_Shdr), size);
  Elf64_Shdr first;
  if (std::string error = readAt(fd, &first, sizeof(first), header.e_shoff);
      !error.empty())
    return error;
  // With 0xff00 sections or more, section 0's size holds the count.
  uint64_t count = header.e_shnum ? header.e_shnum : first.sh_size;
  if (count > (size - header.e_shoff) / sizeof(Elf64_Shdr))
    return "truncated or corrupt: the section headers span " +
           pastTheEnd(header.e_shoff,
                      count > UINT64_MAX / sizeof(Elf64_Shdr)
                          ? UINT64_MAX
                          : count * sizeof(Elf64_Shdr),
                      size);
  std::vector<Elf64_Shdr> sections(count);
  if (std::string error =
          readAt(fd, sections.data(), sections.size() * sizeof(Elf64_Shdr),
                 header.e_shoff);
      !error.empty())
    return error;
  for (size_t i = 0; i < sections.size(); ++i) {
    const Elf64_Shdr &section = sections[i];
    if (section.sh_type != SHT_NOBITS &&
        !within(section.sh_offset, section.sh_size, size))
      return "truncated or corrupt: section " + std::to_string(i) + " spans " +
             pastTheEnd(section.sh_offset, section.sh_size, size);
  }
  return "";
}

} // namespace

std::string checkSharedObject(const std::string &path) {
  File file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    return std::string("cannot open: ") + std::strerror(errno);
  struct stat status;
  if (fstat(file.fd, &status) != 0)
    return std::string("cannot stat: ") + std::strerror(errno);
  if (!S_ISREG(status.st_mode))
    return S_ISDIR(status.st_mode) ? "a directory, not a shared library"
                                   : "not a regular file";
  uint64_t size = uint64_t(status.st_size);
  if (size == 0)
    return "the file is empty, not a shared library";
  Elf64_Ehdr header;
  std::memset(&header, 0, sizeof(header));
  size_t headerBytes = size < sizeof(header) ? size_t(size) : sizeof(header);
  if (std::string error = readAt(file.fd, &header, headerBytes, 0);
      !error.empty())
    return error;
  if (size < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF file (no \\x7fELF magic): not a shared library";
  if (size < sizeof(header))
    return "truncated: the file is " + std::to_string(size) +
           " bytes, shorter than an ELF header (" +
           std::to_string(sizeof(header)) + ")";
  if (std::string error = checkHeader(header, size); !error.empty())
    return error;
  if (std::string error = checkSegments(file.fd, header, size); !error.empty())
    return error;
  return checkSections(file.fd, header, size);
}

} // namespace mixprec
