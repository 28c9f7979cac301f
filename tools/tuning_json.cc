#include "tools/tuning_json.h"

#include "fusion/fusion_pass.h"

namespace xtune {

std::vector<FusionRow> FusionRows(const CompiledModule& compiled) {
  std::vector<FusionRow> rows;
  for (const FusionTuning& ft : compiled.tuning.fusions) {
    const CompiledFusion* cf = nullptr;
    for (const CompiledFusion& f : compiled.executable->fusions()) {
      if (f.fusion == ft.fusion) cf = &f;
    }
    FusionRow r;
    r.name = ft.fusion->name();
    r.kind = std::string(FusionKindName(ClassifyFusion(*ft.fusion)));
    r.shape = ft.fusion->shape().ToString(false);
    r.config = cf ? cf->config.ToString() : ft.config.ToString();
    r.source = cf && cf->config != ft.config ? "--config" : ConfigSourceName(ft.source);
    r.on_evaluator = cf != nullptr && !cf->fallback_reason.empty();
    r.seconds = ft.chosen_seconds;
    r.default_seconds = ft.default_seconds;
    r.candidates = ft.candidates;
    r.failed = ft.failed;
    rows.push_back(std::move(r));
  }
  return rows;
}

void WriteTuningJson(const CompiledModule& compiled, JsonWriter& out) {
  const TuningStats& s = compiled.tuning.stats;
  out.Key("autotuning").BeginObject();
  out.Key("fusions").Int(s.fusions);
  out.Key("unique").Int(s.unique);
  out.Key("from_cache").Int(s.cache_hits);
  out.Key("hits_by_tier").BeginObject();
  for (const auto& [tier, hits] : s.hits_by_tier) out.Key(tier).Int(hits);
  out.EndObject();
  out.Key("tuned").Int(s.tuned);
  out.Key("default").Int(s.defaults);
  out.Key("overridden").Int(s.overrides);
  out.Key("on_evaluator").Int(s.on_evaluator);
  out.Key("candidates_compiled").Int(s.compiled);
  out.Key("compile_failures").Int(s.compile_failures);
  out.Key("pruned").Int(s.pruned);
  out.Key("timed").Int(s.timed);
  out.Key("stopped_early").Int(s.stopped_early);
  out.Key("wrong").Int(s.wrong);
  out.Key("checked_only").Bool(s.checked_only);
  out.Key("run_failures").Int(s.run_failures);
  out.Key("first_failure").String(s.first_failure);
  out.Key("in_module_retimed").Int(s.in_module);
  out.Key("in_module_changed").Int(s.in_module_changed);
  out.Key("cached_verified").Int(s.cached_verified);
  out.Key("cached_wrong").Int(s.cached_wrong);
  out.Key("seeded").Int(s.seeded);
  out.Key("sharded").Bool(s.sharded);
  out.Key("shard_received").Int(s.shard_received);
  out.Key("shard_taken_over").Int(s.shard_taken_over);
  out.Key("seconds").Double(s.seconds);
  out.Key("summary").String(s.ToString());
  out.EndObject();
  out.Key("fusions").BeginArray();
  auto micros = [](std::optional<double> s) {
    return s ? std::optional<double>(*s * 1e6) : std::nullopt;
  };
  for (const FusionRow& r : FusionRows(compiled)) {
    out.BeginObject();
    out.Key("name").String(r.name).Key("kind").String(r.kind).Key("shape").String(r.shape);
    out.Key("config").String(r.config).Key("source").String(r.source);
    out.Key("on_evaluator").Bool(r.on_evaluator);
    out.Key("time_us").Double(micros(r.seconds)).Key("default_us").Double(micros(r.default_seconds));
    out.Key("candidates").Int(r.candidates).Key("failed").Int(r.failed);
    out.EndObject();
  }
  out.EndArray();
}

}  // namespace xtune
