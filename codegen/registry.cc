#include "codegen/registry.h"

#include <map>

#include "absl/base/call_once.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/mutex.h"
#include "codegen/cpu/cpu_backend.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/emulator/emulator_backend.h"
#include "codegen/interpreter/interpreter_backend.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

struct Registry {
  Mutex mu;
  std::map<std::string, BackendRegistration> entries ABSL_GUARDED_BY(mu);
};

absl::Status Add(Registry& r, BackendRegistration b) {
  if (b.name.empty()) return absl::InvalidArgumentError("empty backend name");
  if (!b.factory) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend '", b.name, "' has no factory"));
  }
  MutexLock lock(&r.mu);
  std::string name = b.name;
  if (!r.entries.emplace(name, std::move(b)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("a backend named '", name, "' is already registered"));
  }
  return absl::OkStatus();
}

// The registry, with the built-in backends in it.
Registry& TheRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry();
    for (BackendRegistration b :
         {cpu::CpuBackendRegistration(), InterpreterBackendRegistration(),
          cuda::CudaBackendRegistration(), cuda::EmulatorBackendRegistration()}) {
      Add(*r, std::move(b)).IgnoreError();  // distinct names
    }
    return r;
  }();
  return *registry;
}

}  // namespace

absl::Status RegisterBackend(BackendRegistration registration) {
  return Add(TheRegistry(), std::move(registration));
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(
    absl::string_view name, const BackendOptions& options) {
  Registry& r = TheRegistry();
  BackendFactory factory;
  {
    MutexLock lock(&r.mu);
    auto it = r.entries.find(std::string(name));
    if (it == r.entries.end()) {
      std::vector<std::string> names;
      for (const auto& [n, e] : r.entries) names.push_back(n);
      return absl::InvalidArgumentError(
          absl::StrCat("unknown backend '", name,
                       "' (registered: ", absl::StrJoin(names, ", "), ")"));
    }
    factory = it->second.factory;
  }
  absl::StatusOr<std::unique_ptr<Backend>> backend = factory(options);
  if (!backend.ok()) {
    return absl::Status(backend.status().code(),
                        absl::StrCat(name, ": ", backend.status().message()));
  }
  return backend;
}

absl::StatusOr<std::string> BackendDevice(absl::string_view name,
                                          const BackendOptions& options) {
  Registry& r = TheRegistry();
  std::function<absl::StatusOr<std::string>(const BackendOptions&)> device;
  {
    MutexLock lock(&r.mu);
    auto it = r.entries.find(std::string(name));
    if (it != r.entries.end()) device = it->second.device;
  }
  if (device) {
    absl::StatusOr<std::string> d = device(options);
    if (!d.ok()) {
      return absl::Status(d.status().code(),
                          absl::StrCat(name, ": ", d.status().message()));
    }
    return d;
  }
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend,
                         CreateBackend(name, options));
  return backend->DeviceDescription();
}

std::vector<RegisteredBackend> RegisteredBackends() {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  std::vector<RegisteredBackend> out;
  for (const auto& [n, e] : r.entries) out.push_back({n, e.description});
  return out;
}

}  // namespace xtune
