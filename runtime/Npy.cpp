//===- Npy.cpp - reading and writing .npy files ---------------------------===//

#include "Npy.h"
#include "Dtype.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace mixprec::npy {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DtypeDescr {
  mixprec_dtype dtype;
  const char *descr;
};
constexpr DtypeDescr kDescrs[] = {{MIXPREC_F32, "<f4"},  {MIXPREC_F16, "<f2"},
                                  {MIXPREC_BF16, "<u2"}, {MIXPREC_I32, "<i4"},
                                  {MIXPREC_I64, "<i8"},  {MIXPREC_BOOL, "|b1"}};

/// The value of `key` in the header's Python dict literal, as raw text up to
/// the next top-level comma or closing brace.
std::optional<std::string> headerValue(const std::string &header,
                                       const std::string &key) {
  std::string quoted = "'" + key + "'";
  size_t at = header.find(quoted);
  if (at == std::string::npos)
    return std::nullopt;
  size_t colon = header.find(':', at + quoted.size());
  if (colon == std::string::npos)
    return std::nullopt;
  size_t begin = header.find_first_not_of(' ', colon + 1);
  if (begin == std::string::npos)
    return std::nullopt;
  size_t end = begin;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  if (end == header.size())
    return std::nullopt;
  return header.substr(begin, end - begin);
}

/// Parses a shape as NumPy writes it, a Python tuple of non-negative
/// integers: "()", "(3,)", "(2, 3)" or "(2, 3,)". Anything else, such as
/// "(3)", "(,)", "(2,,3)" or "(2 3)", is malformed.
bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  size_t i = 1, end = text.size() - 1;
  auto skipSpaces = [&] {
    while (i < end && text[i] == ' ')
      ++i;
  };
  skipSpaces();
  bool comma = false; // whether the last element was followed by a comma
  while (i < end) {
    if (text[i] < '0' || text[i] > '9')
      return false;
    int64_t value = 0;
    while (i < end && text[i] >= '0' && text[i] <= '9') {
      if (value > (INT64_MAX - (text[i] - '0')) / 10)
        return false; // does not fit int64_t
      value = value * 10 + (text[i] - '0');
      ++i;
    }
    shape.push_back(value);
    skipSpaces();
    comma = i < end && text[i] == ',';
    if (comma) {
      ++i;
      skipSpaces();
    } else if (i < end) {
      return false; // two numbers without a comma between them
    }
  }
  // A one-element tuple needs its comma: "(3)" is the number 3.
  return shape.size() != 1 || comma;
}
} // namespace

const char *descrFor(mixprec_dtype dtype) {
  for (const DtypeDescr &entry : kDescrs)
    if (entry.dtype == dtype)
      return entry.descr;
  return "?";
}

std::optional<mixprec_dtype> dtypeFor(const std::string &descr) {
  for (const DtypeDescr &entry : kDescrs)
    if (descr == entry.descr)
      return entry.dtype;
  // One-byte types may be written with either byte-order mark.
  if (descr == "<b1" || descr == "=b1")
    return MIXPREC_BOOL;
  return std::nullopt;
}

std::optional<Array> parse(const std::vector<uint8_t> &bytes,
                           std::string &error) {
  if (bytes.size() < kMagicSize ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    error = "not a .npy file (bad magic)";
    return std::nullopt;
  }
  if (bytes.size() < kMagicSize + 4) {
    error = "truncated .npy header";
    return std::nullopt;
  }
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (bytes[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "truncated .npy header";
      return std::nullopt;
    }
    headerLength = size_t(bytes[8]) | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major);
    return std::nullopt;
  }
  if (bytes.size() < headerStart + headerLength) {
    error = "truncated .npy header";
    return std::nullopt;
  }
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLength);
  std::optional<std::string> descr = headerValue(header, "descr");
  std::optional<std::string> order = headerValue(header, "fortran_order");
  std::optional<std::string> shapeText = headerValue(header, "shape");
  if (!descr || !order || !shapeText) {
    error = "malformed .npy header: " + header;
    return std::nullopt;
  }
  if (*order == "True") {
    error = "Fortran-ordered arrays are not supported";
    return std::nullopt;
  }
  if (*order != "False") {
    error = "malformed fortran_order " + *order;
    return std::nullopt;
  }
  std::string descrText = *descr;
  if (descrText.size() < 2 || descrText.front() != '\'' ||
      descrText.back() != '\'') {
    error = "malformed dtype " + descrText;
    return std::nullopt;
  }
  descrText = descrText.substr(1, descrText.size() - 2);
  std::optional<mixprec_dtype> dtype = dtypeFor(descrText);
  if (!dtype) {
    error = "unsupported dtype '" + descrText +
            "' (expected <f4, <f2, <u2 (bf16 bits), <i4, <i8 or |b1)";
    return std::nullopt;
  }
  Array array;
  array.dtype = *dtype;
  if (!parseShape(*shapeText, array.shape)) {
    error = "malformed shape " + *shapeText;
    return std::nullopt;
  }
  size_t elements = 1;
  for (int64_t size : array.shape) {
    if (size != 0 && elements > SIZE_MAX / size_t(size)) {
      error = "shape too large";
      return std::nullopt;
    }
    elements *= size_t(size);
  }
  size_t elementSize = dtypeSize(array.dtype);
  size_t dataStart = headerStart + headerLength;
  if (elements > (bytes.size() - dataStart) / elementSize ||
      bytes.size() - dataStart != elements * elementSize) {
    error = "data size does not match the shape (" +
            std::to_string(bytes.size() - dataStart) + " bytes for " +
            std::to_string(elements) + " elements)";
    return std::nullopt;
  }
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  if (array.dtype == MIXPREC_BOOL)
    for (size_t i = 0; i < array.data.size(); ++i)
      if (array.data[i] > 1) {
        error = "bool element " + std::to_string(i) + " is " +
                std::to_string(array.data[i]) + ", not 0 or 1";
        return std::nullopt;
      }
  return array;
}

std::optional<Array> read(const std::string &path, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open file";
    return std::nullopt;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  std::optional<Array> array = parse(bytes, error);
  if (!array)
    error = path + ": " + error;
  return array;
}

std::vector<uint8_t> serialize(const Array &array) {
  std::string header = std::string("{'descr': '") + descrFor(array.dtype) +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t size : array.shape)
    header += std::to_string(size) + ", ";
  if (array.shape.size() > 1)
    header.resize(header.size() - 2); // "(2, 3)", but "(4,)" for rank 1
  else if (array.shape.size() == 1)
    header.pop_back();
  header += "), }";
  // Pad with spaces so the data starts at a multiple of 64, then newline.
  size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> bytes(kMagic, kMagic + kMagicSize);
  bytes.push_back(1);
  bytes.push_back(0);
  bytes.push_back(uint8_t(header.size() & 0xff));
  bytes.push_back(uint8_t(header.size() >> 8));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), array.data.begin(), array.data.end());
  return bytes;
}

bool write(const std::string &path, const Array &array, std::string &error) {
  std::vector<uint8_t> bytes = serialize(array);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file ||
      !file.write(reinterpret_cast<const char *>(bytes.data()), bytes.size())) {
    error = path + ": cannot write file";
    return false;
  }
  return true;
}

} // namespace mixprec::npy
