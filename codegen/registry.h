// The backend registry: backends by name, as --backend=NAME takes them.
//
// Each backend describes itself with a BackendRegistration
// (codegen/backend_factory.h). The built-in ones (cpu, interpreter) are
// added the first time the registry is used — explicitly, not through
// static initializers, which a static library would drop. A program or test
// adds its own with RegisterBackend() and then uses it exactly as a built-in
// one: the compile path, the C++ API and the CLI make every backend through
// CreateBackend().
//
// Thread-safe.
#ifndef XTUNE_CODEGEN_REGISTRY_H_
#define XTUNE_CODEGEN_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/backend.h"
#include "codegen/backend_factory.h"

namespace xtune {

// Adds a backend. AlreadyExists when its name is taken (the built-ins
// included); InvalidArgument for an empty name or no factory.
absl::Status RegisterBackend(BackendRegistration registration);

// Makes the backend `name`. Errors: InvalidArgument for a name nobody
// registered (listing those that are); the factory's own errors, prefixed
// with the name (e.g. Unavailable "cuda: no NVIDIA driver (libcuda.so.1 not
// found)").
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(
    absl::string_view name, const BackendOptions& options = {});

// The device string the backend `name` would put in cache keys on this
// machine, as cheaply as it can say (BackendRegistration::device). Errors:
// those of CreateBackend.
absl::StatusOr<std::string> BackendDevice(absl::string_view name,
                                          const BackendOptions& options = {});

struct RegisteredBackend {
  std::string name;
  std::string description;
};
// Every registered backend, sorted by name.
std::vector<RegisteredBackend> RegisteredBackends();

}  // namespace xtune

#endif  // XTUNE_CODEGEN_REGISTRY_H_
