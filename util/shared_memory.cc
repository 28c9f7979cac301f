#include "util/shared_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

size_t Mapped(size_t bytes) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return bytes == 0 ? page : (bytes + page - 1) / page * page;
}

}  // namespace

absl::StatusOr<SharedMemory> SharedMemory::Create(size_t bytes) {
  int fd = memfd_create("xtune-shared", MFD_CLOEXEC);
  if (fd < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("memfd_create failed: ", strerror(errno)));
  }
  if (ftruncate(fd, static_cast<off_t>(Mapped(bytes))) != 0) {
    int err = errno;
    close(fd);
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot size shared memory to ", bytes, " bytes: ", strerror(err)));
  }
  return Map(fd, bytes);
}

absl::StatusOr<SharedMemory> SharedMemory::Map(int fd, size_t bytes) {
  size_t mapped = Mapped(bytes);
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int err = errno;
    close(fd);
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot map ", bytes, " bytes of shared memory: ", strerror(err)));
  }
  SharedMemory m;
  m.data_ = static_cast<uint8_t*>(p);
  m.size_ = bytes;
  m.mapped_ = mapped;
  m.fd_ = fd;
  return m;
}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
  if (this != &other) {
    this->~SharedMemory();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

SharedMemory::~SharedMemory() {
  if (data_ != nullptr) munmap(data_, mapped_);
  if (fd_ >= 0) close(fd_);
  data_ = nullptr;
  fd_ = -1;
}

}  // namespace xtune
