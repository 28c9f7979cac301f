// DeviceBuffer: a buffer in a backend's memory, as the backend's Allocate()
// returned it. Kernels and executables pass these around; only the backend
// that made one reads its `opaque` field (a host pointer on the CPU and
// interpreter backends, a device address on a GPU). Value type; it owns
// nothing: Backend::Free() releases it.
#ifndef XTUNE_CODEGEN_DEVICE_BUFFER_H_
#define XTUNE_CODEGEN_DEVICE_BUFFER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ir/literal.h"

namespace xtune {

struct DeviceBuffer {
  void* opaque = nullptr;
  int64_t bytes = 0;
};

// A host pointer seen as a buffer of a host backend (CPU, interpreter,
// fakes), e.g. to run a kernel on a Literal's bytes in a test.
inline DeviceBuffer HostBuffer(const void* data, int64_t bytes) {
  return DeviceBuffer{const_cast<void*>(data), bytes};
}
// A Literal's bytes, and each of several Literals', as host buffers.
inline DeviceBuffer HostBuffer(const Literal& literal) {
  return HostBuffer(literal.bytes().data(),
                    static_cast<int64_t>(literal.bytes().size()));
}
inline std::vector<DeviceBuffer> HostBuffers(
    absl::Span<const Literal> literals) {
  std::vector<DeviceBuffer> out;
  out.reserve(literals.size());
  for (const Literal& l : literals) out.push_back(HostBuffer(l));
  return out;
}

}  // namespace xtune

#endif  // XTUNE_CODEGEN_DEVICE_BUFFER_H_
