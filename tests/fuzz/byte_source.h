// ByteSource: the choices a fuzz input makes, read from its bytes (libFuzzer's
// FuzzedDataProvider, kept small and compiler-independent so that the deterministic sweep in the
// unit suite and the libFuzzer targets build the same values from the same bytes).
// Invariant: reading never fails; an exhausted source answers 0 to every question, so any byte
// string is a valid input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tg_fuzz {

class ByteSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
  bool boolean() { return (byte() & 1) != 0; }
  // A value in [0, n); n > 0.
  size_t below(size_t n) {
    const uint32_t raw = uint32_t(byte()) | uint32_t(byte()) << 8;
    return raw % n;
  }
  // One of the n entries of an array.
  template <typename T, size_t N>
  const T& pick(const T (&values)[N]) {
    return values[below(N)];
  }
  // Up to max_length bytes as a string (stops at the end of the input).
  std::string text(size_t max_length) {
    std::string out;
    const size_t length = below(max_length + 1);
    for (size_t i = 0; i < length && position_ < size_; ++i) out.push_back(static_cast<char>(byte()));
    return out;
  }
  bool exhausted() const { return position_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

}  // namespace tg_fuzz
