#include "cache/results_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

constexpr char kWriter[] = "xtune";
constexpr char kTextHeader[] =
    "# xtune-file: autotune results written by xtune";
constexpr char kTextCheck[] = "# xtune-check: ";

std::string Deterministic(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

// Collects the first text-format error with its position.
class ErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) {
      first_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
    }
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

absl::Status CheckVersion(const xla::AutotuneResults& r,
                          absl::string_view source) {
  if (r.version() != 3) {
    return absl::FailedPreconditionError(
        absl::StrCat(source, ": autotune results version ", r.version(),
                     " is not supported (expected 3)"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsTextProtoPath(absl::string_view path) {
  for (absl::string_view ext :
       {".txt", ".txtpb", ".textproto", ".prototxt", ".pbtxt"}) {
    if (absl::EndsWith(path, ext)) return true;
  }
  return false;
}

absl::StatusOr<xla::AutotuneResult> ParseAutotuneResultText(
    absl::string_view text, absl::string_view source) {
  xla::AutotuneResult r;
  google::protobuf::TextFormat::Parser parser;
  ErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &r)) {
    return absl::DataLossError(absl::StrCat(
        source, ": not a valid AutotuneResult textproto",
        errors.first().empty() ? "" : absl::StrCat(" (", errors.first(), ")")));
  }
  return r;
}

absl::StatusOr<xla::AutotuneResults> ParseAutotuneResults(
    absl::string_view data, bool text, absl::string_view source) {
  xla::AutotuneResults r;
  if (data.empty()) {
    return absl::DataLossError(absl::StrCat(
        source, ": the file is empty (not an autotune results file)"));
  }
  if (text) {
    google::protobuf::TextFormat::Parser parser;
    ErrorCollector errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(std::string(data), &r)) {
      if (absl::StrContains(data, "hlo_fingerprint") && absl::StrContains(data, "entries {")) {
        // What XLA's newer autotuner (xla/backends/autotuner) dumps: entries
        // keyed by a device hash and an HLO fingerprint, not by the text
        // keys of AutotuneResults.
        return absl::UnimplementedError(absl::StrCat(
            source, ": this is the cache format of XLA's newer autotuner (\"entries\" "
            "keyed by hlo_fingerprint and a device hash, as recent XLA/JAX versions dump "
            "with --xla_gpu_dump_autotune_results_to); xtune reads XLA's AutotuneResults "
            "format (\"results\" keyed by device and HLO text), which XLA's other "
            "versions write"));
      }
      return absl::DataLossError(absl::StrCat(
          source, ":",
          errors.first().empty() ? " not a valid textproto" : errors.first(),
          " (expected XLA AutotuneResults textproto)"));
    }
    // xtune's own text files: header line first, check line last; the
    // check covers the bytes between them.
    if (absl::StartsWith(data, kTextHeader)) {
      size_t at = data.rfind(kTextCheck);
      size_t body_start = data.find('\n');
      if (at == absl::string_view::npos || at < body_start) {
        return absl::DataLossError(
            absl::StrCat(source,
                         ": the file is incomplete (written by xtune but its "
                         "closing check line is missing: truncated?)"));
      }
      absl::string_view line = data.substr(at + strlen(kTextCheck));
      line = line.substr(0, line.find('\n'));
      int64_t entries = -1;
      std::string hash;
      for (absl::string_view kv :
           absl::StrSplit(line, ' ', absl::SkipEmpty())) {
        if (absl::ConsumePrefix(&kv, "entries=")) {
          if (!absl::SimpleAtoi(kv, &entries)) entries = -1;
        } else if (absl::ConsumePrefix(&kv, "sha256=")) {
          hash = std::string(kv);
        }
      }
      if (entries != r.results_size() ||
          hash != Sha256Hex(data.substr(body_start + 1, at - body_start - 1))) {
        return absl::DataLossError(absl::StrCat(
            source, ": the file does not match its check line (",
            r.results_size(), " entries read, ", entries,
            " written): truncated or altered. If you "
            "edited it by hand, delete its two '# xtune-' lines to load it as "
            "a plain XLA file"));
      }
    }
  } else {
    google::protobuf::io::ArrayInputStream stream(
        data.data(), static_cast<int>(data.size()));
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetRecursionLimit(64);
    if (data.size() > static_cast<size_t>(INT32_MAX) ||
        !r.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
      return absl::DataLossError(absl::StrCat(
          source,
          ": not a valid binary AutotuneResults proto (truncated or "
          "corrupt; a textproto file needs a .txt/.textproto/.pbtxt name)"));
    }
    if (r.has_xtune_header()) {
      if (!r.has_xtune_check()) {
        return absl::DataLossError(absl::StrCat(
            source,
            ": the file is incomplete (written by xtune but its check "
            "is missing: truncated?)"));
      }
      // The check is the file's last bytes and covers all before it.
      xla::AutotuneResults tail;
      *tail.mutable_xtune_check() = r.xtune_check();
      std::string tail_bytes = Deterministic(tail);
      if (r.xtune_check().entries() != r.results_size() ||
          !absl::EndsWith(data, tail_bytes) ||
          r.xtune_check().sha256() !=
              Sha256Hex(data.substr(0, data.size() - tail_bytes.size()))) {
        return absl::DataLossError(absl::StrCat(
            source, ": the file does not match its check (", r.results_size(),
            " entries read, ", r.xtune_check().entries(),
            " written): truncated or altered"));
      }
    }
  }
  XTUNE_RETURN_IF_ERROR(CheckVersion(r, source));
  r.clear_xtune_header();
  r.clear_xtune_check();
  return r;
}

std::string SerializeAutotuneResults(const xla::AutotuneResults& in,
                                     bool text) {
  if (in.has_xtune_header() || in.has_xtune_check()) {
    xla::AutotuneResults plain = in;
    plain.clear_xtune_header();
    plain.clear_xtune_check();
    return SerializeAutotuneResults(plain, text);
  }
  if (text) {
    std::string body;
    google::protobuf::TextFormat::Printer printer;
    printer.PrintToString(in, &body);
    return absl::StrCat(kTextHeader, "\n", body, kTextCheck,
                        "entries=", in.results_size(),
                        " sha256=", Sha256Hex(body), "\n");
  }
  // Header first (field order on the wire is free), then the entries
  // (field 4, deterministic bytes), then the check over everything before
  // it: a cut anywhere loses or breaks the check.
  // The header's bytes come first, so a file cut anywhere after them lacks
  // its check, and one cut inside them does not parse.
  xla::AutotuneResults head;
  head.mutable_xtune_header()->set_writer(kWriter);
  xla::AutotuneResults version;
  version.set_version(in.version());
  std::string out = Deterministic(head) + Deterministic(version);
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    constexpr uint32_t kResultsTag = (4 << 3) | 2;  // field 4, length-delimited
    for (const auto& e : in.results()) {
      coded.WriteVarint32(kResultsTag);
      coded.WriteVarint64(e.ByteSizeLong());
      e.SerializeWithCachedSizes(&coded);
    }
  }
  xla::AutotuneResults tail;
  tail.mutable_xtune_check()->set_entries(in.results_size());
  tail.mutable_xtune_check()->set_sha256(Sha256Hex(out));
  return out + Deterministic(tail);
}

absl::StatusOr<xla::AutotuneResults> ReadAutotuneResults(
    const std::string& path) {
  absl::StatusOr<std::string> data = ReadFile(path);
  if (!data.ok()) {
    if (data.status().code() == absl::StatusCode::kNotFound) {
      return absl::NotFoundError(
          absl::StrCat("autotune results file '", path, "' does not exist"));
    }
    return data.status();
  }
  return ParseAutotuneResults(*data, IsTextProtoPath(path), path);
}

absl::Status WriteAutotuneResults(const std::string& path,
                                  const xla::AutotuneResults& results) {
  // A writer killed before its rename left its temporary file: gone now.
  std::filesystem::path target(path);
  RemoveStaleTemporaries(target.parent_path().string(), target.filename().string());
  return WriteFileAtomically(
      path, SerializeAutotuneResults(results, IsTextProtoPath(path)));
}

}  // namespace xtune
