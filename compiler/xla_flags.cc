#include "compiler/xla_flags.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

absl::Status Bad(absl::string_view name, absl::string_view value,
                 absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, "=", value, ": expected ", want));
}

absl::Status ParseBool(absl::string_view name, absl::string_view value,
                       bool has_value, bool* out) {
  if (!has_value || value == "true" || value == "1") {
    *out = true;
  } else if (value == "false" || value == "0") {
    *out = false;
  } else {
    return Bad(name, value, "true or false");
  }
  return absl::OkStatus();
}

absl::Status ParseInt(absl::string_view name, absl::string_view value,
                      bool has_value, int lo, int hi, int* out) {
  int v;
  if (!has_value || !absl::SimpleAtoi(value, &v) || v < lo || v > hi) {
    return Bad(name, value, absl::StrCat("an integer in [", lo, ", ", hi, "]"));
  }
  *out = v;
  return absl::OkStatus();
}

// Splits XLA_FLAGS into tokens on whitespace, honouring quotes.
std::vector<std::string> Tokenize(absl::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  bool in_token = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        current += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_token = true;
    } else if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      if (in_token) tokens.push_back(current);
      current.clear();
      in_token = false;
    } else {
      current += c;
      in_token = true;
    }
  }
  if (in_token) tokens.push_back(current);
  return tokens;
}

// Splits "--name=value" / "--name" (without the dashes); false if `token`
// is not a flag. *has_value tells the two forms apart.
bool SplitFlag(absl::string_view token, std::string* name, std::string* value,
               bool* has_value) {
  if (!absl::ConsumePrefix(&token, "--")) return false;
  size_t eq = token.find('=');
  *has_value = eq != absl::string_view::npos;
  *name = std::string(token.substr(0, eq));
  *value = *has_value ? std::string(token.substr(eq + 1)) : "";
  return true;
}

}  // namespace

std::vector<std::string> KnownXlaFlags() {
  return {"xla_gpu_autotune_level",
          "xla_gpu_exhaustive_tiling_search",
          "xla_gpu_autotune_gemm_rtol",
          "xla_gpu_crash_on_verification_failures",
          "xla_gpu_override_gemm_autotuner",
          "xla_gpu_dump_autotune_logs_to",
          "xla_gpu_force_compilation_parallelism",
          "xla_gpu_cublas_fallback",
          "xla_gpu_dump_autotune_results_to",
          "xla_gpu_load_autotune_results_from",
          "xla_gpu_require_complete_aot_autotune_results",
          "xla_gpu_per_fusion_autotune_cache_dir",
          "xla_allow_excess_precision",
          "xla_gpu_experimental_autotune_cache_mode",
          "xtune_dump_autotune_results_merge",
          "xtune_autotune_cache_remote",
          "xtune_autotune_cache_remote_timeout_ms",
          "xtune_autotune_cache_remote_ttl",
          "xla_gpu_shard_autotuning",
          "xtune_shard_autotuning_wait_ms",
          "xtune_shard_autotuning_lease_ms",
          "xtune_autotune_details",
          "xtune_adaptive_timing",
          "xtune_cost_model",
          "xtune_in_module_timing",
          "xtune_verify_cached_results",
          "xtune_autotune_device_match",
          "xla_gpu_target_config_filename",
          "xtune_gpu_target",
          "xtune_dump_kernels_to"};
}

absl::Status ApplyXlaFlag(absl::string_view name, absl::string_view value,
                          bool has_value, XlaFlags* flags) {
  AutotuneOptions& a = flags->autotune;
  if (name == "xla_gpu_autotune_level") {
    return ParseInt(name, value, has_value, 0, 5, &a.level);
  }
  if (name == "xla_allow_excess_precision") {
    return ParseBool(name, value, has_value, &a.excess_precision);
  }
  if (name == "xla_gpu_exhaustive_tiling_search") {
    return ParseBool(name, value, has_value, &a.exhaustive);
  }
  if (name == "xla_gpu_autotune_gemm_rtol") {
    double v;
    if (!has_value || !absl::SimpleAtod(value, &v) || !(v >= 0)) {
      return Bad(name, value, "a non-negative number");
    }
    a.rtol = v;
    return absl::OkStatus();
  }
  if (name == "xla_gpu_crash_on_verification_failures") {
    return ParseBool(name, value, has_value, &a.crash_on_verification_failures);
  }
  if (name == "xla_gpu_override_gemm_autotuner") {
    if (!has_value) return Bad(name, value, "a config textproto");
    a.override_gemm = std::string(value);
    return absl::OkStatus();
  }
  if (name == "xla_gpu_target_config_filename" || name == "xtune_gpu_target" ||
      name == "xtune_dump_kernels_to") {
    if (!has_value || value.empty()) {
      return Bad(name, value,
                 name == "xtune_gpu_target" ? "a target name" : "a path");
    }
    GpuFlags& g = flags->gpu;
    (name == "xla_gpu_target_config_filename" ? g.target_config_file
     : name == "xtune_gpu_target"             ? g.target
                                              : g.dump_kernels_to) =
        std::string(value);
    return absl::OkStatus();
  }
  if (name == "xla_gpu_dump_autotune_logs_to") {
    if (!has_value) return Bad(name, value, "a file path");
    a.dump_logs_to = std::string(value);
    return absl::OkStatus();
  }
  if (name == "xla_gpu_force_compilation_parallelism") {
    return ParseInt(name, value, has_value, 0, 4096,
                    &a.compilation_parallelism);
  }
  if (name == "xla_gpu_cublas_fallback") {
    return ParseBool(name, value, has_value, &a.library_fallback);
  }
  PersistentCacheOptions& c = flags->cache;
  if (name == "xla_gpu_dump_autotune_results_to") {
    if (!has_value) return Bad(name, value, "a file path");
    c.dump_to = std::string(value);
    return absl::OkStatus();
  }
  if (name == "xla_gpu_load_autotune_results_from") {
    if (!has_value) return Bad(name, value, "a file path");
    c.load_from = std::string(value);
    return absl::OkStatus();
  }
  if (name == "xla_gpu_require_complete_aot_autotune_results") {
    return ParseBool(name, value, has_value, &a.require_complete);
  }
  if (name == "xla_gpu_per_fusion_autotune_cache_dir") {
    if (!has_value) return Bad(name, value, "a folder");
    c.per_fusion_dir = std::string(value);
    return absl::OkStatus();
  }
  if (name == "xla_gpu_experimental_autotune_cache_mode") {
    absl::StatusOr<DirectoryCacheMode> mode = ParseDirectoryCacheMode(value);
    if (!mode.ok()) return Bad(name, value, "update or read");
    c.per_fusion_mode = *mode;
    return absl::OkStatus();
  }
  if (name == "xtune_autotune_cache_remote") {
    if (!has_value) return Bad(name, value, "redis://HOST:PORT[/DB] or unix:///PATH");
    c.remote = std::string(value);
    return absl::OkStatus();
  }
  if (name == "xtune_autotune_cache_remote_timeout_ms") {
    return ParseInt(name, value, has_value, 1, 600000, &c.remote_timeout_ms);
  }
  if (name == "xtune_autotune_cache_remote_ttl") {
    return ParseInt(name, value, has_value, 0, 1 << 30, &c.remote_ttl_seconds);
  }
  if (name == "xla_gpu_shard_autotuning") {
    return ParseBool(name, value, has_value, &c.shard);
  }
  if (name == "xtune_shard_autotuning_wait_ms") {
    return ParseInt(name, value, has_value, 0, 1 << 30, &c.shard_wait_ms);
  }
  if (name == "xtune_shard_autotuning_lease_ms") {
    return ParseInt(name, value, has_value, 30, 1 << 30, &c.shard_lease_ms);
  }
  if (name == "xtune_dump_autotune_results_merge") {
    return ParseBool(name, value, has_value, &c.dump_merge);
  }
  if (name == "xtune_autotune_details") {
    return ParseBool(name, value, has_value, &a.record_candidates);
  }
  if (name == "xtune_adaptive_timing") {
    return ParseBool(name, value, has_value, &a.adaptive_timing);
  }
  if (name == "xtune_cost_model") {
    return ParseBool(name, value, has_value, &a.cost_model);
  }
  if (name == "xtune_autotune_device_match") {
    if (value == "exact") {
      a.device_match = AutotuneOptions::DeviceMatch::kExact;
    } else if (value == "arch") {
      a.device_match = AutotuneOptions::DeviceMatch::kArch;
    } else if (value == "any") {
      a.device_match = AutotuneOptions::DeviceMatch::kAny;
    } else {
      return Bad(name, value, "exact, arch or any");
    }
    return absl::OkStatus();
  }
  if (name == "xtune_verify_cached_results") {
    return ParseBool(name, value, has_value, &a.verify_cached);
  }
  if (name == "xtune_in_module_timing") {
    return ParseBool(name, value, has_value, &a.in_module_timing);
  }
  return absl::NotFoundError(absl::StrCat("unknown XLA flag '--", name, "'"));
}

absl::Status ApplyXlaFlagsEnv(absl::string_view env, XlaFlags* flags,
                              std::vector<std::string>* warnings) {
  for (const std::string& token : Tokenize(env)) {
    std::string name, value;
    bool has_value;
    if (!SplitFlag(token, &name, &value, &has_value)) {
      warnings->push_back(
          absl::StrCat("XLA_FLAGS: ignoring '", token, "' (not a --flag)"));
      continue;
    }
    absl::Status s = ApplyXlaFlag(name, value, has_value, flags);
    if (s.code() == absl::StatusCode::kNotFound) {
      warnings->push_back(
          absl::StrCat("XLA_FLAGS: ignoring unknown flag '--", name, "'"));
    } else if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("XLA_FLAGS: ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyKnownXlaFlag(absl::string_view name, absl::string_view value,
                               bool has_value, XlaFlags* flags) {
  absl::Status s = ApplyXlaFlag(name, value, has_value, flags);
  if (s.code() == absl::StatusCode::kNotFound) {
    return absl::InvalidArgumentError(
        absl::StrCat(s.message(), " (known: --",
                     absl::StrJoin(KnownXlaFlags(), ", --"), ")"));
  }
  return s;
}

absl::Status ApplyXlaFlagArgs(const std::vector<std::string>& args,
                              XlaFlags* flags) {
  for (const std::string& arg : args) {
    std::string name, value;
    bool has_value;
    if (!SplitFlag(arg, &name, &value, &has_value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", arg, "' is not a flag (expected --name=value)"));
    }
    XTUNE_RETURN_IF_ERROR(ApplyKnownXlaFlag(name, value, has_value, flags));
  }
  return absl::OkStatus();
}

absl::Status ApplyXlaFlagsFromEnvironment(XlaFlags* flags) {
  const char* env = std::getenv("XLA_FLAGS");
  if (env == nullptr) return absl::OkStatus();
  std::vector<std::string> warnings;
  XTUNE_RETURN_IF_ERROR(ApplyXlaFlagsEnv(env, flags, &warnings));
  for (const std::string& w : warnings) {
    std::cerr << "xtune: warning: " << w << "\n";
  }
  return absl::OkStatus();
}

}  // namespace xtune
