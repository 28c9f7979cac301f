#include "autotune/tuning_log.h"

#include <cmath>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xtune {
namespace {

std::string Quote(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

std::string Duration(double seconds) {
  int64_t nanos = static_cast<int64_t>(std::llround(seconds * 1e9));
  int64_t s = nanos / 1000000000;
  nanos %= 1000000000;
  return s > 0 ? absl::StrCat("{ seconds: ", s, " nanos: ", nanos, " }")
               : absl::StrCat("{ nanos: ", nanos, " }");
}

const char* XtuneReason(FailureKind kind) {
  switch (kind) {
    case FailureKind::kCompileError: return "COMPILE_ERROR";
    case FailureKind::kCrash: return "CRASH";
    case FailureKind::kTimeout: return "TIMEOUT";
    case FailureKind::kWrongResult: return "WRONG_RESULT";
    case FailureKind::kRunError: return "RUN_ERROR";
    default: return "NONE";
  }
}

}  // namespace

const char* XlaFailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kWrongResult: return "WRONG_RESULT";
    case FailureKind::kCompileError: return "DISQUALIFIED";
    default: return "UNKNOWN";
  }
}

std::string TuningLogsToText(const std::vector<FusionLog>& logs) {
  std::string out =
      "# xtune autotuning log: every candidate of every tuned fusion.\n";
  for (const FusionLog& f : logs) {
    absl::StrAppend(&out, "logs {\n  fusion: ", Quote(f.fusion), "\n  key: ",
                    Quote(f.key.ToString()), "\n");
    for (const CandidateLog& c : f.candidates) {
      absl::StrAppend(&out, "  candidates {\n    config: ",
                      Quote(c.config.ToString()), "\n");
      if (c.median_seconds.has_value()) {
        absl::StrAppend(&out, "    run_time ", Duration(*c.median_seconds), "\n");
        for (double s : c.seconds) {
          absl::StrAppend(&out, "    samples ", Duration(s), "\n");
        }
        for (double s : c.round_seconds) {
          absl::StrAppend(&out, "    round_medians ", Duration(s), "\n");
        }
      }
      if (c.failure != FailureKind::kNone) {
        absl::StrAppend(&out, "    failure { kind: ", XlaFailureKindName(c.failure),
                        " msg: ", Quote(c.message), " xtune_reason: ",
                        XtuneReason(c.failure), " }\n");
      }
      absl::StrAppend(&out, "  }\n");
    }
    for (const PrunedLog& p : f.pruned) {
      absl::StrAppend(&out, "  pruned { config: ", Quote(p.config.ToString()),
                      " predicted_ratio: ", absl::StrFormat("%.3g", p.predicted_ratio),
                      " }\n");
    }
    if (f.selected.has_value()) {
      absl::StrAppend(&out, "  selected: ", Quote(f.selected->ToString()), "\n");
    }
    absl::StrAppend(&out, "  noise_band: ", f.noise_band, "\n");
    if (f.default_config.has_value()) {
      absl::StrAppend(&out, "  default_config: ", Quote(f.default_config->ToString()), "\n");
    }
    if (f.checked_only) absl::StrAppend(&out, "  checked_only: true\n");
    if (!f.seeded_from.empty()) {
      absl::StrAppend(&out, "  seeded_from: ", Quote(f.seeded_from), "\n");
    }
    for (const FusionLog::InModule& m : f.in_module) {
      absl::StrAppend(&out, "  in_module { config: ", Quote(m.config.ToString()),
                      " run_time ", Duration(m.median_seconds), " }\n");
    }
    if (!f.in_module.empty()) {
      absl::StrAppend(&out, "  in_module_noise_band: ", f.in_module_band, "\n");
      if (f.isolated_selected.has_value()) {
        absl::StrAppend(&out, "  isolated_selected: ",
                        Quote(f.isolated_selected->ToString()), "\n");
      }
    }
    absl::StrAppend(&out, "}\n");
  }
  return out;
}

}  // namespace xtune
