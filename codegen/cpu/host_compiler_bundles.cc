// HostCompiler's kernels and bundles (LoadKernel, LoadKernels): the
// sources of one fusion's candidates compile as one translation unit
// (kernel_bundle.h), and each source's <key>.entry says where it went, so
// the cache stays content-addressed by source.
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/cpu/host_compiler.h"
#include "codegen/cpu/kernel_bundle.h"
#include "util/file.h"

namespace xtune::cpu {
namespace {

bool IsHexKey(absl::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

// "_b<index>", as BundleSuffix writes it.
bool IsBundleSuffix(absl::string_view s) {
  if (!absl::ConsumePrefix(&s, "_b") || s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<LoadedObject> HostCompiler::LoadBundle(
    const std::string& bundle_key) {
  {
    MutexLock lock(&bundles_mu_);
    auto it = loaded_bundles_.find(bundle_key);
    if (it != loaded_bundles_.end()) {
      if (std::shared_ptr<LoadedObject> alive = it->second.lock()) return alive;
    }
  }
  std::shared_ptr<LoadedObject> object = LoadCached(bundle_key);
  if (object == nullptr) return nullptr;
  MutexLock lock(&bundles_mu_);
  std::weak_ptr<LoadedObject>& slot = loaded_bundles_[bundle_key];
  if (std::shared_ptr<LoadedObject> alive = slot.lock()) return alive;
  slot = object;
  return object;
}

std::optional<LoadedKernel> HostCompiler::FindKernel(
    const std::string& key, absl::Span<const std::string> symbols) {
  if (std::shared_ptr<LoadedObject> own = LoadCached(key)) {
    return LoadedKernel{std::move(own), ""};
  }
  // "<bundle key> _b<index>\n". Anything else (damaged, from another
  // version) is a miss, and the source compiles again.
  absl::StatusOr<std::string> entry =
      ReadFile(absl::StrCat(kernel_dir_, "/", key, ".entry"));
  if (!entry.ok()) return std::nullopt;
  std::vector<std::string> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(*entry), ' ');
  if (fields.size() != 2 || !IsHexKey(fields[0]) || !IsBundleSuffix(fields[1])) {
    return std::nullopt;
  }
  LoadedKernel found{LoadBundle(fields[0]), std::move(fields[1])};
  if (found.object == nullptr) return std::nullopt;
  for (const std::string& symbol : symbols) {
    if (found.Symbol(symbol) == nullptr) return std::nullopt;
  }
  return found;
}

absl::StatusOr<LoadedKernel> HostCompiler::LoadKernel(
    absl::string_view source, absl::Span<const std::string> symbols) {
  if (std::optional<LoadedKernel> found = FindKernel(KeyOf(source), symbols)) {
    return *std::move(found);
  }
  return CompileAlone(source);
}

absl::StatusOr<LoadedKernel> HostCompiler::CompileAlone(absl::string_view source) {
  absl::StatusOr<std::shared_ptr<LoadedObject>> own = CompileAndLoad(source);
  if (!own.ok()) return own.status();
  return LoadedKernel{*std::move(own), ""};
}

std::vector<absl::StatusOr<LoadedKernel>> HostCompiler::LoadKernels(
    absl::Span<const std::string> sources, absl::Span<const std::string> symbols) {
  std::vector<absl::StatusOr<LoadedKernel>> out(
      sources.size(), absl::UnknownError("not compiled"));
  std::vector<size_t> missing;
  std::vector<std::string> keys(sources.size());
  std::map<std::string, size_t> first;  // a repeated source is the first's
  std::vector<std::pair<size_t, size_t>> repeats;
  for (size_t i = 0; i < sources.size(); ++i) {
    keys[i] = KeyOf(sources[i]);
    if (auto [it, added] = first.insert({keys[i], i}); !added) {
      repeats.push_back({i, it->second});
      continue;
    }
    if (std::optional<LoadedKernel> found = FindKernel(keys[i], symbols)) {
      out[i] = *std::move(found);
    } else {
      missing.push_back(i);
    }
  }
  if (missing.size() >= 2) {
    std::vector<std::string> members;
    for (size_t i : missing) members.push_back(sources[i]);
    const std::string text = BundleText(precompiled_header_, members, symbols);
    absl::StatusOr<std::shared_ptr<LoadedObject>> bundle = CompileAndLoad(text);
    if (bundle.ok()) {
      bundles_.fetch_add(1);
      bundled_sources_.fetch_add(static_cast<int64_t>(members.size()));
      const std::string bundle_key = KeyOf(text);
      {
        MutexLock lock(&bundles_mu_);
        std::weak_ptr<LoadedObject>& slot = loaded_bundles_[bundle_key];
        if (slot.expired()) slot = *bundle;
      }
      for (size_t m = 0; m < missing.size(); ++m) {
        const size_t i = missing[m];
        LoadedKernel bundled{*bundle, BundleSuffix(m)};
        bool complete = true;
        for (const std::string& symbol : symbols) {
          complete = complete && bundled.Symbol(symbol) != nullptr;
        }
        if (!complete) continue;  // compiled alone below
        // Best effort: without the entry a later process compiles the
        // source again, which is slower but right.
        WriteFileAtomically(absl::StrCat(kernel_dir_, "/", keys[i], ".entry"),
                            absl::StrCat(bundle_key, " ", bundled.suffix, "\n"))
            .IgnoreError();
        out[i] = std::move(bundled);
      }
    }
  }
  // What the bundle did not give (one source, or a bundle that failed):
  // each alone, for its own object or error.
  for (size_t i : missing) {
    if (!out[i].ok()) out[i] = CompileAlone(sources[i]);
  }
  for (auto [i, of] : repeats) out[i] = out[of];
  return out;
}

}  // namespace xtune::cpu
