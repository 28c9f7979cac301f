#include "cache/inspect.h"

#include <cstring>


#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cache/config_proto.h"
#include "google/protobuf/text_format.h"

namespace xtune {
namespace {

// "name = SHAPE opcode(...)" -> (shape, opcode); false for other lines.
bool SplitInstruction(absl::string_view line, std::string* shape,
                      std::string* op) {
  line = absl::StripAsciiWhitespace(line);
  absl::ConsumePrefix(&line, "ROOT ");
  size_t eq = line.find(" = ");
  if (eq == absl::string_view::npos) return false;
  absl::string_view rest = line.substr(eq + 3);
  // The shape ends at the first space outside brackets/parentheses.
  int depth = 0;
  size_t i = 0;
  for (; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ' ' && depth == 0) break;
  }
  if (i >= rest.size()) return false;
  absl::string_view s = rest.substr(0, i);
  absl::string_view o = rest.substr(i + 1);
  o = o.substr(0, o.find('('));
  // Drop layouts for brevity: f32[32,512]{1,0} -> f32[32,512].
  std::string compact;
  depth = 0;
  for (char c : s) {
    if (c == '{') ++depth;
    if (depth == 0) compact += c;
    if (c == '}') --depth;
  }
  *shape = compact;
  *op = std::string(o);
  return true;
}

int64_t Lcs(const std::vector<absl::string_view>& a,
            const std::vector<absl::string_view>& b,
            std::vector<std::vector<int>>* table) {
  table->assign(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      (*table)[i][j] = a[i] == b[j]
                           ? (*table)[i + 1][j + 1] + 1
                           : std::max((*table)[i + 1][j], (*table)[i][j + 1]);
    }
  }
  return (*table)[0][0];
}

}  // namespace

// A tolerant line scan rather than ir/parser: XLA's files hold fusions with
// ops outside xtune's HLO subset, and a summary must not fail on them.
std::string SummarizeFusionText(absl::string_view hlo) {
  // A library call's key (XLA's gemm algorithm picker's): one instruction,
  // "shape custom-call(operand shapes), custom_call_target=\"...\", ...".
  const size_t call = hlo.find(" custom-call(");
  if (!absl::StartsWith(hlo, "{") && call != absl::string_view::npos) {
    const size_t open = call + std::strlen(" custom-call(");
    const size_t close = hlo.find("), ", open);
    std::string target = "?";
    const size_t t = hlo.find("custom_call_target=\"");
    if (t != absl::string_view::npos) {
      const size_t start = t + std::strlen("custom_call_target=\"");
      target = std::string(hlo.substr(start, hlo.find('"', start) - start));
    }
    return absl::StrCat(
        "custom-call ", target, " ", hlo.substr(0, call), " <- ",
        close == absl::string_view::npos ? "?"
                                         : hlo.substr(open, close - open));
  }
  std::vector<std::string> params;
  std::string root_shape, root_op, last_shape, last_op;
  int ops = 0;
  bool saw_root = false;
  for (absl::string_view line : absl::StrSplit(hlo, '\n')) {
    std::string shape, op;
    if (!SplitInstruction(line, &shape, &op)) continue;
    ++ops;
    if (op == "parameter") params.push_back(shape);
    last_shape = shape;
    last_op = op;
    if (absl::StrContains(line, "ROOT ")) {
      root_shape = shape;
      root_op = op;
      saw_root = true;
    }
  }
  if (ops == 0) return "(no instructions)";
  if (!saw_root) {  // canonical text: the last instruction is the root
    root_shape = last_shape;
    root_op = last_op;
  }
  return absl::StrCat(root_op, " ", root_shape, " <- ",
                      params.empty() ? "()" : absl::StrJoin(params, ", "), " (",
                      ops, " ops)");
}

std::string ResultConfigText(const xla::AutotuneResult& result) {
  const auto* oneof = result.GetDescriptor()->FindOneofByName("key");
  const auto* field =
      result.GetReflection()->GetOneofFieldDescriptor(result, oneof);
  if (field == nullptr) return "(no config)";
  const auto& m = result.GetReflection()->GetMessage(result, field);
  // Any payloads stay bytes (XLA's config types are not linked in), as in
  // XLA's files, and nothing is logged about them.
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.SetExpandAny(false);
  std::string body;
  printer.PrintToString(m, &body);
  return absl::StrCat(field->name(), " {",
                      absl::StripTrailingAsciiWhitespace(body), "}");
}

std::string ResultMeaning(const xla::AutotuneResult& result) {
  if (result.has_gemm()) {
    const int64_t a = result.gemm().algorithm();
    if (a == -1) {
      return "the cuBLAS library gemm with the library's default algorithm "
             "(XLA's -1, se::blas::kDefaultAlgorithm; cuBLASLt: its "
             "heuristic's first)";
    }
    return absl::StrCat("the cuBLAS library gemm, algorithm ", a,
                        " (cuBLASLt and xtune's cuda_cublaslt: the ", a,
                        "th of the library's heuristic list for the shape; "
                        "legacy cuBLAS: cublasGemmAlgo_t ", a, ")");
  }
  if (result.has_triton()) {
    const auto& t = result.triton();
    return absl::StrCat("a Triton gemm kernel: ", t.block_m(), "x",
                        t.block_n(), "x", t.block_k(), " tiles (m x n x k), "
                        "split_k ", t.split_k(), ", ", t.num_stages(),
                        " pipeline stages, ", t.num_warps(), " warps, ",
                        t.num_ctas(), " CTAs");
  }
  if (result.has_conv()) {
    return absl::StrCat("cuDNN convolution algorithm ",
                        result.conv().algorithm(), ", tensor ops ",
                        result.conv().tensor_ops_enabled() ? "on" : "off",
                        " (cudnnConvolutionFwdAlgo_t): xtune's cuDNN candidate "
                        "(cuda_cudnn) for a forward or bias+activation call");
  }
  if (result.has_cuda_conv_plan()) {
    return "a cuDNN execution plan: xtune does not run cuDNN plans yet";
  }
  if (result.has_algorithm()) {
    return absl::StrCat("cuDNN engine ", result.algorithm().algo_id(),
                        result.algorithm().tuning_knobs_size() > 0 ? " with tuning knobs" : "",
                        " of the device's cuDNN version: xtune does not run cuDNN "
                        "engines yet (its cuDNN candidate runs the legacy algorithms)");
  }
  if (result.has_custom_kernel_fusion()) {
    return absl::StrCat("XLA's custom kernel ",
                        result.custom_kernel_fusion().kernel_index(),
                        ": xtune does not run XLA's custom kernels");
  }
  if (result.has_cpu_gemm()) {
    const auto& g = result.cpu_gemm();
    return absl::StrCat("xtune's generated CPU gemm: blocks ", g.mc(), "x",
                        g.nc(), "x", g.kc(), " (m x n x k), register tile ",
                        g.mr(), "x", g.nr(), ", split_k ", g.split_k(), ", ",
                        g.threads(), " threads");
  }
  if (result.has_cpu_library_gemm()) {
    return absl::StrCat("OpenBLAS sgemm and xtune's epilogue, ",
                        result.cpu_library_gemm().threads(), " threads");
  }
  if (result.has_cpu_streaming()) {
    const auto& c = result.cpu_streaming();
    using StreamingKey = xla::AutotuneResult::CpuStreamingKey;
    return absl::StrCat("xtune's CPU ", StreamingKey::Kind_Name(c.kind()),
                        " kernel: vector width ", c.vector_width(), ", unroll ",
                        c.unroll(), ", ", c.per_task(), " per task, ",
                        c.threads(), " threads");
  }
  if (result.has_other()) {
    const std::string& name = result.other().name();
    if (name == "CUBLAS" || name == "CUBLASLT" || name == "CUBLAS_FISSION" ||
        name == "CUBLASLT_FISSION") {
      xla::AutotuneResult gemm;
      if (result.other().config().UnpackTo(gemm.mutable_gemm())) {
        return absl::StrCat("XLA's ", name, ": ", ResultMeaning(gemm));
      }
      return absl::StrCat("XLA's ", name, " without a GemmKey");
    }
    if (name == "NATIVE_EMITTER") {
      return "XLA's NATIVE_EMITTER: the compiler's own kernel, not Triton "
             "(xtune: the fusion's default generated kernel)";
    }
    if (name.find(':') == std::string::npos) {
      return absl::StrCat("XLA's ", name, " backend: not run by xtune");
    }
    return absl::StrCat("an xtune kernel config (", name, ")");
  }
  return "no config";
}

CacheStats ComputeStats(const xla::AutotuneResults& results) {
  CacheStats s;
  for (const auto& e : results.results()) {
    ++s.entries;
    ++s.by_device[e.device()];
    ++s.by_version[e.version()];
    ++s.by_key_type[KeyTypeName(e.result())];
    if (e.result().has_failure()) ++s.failures;
  }
  return s;
}

CacheDiff DiffCaches(const xla::AutotuneResults& a,
                     const xla::AutotuneResults& b, int current_version) {
  absl::flat_hash_map<AutotuneKey, const xla::AutotuneResult*> in_a, in_b;
  for (const auto& e : a.results())
    in_a[FileKeyOfEntry(e, current_version)] = &e.result();
  for (const auto& e : b.results())
    in_b[FileKeyOfEntry(e, current_version)] = &e.result();
  CacheDiff d;
  for (const auto& [key, ra] : in_a) {
    auto it = in_b.find(key);
    if (it == in_b.end()) {
      d.removed.push_back(key);
    } else if (SameResult(*ra, *it->second)) {
      ++d.same;
    } else if (ResultConfigText(*ra) != ResultConfigText(*it->second)) {
      d.changed.push_back({key, *ra, *it->second});
    } else {
      d.retimed.push_back({key, *ra, *it->second});
    }
  }
  for (const auto& [key, rb] : in_b) {
    if (!in_a.contains(key)) d.added.push_back(key);
  }
  auto by_key = [](const auto& x, const auto& y) { return x.key < y.key; };
  std::sort(d.added.begin(), d.added.end());
  std::sort(d.removed.begin(), d.removed.end());
  std::sort(d.changed.begin(), d.changed.end(), by_key);
  std::sort(d.retimed.begin(), d.retimed.end(), by_key);
  return d;
}

bool DeviceMatches(absl::string_view device, absl::string_view pattern) {
  return absl::StrContains(device, pattern);
}

xla::AutotuneResults PruneCache(const xla::AutotuneResults& in,
                                const PruneOptions& options,
                                xla::AutotuneResults* removed) {
  xla::AutotuneResults out;
  out.set_version(in.version());
  if (removed != nullptr) {
    removed->Clear();
    removed->set_version(in.version());
  }
  for (const auto& e : in.results()) {
    bool keep = true;
    if (options.keep_hlo && !options.keep_hlo->count(e.hlo())) keep = false;
    if (options.keep_device && !DeviceMatches(e.device(), *options.keep_device)) {
      keep = false;
    }
    if (options.keep_version &&
        KeyOfEntry(e, *options.keep_version).version != *options.keep_version) {
      keep = false;
    }
    if (keep) {
      *out.add_results() = e;
    } else if (removed != nullptr) {
      *removed->add_results() = e;
    }
  }
  return out;
}

std::string CountByDeviceAndVersion(const xla::AutotuneResults& results,
                                    absl::string_view indent) {
  std::map<std::pair<std::string, int>, int64_t> counts;
  for (const auto& e : results.results()) ++counts[{e.device(), e.version()}];
  std::string out;
  for (const auto& [dv, n] : counts) {
    absl::StrAppend(&out, indent, n, "  ",
                    dv.second == 0 ? std::string("no version (current)")
                                   : absl::StrCat("version ", dv.second),
                    "  ", dv.first, "\n");
  }
  return out;
}

std::string LineDiff(absl::string_view a, absl::string_view b, int context) {
  std::vector<absl::string_view> la = absl::StrSplit(a, '\n');
  std::vector<absl::string_view> lb = absl::StrSplit(b, '\n');
  std::vector<std::vector<int>> t;
  Lcs(la, lb, &t);
  // Walk the table into (tag, line) pairs.
  std::vector<std::pair<char, absl::string_view>> ops;
  size_t i = 0, j = 0;
  while (i < la.size() || j < lb.size()) {
    if (i < la.size() && j < lb.size() && la[i] == lb[j]) {
      ops.push_back({' ', la[i]});
      ++i;
      ++j;
    } else if (i < la.size() &&
               (j == lb.size() || t[i + 1][j] >= t[i][j + 1])) {
      ops.push_back({'-', la[i++]});
    } else {
      ops.push_back({'+', lb[j++]});
    }
  }
  std::vector<bool> show(ops.size(), false);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].first == ' ') continue;
    for (int c = -context; c <= context; ++c) {
      int64_t x = static_cast<int64_t>(k) + c;
      if (x >= 0 && x < static_cast<int64_t>(ops.size())) show[x] = true;
    }
  }
  std::string out;
  bool skipped = false;
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!show[k]) {
      skipped = true;
      continue;
    }
    if (skipped) out += "  ...\n";
    skipped = false;
    absl::StrAppend(&out, std::string(1, ops[k].first), " ", ops[k].second,
                    "\n");
  }
  if (skipped && !out.empty()) out += "  ...\n";
  return out;
}

MissExplanation ExplainMiss(const xla::AutotuneResults& results,
                            const AutotuneKey& key, int current_version) {
  MissExplanation x;
  if (results.results_size() == 0) {
    x.cache_empty = true;
    return x;
  }
  std::vector<absl::string_view> want = absl::StrSplit(key.hlo, '\n');
  absl::flat_hash_set<absl::string_view> want_lines(want.begin(), want.end());
  // Score: lines in common (cheap, by set), then device, then version.
  const xla::AutotuneResults::Entry* best = nullptr;
  std::tuple<bool, int64_t, bool, bool> best_score;
  for (const auto& e : results.results()) {
    AutotuneKey k = KeyOfEntry(e, current_version);
    if (k == key) {
      x.hit = true;
      x.nearest = k;
      x.result = e.result();
      return x;
    }
    int64_t common = 0;
    for (absl::string_view line : absl::StrSplit(e.hlo(), '\n')) {
      common += want_lines.contains(line) ? 1 : 0;
    }
    std::tuple<bool, int64_t, bool, bool> score{k.hlo == key.hlo, common,
                                                k.device == key.device,
                                                k.version == key.version};
    if (best == nullptr || score > best_score) {
      best = &e;
      best_score = score;
    }
  }
  x.nearest = KeyOfEntry(*best, current_version);
  x.device_differs = x.nearest.device != key.device;
  x.version_differs = x.nearest.version != key.version;
  x.text_differs = x.nearest.hlo != key.hlo;
  if (x.text_differs) x.text_diff = LineDiff(x.nearest.hlo, key.hlo);
  return x;
}

}  // namespace xtune
