//===- Image.cpp - the PTX inside a module image --------------------------===//
//
// A fatbin is a 16-byte header (magic 0xba55ed50, version, header size,
// size of the entries) followed by entries, each a header (kind: 1 PTX,
// 2 ELF; its own size; the payload's padded size; flags, bit 0x2000 and
// 0x8000 for compressed payloads; the sm number) and the payload.
//
//===----------------------------------------------------------------------===//

#include "Image.h"

#include <cstdint>
#include <cstring>

namespace gpusim {

namespace {

constexpr uint32_t kFatbinMagic = 0xba55ed50;
constexpr uint16_t kPtxEntry = 1, kElfEntry = 2;
constexpr uint64_t kCompressedFlags = 0x2000 | 0x8000;
// Larger fatbins than this are taken to be corrupt.
constexpr uint64_t kMaxFatbinBytes = 1ull << 32;

template <typename T> T readAt(const uint8_t *bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof(T));
  return value;
}

} // namespace

ImageKind extractPtx(const void *image, std::string &ptx) {
  if (!image)
    return ImageKind::Unknown;
  const auto *bytes = static_cast<const uint8_t *>(image);
  if (readAt<uint32_t>(bytes, 0) != kFatbinMagic) {
    const char *text = static_cast<const char *>(image);
    if (std::memcmp(text,
                    "\x7f"
                    "ELF",
                    4) == 0)
      return ImageKind::CubinOnly;
    size_t length = strnlen(text, kMaxFatbinBytes);
    ptx.assign(text, length);
    return ptx.find(".version") != std::string::npos ? ImageKind::Ptx
                                                     : ImageKind::Unknown;
  }
  uint16_t headerBytes = readAt<uint16_t>(bytes, 6);
  uint64_t entriesBytes = readAt<uint64_t>(bytes, 8);
  if (headerBytes < 16 || entriesBytes > kMaxFatbinBytes)
    return ImageKind::Unknown;
  ImageKind found = ImageKind::CubinOnly;
  uint32_t bestArch = 0;
  for (uint64_t offset = headerBytes;
       offset + 0x40 <= headerBytes + entriesBytes;) {
    const uint8_t *entry = bytes + offset;
    uint16_t kind = readAt<uint16_t>(entry, 0);
    uint32_t entryHeader = readAt<uint32_t>(entry, 4);
    uint64_t payloadBytes = readAt<uint64_t>(entry, 8);
    uint32_t arch = readAt<uint32_t>(entry, 0x1c);
    uint64_t flags = readAt<uint64_t>(entry, 0x28);
    if (entryHeader < 0x40 || payloadBytes > kMaxFatbinBytes)
      return ImageKind::Unknown;
    if (kind == kPtxEntry && arch >= bestArch) {
      bestArch = arch;
      if (flags & kCompressedFlags) {
        found = ImageKind::CompressedPtx;
      } else {
        const char *text = reinterpret_cast<const char *>(entry + entryHeader);
        ptx.assign(text, strnlen(text, payloadBytes));
        found = ImageKind::Ptx;
      }
    } else if (kind != kPtxEntry && kind != kElfEntry) {
      return ImageKind::Unknown;
    }
    offset += entryHeader + payloadBytes;
  }
  return found;
}

} // namespace gpusim
