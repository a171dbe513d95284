//===- Checkpoint.cpp - saving and restoring a trainer's state ------------===//
//
// Format (little-endian):
//   "MIXPRECK" | u32 version | u32 count
//   count x { u32 name length | name | i32 dtype | i32 rank | i64 shape[rank]
//             | u64 bytes | data }        (the state tensors, then rng_state)
//   u64 FNV-1a of everything before it
// C library and POSIX calls only, as the rest of the model runtime.
//
//===----------------------------------------------------------------------===//

#include "TrainerState.h"
#include "TypeText.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mixprec::runtime;

namespace {

constexpr char kMagic[8] = {'M', 'I', 'X', 'P', 'R', 'E', 'C', 'K'};
constexpr uint32_t kVersion = 1;

uint64_t fnv1a(const uint8_t *data, size_t size) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ data[i]) * 0x100000001B3ull;
  return hash;
}

/// A growing byte buffer; `failed` once an allocation fails.
struct Buffer {
  uint8_t *data = nullptr;
  size_t size = 0, capacity = 0;
  bool failed = false;

  ~Buffer() { std::free(data); }
  void append(const void *bytes, size_t count) {
    if (failed)
      return;
    if (size + count > capacity) {
      size_t grown = capacity ? capacity * 2 : 4096;
      while (grown < size + count)
        grown *= 2;
      auto *larger = static_cast<uint8_t *>(std::realloc(data, grown));
      if (!larger) {
        failed = true;
        return;
      }
      data = larger, capacity = grown;
    }
    std::memcpy(data + size, bytes, count);
    size += count;
  }
  template <typename T> void append(T value) { append(&value, sizeof(T)); }
};

void appendTensor(Buffer &out, const mixprec_tensor_spec &spec,
                  const void *data) {
  uint32_t length = uint32_t(std::strlen(spec.name));
  out.append(length);
  out.append(spec.name, length);
  out.append(int32_t(spec.dtype));
  out.append(spec.rank);
  for (int32_t dim = 0; dim < spec.rank; ++dim)
    out.append(spec.shape[dim]);
  out.append(uint64_t(bytesOf(spec)));
  out.append(data, bytesOf(spec));
}

/// Reads from a checkpoint in memory; `error` says what was wrong first.
struct Reader {
  const uint8_t *data;
  size_t size, offset = 0;
  bool truncated = false;

  const uint8_t *take(size_t count) {
    if (truncated || count > size - offset) {
      truncated = true;
      return nullptr;
    }
    const uint8_t *at = data + offset;
    offset += count;
    return at;
  }
  template <typename T> T read() {
    T value{};
    if (const uint8_t *at = take(sizeof(T)))
      std::memcpy(&value, at, sizeof(T));
    return value;
  }
};

bool sameShape(const mixprec_tensor_spec &spec, const int64_t *shape,
               int32_t rank) {
  if (rank != spec.rank)
    return false;
  for (int32_t dim = 0; dim < rank; ++dim)
    if (shape[dim] != spec.shape[dim])
      return false;
  return true;
}

mixprec_status writeAll(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      if (written == 0)
        errno = EIO;
      return MIXPREC_INTERNAL;
    }
    data += written;
    size -= size_t(written);
  }
  return MIXPREC_OK;
}

/// The directory of `path`, for its fsync after a rename.
void syncDirectoryOf(const char *path) {
  char directory[4096];
  std::snprintf(directory, sizeof(directory), "%s", path);
  char *slash = std::strrchr(directory, '/');
  if (slash == directory)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    std::snprintf(directory, sizeof(directory), ".");
  int fd = open(directory, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

} // namespace

extern "C" {

mixprec_status mixprec_trainer_save(const mixprec_trainer *trainer,
                                    const char *path) {
  if (!trainer || !path)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no trainer or no path");
  if (mixprec_status status = syncToHost(trainer))
    return status;
  Buffer out;
  out.append(kMagic, sizeof(kMagic));
  out.append(kVersion);
  out.append(uint32_t(mixprec_model_num_states + 1));
  for (int32_t i = 0; i < mixprec_model_num_states; ++i)
    appendTensor(out, *mixprec_model_states[i].spec, trainer->state[i]);
  appendTensor(out, kRngSpec, trainer->rng);
  out.append(fnv1a(out.data, out.size));
  if (out.failed)
    return mixprec_fail(MIXPREC_INTERNAL, "out of memory saving %s", path);

  // A fresh temporary file beside `path` (same file system, so the rename
  // is atomic), never one another saver or a symlink could share.
  char temporary[4096];
  if (std::snprintf(temporary, sizeof(temporary), "%s.tmp.XXXXXX", path) >=
      int(sizeof(temporary)))
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "path too long: %s", path);
  int fd = mkostemp(temporary, O_CLOEXEC);
  if (fd < 0)
    return mixprec_fail(MIXPREC_INTERNAL, "cannot create %s: %s", temporary,
                        std::strerror(errno));
  const char *failed = nullptr;
  int failure = 0;
  if (fchmod(fd, 0644) != 0)
    failed = "fchmod", failure = errno;
  else if (writeAll(fd, out.data, out.size) != MIXPREC_OK)
    failed = "write", failure = errno;
  else if (fsync(fd) != 0)
    failed = "fsync", failure = errno;
  if (close(fd) != 0 && !failed)
    failed = "close", failure = errno;
  if (!failed && rename(temporary, path) != 0)
    failed = "rename", failure = errno;
  if (failed) {
    unlink(temporary);
    return mixprec_fail(MIXPREC_INTERNAL, "cannot write %s (%s: %s)", path,
                        failed, std::strerror(failure));
  }
  syncDirectoryOf(path);
  return MIXPREC_OK;
}

mixprec_status mixprec_trainer_load(mixprec_trainer *trainer,
                                    const char *path) {
  if (!trainer || !path)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "no trainer or no path");
  FILE *file = std::fopen(path, "rb");
  if (!file)
    return mixprec_fail(MIXPREC_NOT_FOUND, "cannot open %s: %s", path,
                        std::strerror(errno));
  Buffer in;
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    in.append(chunk, got);
  bool readError = std::ferror(file);
  std::fclose(file);
  if (readError || in.failed)
    return mixprec_fail(MIXPREC_INTERNAL, "cannot read %s", path);

  if (in.size < sizeof(kMagic) ||
      std::memcmp(in.data, kMagic, sizeof(kMagic)) != 0)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s is not a mixprec checkpoint", path);
  if (in.size < sizeof(kMagic) + 8 + sizeof(uint64_t))
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s is truncated (%zu bytes)",
                        path, in.size);
  uint64_t stored;
  std::memcpy(&stored, in.data + in.size - sizeof(stored), sizeof(stored));
  Reader reader{in.data, in.size - sizeof(stored)};
  reader.take(sizeof(kMagic));
  uint32_t version = reader.read<uint32_t>();
  if (version != kVersion)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s is checkpoint version %u; this runtime reads %u",
                        path, version, kVersion);
  if (fnv1a(in.data, reader.size) != stored)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s is truncated or corrupted (checksum mismatch)",
                        path);

  // Every tensor is checked against the model before any is copied.
  int32_t expected = mixprec_model_num_states + 1;
  uint32_t count = reader.read<uint32_t>();
  if (count != uint32_t(expected))
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "%s holds %u tensors; this model has %d", path, count,
                        expected);
  const uint8_t **sources = static_cast<const uint8_t **>(
      std::calloc(size_t(expected), sizeof(uint8_t *)));
  if (!sources)
    return mixprec_fail(MIXPREC_INTERNAL, "out of memory loading %s", path);
  mixprec_status status = MIXPREC_OK;
  for (uint32_t i = 0; i < count && status == MIXPREC_OK; ++i) {
    uint32_t length = reader.read<uint32_t>();
    const char *name = reinterpret_cast<const char *>(reader.take(length));
    int32_t dtype = reader.read<int32_t>();
    int32_t rank = reader.read<int32_t>();
    int64_t shape[16] = {};
    for (int32_t dim = 0; dim < rank && dim < 16; ++dim)
      shape[dim] = reader.read<int64_t>();
    uint64_t bytes = reader.read<uint64_t>();
    const uint8_t *data = reader.take(size_t(bytes));
    if (reader.truncated || rank < 0 || rank > 16) {
      status = mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s is malformed", path);
      break;
    }
    // Messages show at most 200 bytes of a name.
    char text[201];
    std::snprintf(text, sizeof(text), "%.*s", int(length < 200 ? length : 200),
                  name);
    bool isRng = length == std::strlen(kRngSpec.name) &&
                 std::memcmp(name, kRngSpec.name, length) == 0;
    int32_t index = isRng ? mixprec_model_num_states : stateIndex(name, length);
    const mixprec_tensor_spec &spec =
        index == mixprec_model_num_states || index < 0
            ? kRngSpec
            : *mixprec_model_states[index].spec;
    if (index < 0)
      status =
          mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                       "%s has '%s', which this model does not", path, text);
    else if (sources[index])
      status = mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s has '%s' twice", path,
                            text);
    else if (dtype != spec.dtype || !sameShape(spec, shape, rank)) {
      char expected[kTypeTextSize], actual[kTypeTextSize];
      status = mixprec_fail(
          MIXPREC_INVALID_ARGUMENT,
          "%s: '%s' is %s in the checkpoint, the model's is %s", path, text,
          formatType(actual, sizeof(actual), dtype, rank, shape),
          formatType(expected, sizeof(expected), spec.dtype, spec.rank,
                     spec.shape));
    } else if (bytes != bytesOf(spec))
      status = mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                            "%s: '%s' has %llu bytes of data, its type needs "
                            "%llu",
                            path, text, (unsigned long long)bytes,
                            (unsigned long long)bytesOf(spec));
    else
      sources[index] = data;
  }
  if (status == MIXPREC_OK) {
    for (int32_t i = 0; i < mixprec_model_num_states; ++i)
      std::memcpy(trainer->state[i], sources[i],
                  bytesOf(*mixprec_model_states[i].spec));
    std::memcpy(trainer->rng, sources[mixprec_model_num_states],
                sizeof(trainer->rng));
    hostWritten(trainer);
  }
  std::free(sources);
  return status;
}

} // extern "C"
