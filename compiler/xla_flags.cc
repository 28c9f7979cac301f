#include "compiler/xla_flags.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

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
          "xla_gpu_experimental_autotune_cache_mode",
          "xtune_dump_autotune_results_merge",
          "xtune_autotune_details"};
}

absl::Status ApplyXlaFlag(absl::string_view name, absl::string_view value,
                          bool has_value, XlaFlags* flags) {
  AutotuneOptions& a = flags->autotune;
  if (name == "xla_gpu_autotune_level") {
    return ParseInt(name, value, has_value, 0, 5, &a.level);
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
  if (name == "xtune_dump_autotune_results_merge") {
    return ParseBool(name, value, has_value, &c.dump_merge);
  }
  if (name == "xtune_autotune_details") {
    return ParseBool(name, value, has_value, &a.record_candidates);
  }
  return absl::NotFoundError(absl::StrCat("unknown XLA flag '--", name, "'"));
}

absl::Status ApplyXlaFlagsEnv(absl::string_view env, XlaFlags* flags,
                              std::vector<std::string>* warnings) {
  for (const std::string& token : Tokenize(env)) {
    if (token.rfind("--", 0) != 0) {
      warnings->push_back(
          absl::StrCat("XLA_FLAGS: ignoring '", token, "' (not a --flag)"));
      continue;
    }
    std::string body = token.substr(2);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : body.substr(eq + 1);
    absl::Status s = ApplyXlaFlag(name, value, eq != std::string::npos, flags);
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

}  // namespace xtune
