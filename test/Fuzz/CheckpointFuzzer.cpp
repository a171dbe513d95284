//===- CheckpointFuzzer.cpp - libFuzzer target: the checkpoint loader -----===//
//
// Any bytes are loaded as a checkpoint (runtime/Checkpoint.cpp) into a
// trainer of the fuzz model. The first byte chooses the file: odd, the rest
// with its correct FNV-1a checksum appended (so mutations reach the
// tensors past the checksum check); even, the rest as it is. A refused
// file must leave a message and the trainer bit-identical.
//
//===----------------------------------------------------------------------===//

#include "FuzzModel.h"

#include <sys/mman.h>
#include <unistd.h>

using namespace mixprec::fuzz;

namespace {

uint64_t fnv1a(const uint8_t *data, size_t size) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ data[i]) * 0x100000001B3ull;
  return hash;
}

/// An in-memory file the loader opens by path: no disk traffic per input.
const std::string &checkpointPath() {
  static const std::string path = [] {
    int fd = memfd_create("checkpoint", 0);
    if (fd < 0)
      fail("memfd_create failed");
    return "/proc/self/fd/" + std::to_string(fd);
  }();
  return path;
}

void writeFile(const std::vector<uint8_t> &bytes) {
  FILE *file = std::fopen(checkpointPath().c_str(), "wb");
  if (!file ||
      std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size() ||
      std::fclose(file) != 0)
    fail("cannot write the checkpoint file");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::vector<uint8_t> file(data + 1, data + size);
  if (data[0] & 1) {
    uint64_t checksum = fnv1a(file.data(), file.size());
    const auto *bytes = reinterpret_cast<const uint8_t *>(&checksum);
    file.insert(file.end(), bytes, bytes + sizeof(checksum));
  }
  writeFile(file);

  mixprec_trainer *trainer = createTrainer();
  std::string sentinel = setSentinelError(trainer);
  auto before = snapshot(trainer);
  if (mixprec_trainer_load(trainer, checkpointPath().c_str()) != MIXPREC_OK) {
    expectNewError(sentinel, "mixprec_trainer_load");
    if (snapshot(trainer) != before)
      fail("a refused checkpoint changed the state:", mixprec_last_error());
  }
  mixprec_trainer_destroy(trainer);
  return 0;
}
