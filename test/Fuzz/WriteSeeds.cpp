//===- WriteSeeds.cpp - the fuzzers' seed corpora -------------------------===//
//
//   mixprec-fuzz-seeds <dir> <file.mlir>...
//
// writes <dir>/ir (each input file split at `// -----`, as -split-input-file
// does), <dir>/npy (a file of each dtype and several ranks), <dir>/checkpoint
// (a checkpoint of the fuzz model, in both of the fuzzer's modes) and
// <dir>/call (an input that matches every spec for each entry point).
//
//===----------------------------------------------------------------------===//

#include "FuzzModel.h"
#include "Npy.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace mixprec;
using namespace mixprec::fuzz;
namespace fs = std::filesystem;

namespace {

void writeSeed(const fs::path &dir, const std::string &name,
               const std::vector<uint8_t> &bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
  if (!out)
    fail("cannot write", (dir / name).c_str());
}

std::vector<uint8_t> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("cannot read", path.c_str());
  return {std::istreambuf_iterator<char>(in), {}};
}

void writeIrSeeds(const fs::path &dir, int argc, char **argv) {
  int count = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::string line, chunk;
    auto flush = [&] {
      writeSeed(dir, std::to_string(count++) + ".ir",
                std::vector<uint8_t>(chunk.begin(), chunk.end()));
      chunk.clear();
    };
    while (std::getline(in, line)) {
      if (line.rfind("// -----", 0) == 0)
        flush();
      else
        chunk += line + "\n";
    }
    flush();
  }
}

void writeNpySeeds(const fs::path &dir) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {3}, {2, 3}, {0, 4}, {1, 2, 1, 2}};
  int count = 0;
  for (int dtype = MIXPREC_F32; dtype <= MIXPREC_BOOL; ++dtype)
    for (const auto &shape : shapes) {
      npy::Array array;
      array.dtype = mixprec_dtype(dtype);
      array.shape = shape;
      size_t elements = 1;
      for (int64_t dim : shape)
        elements *= size_t(dim);
      array.data.assign(elements * elementBytes(array.dtype), 1);
      writeSeed(dir, std::to_string(count++) + ".npy", npy::serialize(array));
    }
}

void writeCheckpointSeeds(const fs::path &dir) {
  mixprec_trainer *trainer = createTrainer();
  fs::path saved = dir / "saved.tmp";
  fs::create_directories(dir);
  if (mixprec_trainer_save(trainer, saved.c_str()) != MIXPREC_OK)
    fail("cannot save a checkpoint:", mixprec_last_error());
  mixprec_trainer_destroy(trainer);
  std::vector<uint8_t> file = readFile(saved);
  fs::remove(saved);
  // Mode 0: the file as it is; mode 1: without its checksum, which the
  // fuzzer appends.
  std::vector<uint8_t> asIs = {0};
  asIs.insert(asIs.end(), file.begin(), file.end());
  writeSeed(dir, "as-is.ckpt", asIs);
  std::vector<uint8_t> body = {1};
  body.insert(body.end(), file.begin(), file.end() - sizeof(uint64_t));
  writeSeed(dir, "checksummed.ckpt", body);
}

void writeCallSeeds(const fs::path &dir) {
  // FuzzedDataProvider reads its first choice, the entry point, from the
  // last byte; the zeros it reads past the input keep every spec.
  for (uint8_t entry = 0; entry < 4; ++entry)
    writeSeed(dir, "entry" + std::to_string(entry), {entry});
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mixprec-fuzz-seeds <dir> <file.mlir>...\n");
    return 1;
  }
  fs::path dir = argv[1];
  writeIrSeeds(dir / "ir", argc, argv);
  writeNpySeeds(dir / "npy");
  writeCheckpointSeeds(dir / "checkpoint");
  writeCallSeeds(dir / "call");
  return 0;
}
