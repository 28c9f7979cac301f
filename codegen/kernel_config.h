// KernelConfig: the tunable parameters of one generated kernel, e.g.
// "mc=96,nc=1024,kc=256,mr=6,nr=16,split_k=1,threads=1" for a CPU gemm.
//
// Parameters are kept in the canonical order of their kind, so two configs
// compare (and sort) deterministically: search spaces and tie-breaking
// depend on that order. Value type.
#ifndef XTUNE_CODEGEN_KERNEL_CONFIG_H_
#define XTUNE_CODEGEN_KERNEL_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune {

class KernelConfig {
 public:
  KernelConfig() = default;
  // `kind` names the parameter family ("cpu_gemm", "cpu_loop", ...).
  KernelConfig(std::string kind,
               std::vector<std::pair<std::string, int64_t>> params)
      : kind_(std::move(kind)), params_(std::move(params)) {}

  const std::string& kind() const { return kind_; }
  const std::vector<std::pair<std::string, int64_t>>& params() const {
    return params_;
  }
  // The value of `name`; `fallback` when absent.
  int64_t Get(absl::string_view name, int64_t fallback = 0) const;
  bool Has(absl::string_view name) const;
  // Sets an existing parameter or appends a new one.
  void Set(absl::string_view name, int64_t value);

  // "kind:name=value,..." ; ParamsString() is just "name=value,...".
  std::string ToString() const;
  std::string ParamsString() const;

  // Lexicographic by kind, then by values in parameter order.
  bool operator<(const KernelConfig& other) const;
  bool operator==(const KernelConfig& other) const;
  bool operator!=(const KernelConfig& other) const { return !(*this == other); }

 private:
  std::string kind_;
  std::vector<std::pair<std::string, int64_t>> params_;
};

// Reads ToString()'s form back ("kind:name=value,..."; parameters kept in
// the order written, a repeated name taking its last value). InvalidArgument when there is no kind, a parameter
// has no '=' or a value is not an integer.
absl::StatusOr<KernelConfig> ParseKernelConfig(absl::string_view text);

// Applies "name=value,name=value" overrides to `base`. Every name must
// already be a parameter of `base` (InvalidArgument naming the unknown one
// and listing the valid ones); values must be integers.
absl::StatusOr<KernelConfig> ApplyOverrides(const KernelConfig& base,
                                            absl::string_view overrides);

}  // namespace xtune

#endif  // XTUNE_CODEGEN_KERNEL_CONFIG_H_
