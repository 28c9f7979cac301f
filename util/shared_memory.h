// SharedMemory: an anonymous memory region (memfd) mapped here and passed
// to a worker process by file descriptor, so inputs and outputs cross the
// process boundary without copies through pipes. Move-only; unmaps and
// closes on destruction. Thread-compatible.
#ifndef XTUNE_UTIL_SHARED_MEMORY_H_
#define XTUNE_UTIL_SHARED_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace xtune {

class SharedMemory {
 public:
  // A zero-filled region of `bytes` (at least one page is mapped). The fd is
  // close-on-exec; pass it to a child explicitly. ResourceExhausted when the
  // region cannot be made.
  static absl::StatusOr<SharedMemory> Create(size_t bytes);
  // Maps `bytes` of the region behind `fd` (in the worker); takes the fd.
  static absl::StatusOr<SharedMemory> Map(int fd, size_t bytes);

  SharedMemory() = default;
  SharedMemory(SharedMemory&& other) noexcept { *this = std::move(other); }
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;
  int fd_ = -1;
};

}  // namespace xtune

#endif  // XTUNE_UTIL_SHARED_MEMORY_H_
