// WireWriter and WireReader: the flat messages between a profiler and its
// worker program (codegen/cpu/cpu_worker_protocol.h,
// codegen/cuda/gpu_worker_protocol.h). Every field is an int64 or a double
// in host byte order (both ends run on one machine); a string is its length
// and its bytes. Readers never trust a length: a read past the end sets
// failed() and returns zeros.
#ifndef XTUNE_UTIL_WIRE_H_
#define XTUNE_UTIL_WIRE_H_

#include <cstdint>
#include <cstring>
#include <string>

namespace xtune {

// Appends fields to a message.
class WireWriter {
 public:
  void Int(int64_t v) {
    const char* p = reinterpret_cast<const char*>(&v);
    bytes_.append(p, sizeof(v));
  }
  void Str(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    bytes_ += s;
  }
  void Double(double d) {
    const char* p = reinterpret_cast<const char*>(&d);
    bytes_.append(p, sizeof(d));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Reads fields back; any read past the end (or an absurd length) sets
// failed() and returns zeros.
class WireReader {
 public:
  explicit WireReader(const std::string& bytes) : bytes_(bytes) {}
  int64_t Int() {
    int64_t v = 0;
    Take(&v, sizeof(v));
    return v;
  }
  double Double() {
    double d = 0;
    Take(&d, sizeof(d));
    return d;
  }
  std::string Str() {
    int64_t n = Int();
    if (n < 0 || static_cast<size_t>(n) > bytes_.size() - pos_) {
      failed_ = true;
      return "";
    }
    std::string s = bytes_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  bool failed() const { return failed_; }
  // Whether every byte was read.
  bool done() const { return pos_ == bytes_.size(); }

 private:
  void Take(void* out, size_t n) {
    if (failed_ || bytes_.size() - pos_ < n) {
      failed_ = true;
      return;
    }
    std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
  }
  const std::string& bytes_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace xtune

#endif  // XTUNE_UTIL_WIRE_H_
