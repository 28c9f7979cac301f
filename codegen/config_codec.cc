#include "codegen/config_codec.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace xtune {

void ConfigToOtherKey(const KernelConfig& config, xla::AutotuneResult* result) {
  result->mutable_other()->set_name(config.ToString());
}

absl::StatusOr<KernelConfig> ConfigFromOtherKey(
    const xla::AutotuneResult& result) {
  if (result.key_case() != xla::AutotuneResult::kOther ||
      result.other().has_config()) {
    return absl::UnimplementedError("not a 'kind:name=value' other key");
  }
  const std::string& name = result.other().name();
  absl::StatusOr<KernelConfig> config = ParseKernelConfig(name);
  if (!config.ok()) {
    return absl::UnimplementedError(
        absl::StrCat("cannot read the config '", name, "'"));
  }
  return config;
}

absl::Status ConfigToTritonKey(const KernelConfig& config,
                               xla::AutotuneResult* result) {
  if (config.kind() != "triton_gemm") {
    return absl::InvalidArgumentError(
        absl::StrCat("'", config.kind(), "' is not a triton_gemm config"));
  }
  for (const char* p : kTritonGemmParams) {
    if (!config.Has(p)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "triton_gemm config '", config.ParamsString(), "' lacks '", p, "'"));
    }
  }
  auto* k = result->mutable_triton();
  k->set_block_m(config.Get("block_m"));
  k->set_block_n(config.Get("block_n"));
  k->set_block_k(config.Get("block_k"));
  k->set_split_k(config.Get("split_k"));
  k->set_num_stages(config.Get("num_stages"));
  k->set_num_warps(config.Get("num_warps"));
  k->set_num_ctas(config.Get("num_ctas"));
  return absl::OkStatus();
}

absl::StatusOr<KernelConfig> ConfigFromTritonKey(
    const xla::AutotuneResult& result) {
  if (result.key_case() != xla::AutotuneResult::kTriton) {
    return absl::UnimplementedError("not a triton key");
  }
  const auto& k = result.triton();
  return KernelConfig("triton_gemm", {{"block_m", k.block_m()},
                                      {"block_n", k.block_n()},
                                      {"block_k", k.block_k()},
                                      {"split_k", k.split_k()},
                                      {"num_stages", k.num_stages()},
                                      {"num_warps", k.num_warps()},
                                      {"num_ctas", k.num_ctas()}});
}

namespace {

// Keeps the first error of the text parser, with its position.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!error_.empty()) return;
    error_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

}  // namespace

absl::Status ParseTextProto(absl::string_view textproto,
                            absl::string_view what,
                            google::protobuf::Message* message,
                            std::set<std::string>* present,
                            bool allow_unknown_fields) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(allow_unknown_fields);
  google::protobuf::TextFormat::ParseInfoTree locations;
  parser.WriteLocationsTo(&locations);
  std::string text(textproto);
  if (!parser.ParseFromString(text, message)) {
    std::string quoted =
        textproto.size() <= 200 ? absl::StrCat(" '", textproto, "'") : "";
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": cannot parse", quoted, " as ",
        message->GetDescriptor()->name(), ": ",
        errors.error().empty() ? "malformed text" : errors.error()));
  }
  if (present != nullptr) {
    const google::protobuf::Descriptor* d = message->GetDescriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      if (locations.GetLocation(d->field(i), -1).line >= 0) {
        present->insert(d->field(i)->name());
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace xtune
