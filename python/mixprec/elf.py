"""A model library's file checked before it is loaded.

dlopen maps a shared object's segments straight from the file: one that
reaches past the end of a truncated file faults (SIGBUS) inside the loader
and kills the process. `problem` reads the ELF headers first, as
the command-line tools do (runtime/ElfCheck.cpp), and says what is wrong.
"""
import os
import platform
import struct
import sys

# e_machine of the machines a model library may be built for.
_MACHINES = {"x86_64": 62, "aarch64": 183, "riscv64": 243, "ppc64le": 21}
_MACHINE_NAMES = {62: "x86-64", 3: "i386", 183: "AArch64", 40: "ARM",
                  243: "RISC-V", 21: "PowerPC64"}
_SEGMENT_KINDS = {1: "LOAD", 2: "DYNAMIC", 3: "INTERP", 4: "NOTE", 7: "TLS",
                  0x6474E550: "GNU_EH_FRAME"}
_TYPE_KINDS = {1: "a relocatable object (.o)", 2: "an executable",
               4: "a core dump"}
_EHDR = struct.Struct("16sHHIQQQIHHHHHH")  # Elf64_Ehdr, 64 bytes
_PHDR = struct.Struct("IIQQQQQQ")  # Elf64_Phdr, 56 bytes
_SHDR = struct.Struct("IIQQQQIIQQ")  # Elf64_Shdr, 64 bytes
_SHT_NOBITS = 8
_PT_LOAD = 1


def _machine_name(machine):
    return _MACHINE_NAMES.get(machine, "machine %d" % machine)


def _past_the_end(offset, length, size):
    return "bytes %d..%d, past the end of the file (%d bytes)" % (
        offset, offset + length, size)


def _within(offset, length, size):
    return offset <= size and length <= size - offset


def problem(path):
    """What keeps `path` from being loaded safely as a 64-bit ELF shared
    library for this machine, or None when nothing does."""
    try:
        if os.path.isdir(path):
            return "a directory, not a shared library"
        if not os.path.isfile(path):
            return ("not a regular file" if os.path.exists(path)
                    else "no such file")
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        return "cannot open: %s" % (error.strerror or error)
    size = len(data)
    if size == 0:
        return "the file is empty, not a shared library"
    if not data.startswith(b"\x7fELF"):
        return "not an ELF file (no \\x7fELF magic): not a shared library"
    if size < _EHDR.size:
        return ("truncated: the file is %d bytes, shorter than an ELF header "
                "(%d)" % (size, _EHDR.size))
    (ident, e_type, machine, version, _, phoff, shoff, _, _, phentsize, phnum,
     shentsize, shnum, _) = _EHDR.unpack_from(data)
    native_order = 1 if sys.byteorder == "little" else 2
    if ident[4] == 1:
        return "a 32-bit ELF file; this machine loads 64-bit shared libraries"
    if ident[4] != 2:
        return "unknown ELF class %d" % ident[4]
    if ident[5] != native_order:
        return "an ELF file of the other byte order (%s-endian)" % (
            "big" if native_order == 1 else "little")
    if ident[6] != 1 or version != 1:
        return "unknown ELF version %d" % version
    if e_type != 3:
        return "%s, not a shared library" % _TYPE_KINDS.get(
            e_type, "ELF type %d" % e_type)
    this_machine = _MACHINES.get(platform.machine())
    if this_machine is not None and machine != this_machine:
        return "a shared library for %s; this machine is %s" % (
            _machine_name(machine), _machine_name(this_machine))
    if phnum == 0:
        return "no program headers: nothing to load"
    if phentsize != _PHDR.size:
        return "program headers of %d bytes, not %d" % (phentsize, _PHDR.size)
    if not _within(phoff, phnum * _PHDR.size, size):
        return "truncated or corrupt: the program headers span " + \
            _past_the_end(phoff, phnum * _PHDR.size, size)
    loads = False
    for i in range(phnum):
        kind, _, offset, _, _, filesz, _, _ = _PHDR.unpack_from(
            data, phoff + i * _PHDR.size)
        loads |= kind == _PT_LOAD
        if not _within(offset, filesz, size):
            return "truncated or corrupt: segment %d (%s) spans %s" % (
                i, _SEGMENT_KINDS.get(kind, "type %d" % kind),
                _past_the_end(offset, filesz, size))
    if not loads:
        return "no loadable (LOAD) segment"
    if shoff == 0:
        return None
    if shentsize != _SHDR.size:
        return "section headers of %d bytes, not %d" % (shentsize, _SHDR.size)
    if not _within(shoff, _SHDR.size, size):
        return "truncated or corrupt: the section headers span " + \
            _past_the_end(shoff, _SHDR.size, size)
    # With 0xff00 sections or more, section 0's size holds the count.
    count = shnum or _SHDR.unpack_from(data, shoff)[5]
    if not _within(shoff, count * _SHDR.size, size):
        return "truncated or corrupt: the section headers span " + \
            _past_the_end(shoff, count * _SHDR.size, size)
    for i in range(count):
        _, kind, _, _, offset, length, _, _, _, _ = _SHDR.unpack_from(
            data, shoff + i * _SHDR.size)
        if kind != _SHT_NOBITS and not _within(offset, length, size):
            return "truncated or corrupt: section %d spans %s" % (
                i, _past_the_end(offset, length, size))
    return None
