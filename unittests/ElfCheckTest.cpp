//===- ElfCheckTest.cpp - model libraries checked before dlopen -----------===//
//
// runtime/ElfCheck on a minimal shared object built here field by field,
// and on each way its headers can reach past the end of the file, including
// offsets and counts whose sums wrap around 2^64.
//
//===----------------------------------------------------------------------===//

#include "ElfCheck.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// A 64-bit shared object for this machine: its header, one LOAD segment
/// over the whole file and two sections (the null one and one of data),
/// then 64 bytes of data.
struct MinimalLibrary {
  Elf64_Ehdr header = {};
  Elf64_Phdr load = {};
  Elf64_Shdr sections[2] = {};
  unsigned char data[64] = {};

  MinimalLibrary() {
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_type = ET_DYN;
#if defined(__x86_64__)
    header.e_machine = EM_X86_64;
#elif defined(__aarch64__)
    header.e_machine = EM_AARCH64;
#endif
    header.e_version = EV_CURRENT;
    header.e_ehsize = sizeof(Elf64_Ehdr);
    header.e_phoff = offsetof(MinimalLibrary, load);
    header.e_phentsize = sizeof(Elf64_Phdr);
    header.e_phnum = 1;
    header.e_shoff = offsetof(MinimalLibrary, sections);
    header.e_shentsize = sizeof(Elf64_Shdr);
    header.e_shnum = 2;
    load.p_type = PT_LOAD;
    load.p_filesz = load.p_memsz = sizeof(MinimalLibrary);
    sections[1].sh_type = SHT_PROGBITS;
    sections[1].sh_offset = offsetof(MinimalLibrary, data);
    sections[1].sh_size = sizeof(data);
  }
};

class ElfCheck : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/mixprec-elfcheck-XXXXXX";
    int fd = mkstemp(pattern);
    ASSERT_GE(fd, 0);
    close(fd);
    path = pattern;
  }
  void TearDown() override { unlink(path.c_str()); }

  /// The check's verdict on the first `size` bytes of `library`.
  std::string check(const MinimalLibrary &library,
                    size_t size = sizeof(MinimalLibrary)) {
    FILE *file = std::fopen(path.c_str(), "wb");
    EXPECT_NE(file, nullptr);
    EXPECT_EQ(std::fwrite(&library, 1, size, file), size);
    std::fclose(file);
    return mixprec::checkSharedObject(path);
  }

  std::string path;
};

constexpr uint64_t kSize = sizeof(MinimalLibrary);

TEST_F(ElfCheck, AcceptsAWellFormedLibrary) {
  EXPECT_EQ(check(MinimalLibrary()), "");
}

TEST_F(ElfCheck, RefusesShortFiles) {
  EXPECT_EQ(check(MinimalLibrary(), 0),
            "the file is empty, not a shared library");
  EXPECT_EQ(check(MinimalLibrary(), 3),
            "not an ELF file (no \\x7fELF magic): not a shared library");
  EXPECT_EQ(check(MinimalLibrary(), 63),
            "truncated: the file is 63 bytes, shorter than an ELF header "
            "(64)");
  // Everything but the last data byte: the section holding it is cut.
  EXPECT_EQ(check(MinimalLibrary(), kSize - 1),
            "truncated or corrupt: segment 0 (LOAD) spans bytes 0.." +
                std::to_string(kSize) + ", past the end of the file (" +
                std::to_string(kSize - 1) + " bytes)");
}

TEST_F(ElfCheck, RefusesOtherKindsOfFile) {
  MinimalLibrary library;
  library.header.e_ident[EI_CLASS] = ELFCLASS32;
  EXPECT_EQ(check(library),
            "a 32-bit ELF file; this machine loads 64-bit shared libraries");
  library = MinimalLibrary();
  library.header.e_ident[EI_DATA] = ELFDATA2MSB;
  EXPECT_EQ(check(library), "an ELF file of the other byte order "
                            "(big-endian)");
  library = MinimalLibrary();
  library.header.e_type = ET_REL;
  EXPECT_EQ(check(library), "a relocatable object (.o), not a shared library");
  library = MinimalLibrary();
  library.header.e_machine = EM_RISCV;
  EXPECT_EQ(check(library).rfind("a shared library for RISC-V; this machine "
                                 "is ",
                                 0),
            0u);
  library = MinimalLibrary();
  library.load.p_type = PT_NOTE;
  EXPECT_EQ(check(library), "no loadable (LOAD) segment");
  library = MinimalLibrary();
  library.header.e_phentsize = 32;
  EXPECT_EQ(check(library), "program headers of 32 bytes, not 56");
}

TEST_F(ElfCheck, OffsetsThatWrapAroundAreRefused) {
  MinimalLibrary library;
  library.load.p_offset = UINT64_MAX - 8;
  EXPECT_EQ(check(library).rfind("truncated or corrupt: segment 0 (LOAD) "
                                 "spans bytes 18446744073709551607..beyond "
                                 "2^64",
                                 0),
            0u);
  library = MinimalLibrary();
  library.header.e_phoff = UINT64_MAX - 8;
  EXPECT_NE(check(library).find("the program headers span bytes "
                                "18446744073709551607.."),
            std::string::npos);
  library = MinimalLibrary();
  library.sections[1].sh_offset = 8;
  library.sections[1].sh_size = UINT64_MAX;
  EXPECT_NE(check(library).find("section 1 spans bytes 8..beyond 2^64"),
            std::string::npos);
  // No bytes in the file: a section of no bits may lie anywhere.
  library.sections[1].sh_type = SHT_NOBITS;
  EXPECT_EQ(check(library), "");
}

TEST_F(ElfCheck, SectionCountsPastTheFileAreRefused) {
  MinimalLibrary library;
  library.header.e_shnum = 100;
  EXPECT_EQ(
      check(library),
      "truncated or corrupt: the section headers span "
      "bytes " +
          std::to_string(library.header.e_shoff) + ".." +
          std::to_string(library.header.e_shoff + 100 * sizeof(Elf64_Shdr)) +
          ", past the end of the file (" + std::to_string(kSize) + " bytes)");
  // Counts of 0xff00 sections or more live in section 0's size.
  library = MinimalLibrary();
  library.header.e_shnum = 0;
  library.sections[0].sh_size = UINT64_MAX;
  EXPECT_NE(check(library).find("the section headers span bytes"),
            std::string::npos);
  library.sections[0].sh_size = 2;
  EXPECT_EQ(check(library), "");
}

TEST_F(ElfCheck, MissingFilesAndDirectories) {
  EXPECT_EQ(mixprec::checkSharedObject("/nonexistent/libmodel.so"),
            "cannot open: No such file or directory");
  EXPECT_EQ(mixprec::checkSharedObject("/tmp"),
            "a directory, not a shared library");
}

} // namespace
