#include "cache/autotune_cache.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cache/config_proto.h"

namespace xtune {

std::string AutotuneKey::ToString() const {
  return absl::StrCat("<key model='", device, "', hlo='", hlo,
                      "', version=", version, ">");
}

std::optional<AutotuneKey> AutotuneKey::FromString(absl::string_view text) {
  // The device never holds "', hlo='" and the version is the last field,
  // so the first and last separators split the text whatever the HLO holds.
  constexpr absl::string_view kOpen = "<key model='", kHlo = "', hlo='",
                              kVersion = "', version=";
  if (!absl::ConsumePrefix(&text, kOpen) || !absl::ConsumeSuffix(&text, ">")) {
    return std::nullopt;
  }
  size_t hlo = text.find(kHlo);
  size_t version = text.rfind(kVersion);
  if (hlo == absl::string_view::npos || version == absl::string_view::npos ||
      version < hlo + kHlo.size()) {
    return std::nullopt;
  }
  AutotuneKey key;
  key.device = std::string(text.substr(0, hlo));
  key.hlo = std::string(text.substr(hlo + kHlo.size(), version - hlo - kHlo.size()));
  if (!absl::SimpleAtoi(text.substr(version + kVersion.size()), &key.version)) {
    return std::nullopt;
  }
  return key;
}

bool AutotuneKey::operator<(const AutotuneKey& o) const {
  return std::tie(device, hlo, version) < std::tie(o.device, o.hlo, o.version);
}

namespace {

std::string DeterministicBytes(const google::protobuf::Message& m) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace

bool SameResult(const xla::AutotuneResult& a, const xla::AutotuneResult& b) {
  // Bytes, not MessageDifferencer: that one unpacks `Any` payloads (XLA's
  // backend configs), logging for each type it does not know.
  return DeterministicBytes(a) == DeterministicBytes(b);
}

bool IsXlaResultKind(const xla::AutotuneResult& result) {
  if (result.has_other()) {
    // xtune's own BackendConfigKeys are named "kind:params"; XLA's
    // backends are upper-case names ("CUBLAS_FISSION", "NATIVE_EMITTER").
    return result.other().name().find(':') == std::string::npos;
  }
  return result.has_triton() || result.has_gemm() || result.has_conv() ||
         result.has_cuda_conv_plan() || result.has_algorithm() ||
         result.has_custom_kernel_fusion();
}

absl::string_view KeyDevice(absl::string_view device,
                            const xla::AutotuneResult& result) {
  // cuDNN's legacy algorithms (a ConvKey) are one enum in every cuDNN
  // version; its engines and plans (an AlgorithmProto, a plan) are the
  // version's own.
  const bool cudnn = result.has_cuda_conv_plan() || result.has_algorithm();
  if (cudnn) return device;
  constexpr absl::string_view kDnn = ", DNN version: ";
  const size_t at = device.rfind(kDnn);
  return at == absl::string_view::npos ? device : device.substr(0, at);
}

namespace {

// The device an entry is written back with when it is not its lookup
// key's: XLA's device with its ", DNN version" suffix.
std::string FileDevice(const xla::AutotuneResults::Entry& e) {
  return KeyDevice(e.device(), e.result()) == e.device() ? std::string()
                                                         : e.device();
}

}  // namespace

int KeyVersion(const xla::AutotuneResults::Entry& e, int current_version) {
  return e.version() == 0 || IsXlaResultKind(e.result()) ? current_version
                                                          : e.version();
}

AutotuneKey FileKeyOfEntry(const xla::AutotuneResults::Entry& e,
                           int current_version) {
  return AutotuneKey{e.device(), e.hlo(),
                     e.version() == 0 ? current_version : e.version()};
}

AutotuneKey KeyOfEntry(const xla::AutotuneResults::Entry& e,
                       int current_version) {
  return AutotuneKey{std::string(KeyDevice(e.device(), e.result())), e.hlo(),
                     KeyVersion(e, current_version)};
}

void SortEntries(xla::AutotuneResults* results) {
  auto* entries = results->mutable_results();
  std::stable_sort(
      entries->begin(), entries->end(), [](const auto& a, const auto& b) {
        return std::make_tuple(absl::string_view(a.device()),
                               absl::string_view(a.hlo()), a.version()) <
               std::make_tuple(absl::string_view(b.device()),
                               absl::string_view(b.hlo()), b.version());
      });
}

absl::StatusOr<std::optional<CacheHit>> InMemoryAutotuneCache::Lookup(
    const AutotuneKey& key) {
  MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<CacheHit>();
  it->second.used = true;
  return CacheHit{it->second.result, "memory"};
}

absl::Status InMemoryAutotuneCache::Insert(const AutotuneKey& key,
                                           const xla::AutotuneResult& result) {
  MutexLock lock(&mu_);
  Stored& stored = entries_[key];
  stored.result = std::make_shared<const xla::AutotuneResult>(result);
  stored.file_version = key.version;
  stored.file_device.clear();
  return absl::OkStatus();
}

absl::StatusOr<AutotuneCache::Related> InMemoryAutotuneCache::OtherDevices(
    const AutotuneKey& key) {
  Related out;
  MutexLock lock(&mu_);
  for (const auto& [k, stored] : entries_) {
    if (k.hlo == key.hlo && k.version == key.version && k.device != key.device) {
      out.emplace_back(k.device, stored.result);
    }
  }
  return out;
}

absl::Status InMemoryAutotuneCache::Erase(const AutotuneKey& key) {
  MutexLock lock(&mu_);
  entries_.erase(key);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> InMemoryAutotuneCache::Load(
    const xla::AutotuneResults& results, absl::string_view source,
    int current_version) {
  // Check everything before changing anything. Entries are indexed by
  // their key as the file writes it (views of the file's strings): the
  // same key twice with different results is an error.
  using View = std::tuple<absl::string_view, absl::string_view, int>;
  absl::flat_hash_map<View, int> incoming;
  incoming.reserve(results.results_size());
  MutexLock lock(&mu_);
  for (int i = 0; i < results.results_size(); ++i) {
    const auto& e = results.results(i);
    if (absl::Status s = ValidateResult(e.result()); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": entry ", i + 1, ": ", s.message(), " for ",
                       FileKeyOfEntry(e, current_version).ToString()));
    }
    const int version = e.version() == 0 ? current_version : e.version();
    auto [it, inserted] =
        incoming.emplace(View(e.device(), e.hlo(), version), i);
    const xla::AutotuneResult* before =
        inserted ? nullptr : &results.results(it->second).result();
    if (before == nullptr && !entries_.empty()) {
      // An entry loaded before with the same key as written.
      auto old = entries_.find(KeyOfEntry(e, current_version));
      if (old != entries_.end() && old->second.loaded &&
          old->second.file_device == FileDevice(e) &&
          old->second.file_version == e.version()) {
        before = old->second.result.get();
      }
    }
    if (before != nullptr && !SameResult(*before, e.result())) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": entry ", i + 1,
                       ": duplicate autotuning result with a "
                       "different value for ",
                       FileKeyOfEntry(e, current_version).ToString(),
                       " (first: {", before->ShortDebugString(), "}, now: {",
                       e.result().ShortDebugString(), "})"));
    }
  }
  // Entries that share a lookup key (XLA's entries of one fusion under two
  // of XLA's versions or cuDNN versions) keep one for lookups, the newest
  // XLA version; the others are kept for Dump() only.
  std::vector<int> order;
  order.reserve(incoming.size());
  for (const auto& [view, index] : incoming) order.push_back(index);
  std::sort(order.begin(), order.end());
  int64_t added = 0;
  entries_.reserve(entries_.size() + incoming.size());
  for (int index : order) {
    const auto& e = results.results(index);
    auto [it, inserted] = entries_.try_emplace(KeyOfEntry(e, current_version));
    Stored& stored = it->second;
    const bool same_as_stored = !inserted && stored.loaded &&
                                stored.file_device == FileDevice(e) &&
                                stored.file_version == e.version();
    if (same_as_stored) continue;  // the same result again
    if (!inserted) {
      // Another entry holds the lookup key: xtune's own (inserted) wins,
      // else the newer of XLA's versions.
      const bool take = stored.loaded && e.version() > stored.file_version;
      if (!take) {
        shadows_.push_back(e);
        continue;
      }
      xla::AutotuneResults::Entry old;
      old.set_device(stored.file_device.empty() ? it->first.device
                                                : stored.file_device);
      old.set_hlo(it->first.hlo);
      if (stored.file_version != 0) old.set_version(stored.file_version);
      *old.mutable_result() = *stored.result;
      shadows_.push_back(std::move(old));
    }
    stored.result = std::make_shared<const xla::AutotuneResult>(e.result());
    stored.file_version = e.version();
    stored.file_device = FileDevice(e);
    stored.loaded = true;
    ++added;
  }
  return added;
}

AutotuneCache::Entries InMemoryAutotuneCache::ListEntries(
    absl::string_view device, int version) const {
  Entries out;
  {
    MutexLock lock(&mu_);
    for (const auto& [key, stored] : entries_) {
      if (key.device == device && key.version == version) {
        out.emplace_back(key, stored.result);
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

xla::AutotuneResults InMemoryAutotuneCache::Dump() const {
  std::vector<std::pair<const AutotuneKey*, const Stored*>> sorted;
  xla::AutotuneResults out;
  out.set_version(3);
  MutexLock lock(&mu_);
  sorted.reserve(entries_.size());
  for (const auto& [key, stored] : entries_) sorted.emplace_back(&key, &stored);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });
  out.mutable_results()->Reserve(static_cast<int>(sorted.size()));
  for (const auto& [key, stored] : sorted) {
    auto* e = out.add_results();
    e->set_device(stored->file_device.empty() ? key->device
                                              : stored->file_device);
    e->set_hlo(key->hlo);
    // As it was loaded: an XLA entry without a version stays without one,
    // one with XLA's version keeps it.
    if (stored->file_version != 0) e->set_version(stored->file_version);
    *e->mutable_result() = *stored->result;
  }
  for (const auto& e : shadows_) *out.add_results() = e;
  SortEntries(&out);
  return out;
}

int64_t InMemoryAutotuneCache::size() const {
  MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

std::vector<AutotuneKey> InMemoryAutotuneCache::UnusedLoaded() const {
  std::vector<AutotuneKey> out;
  {
    MutexLock lock(&mu_);
    for (const auto& [k, stored] : entries_) {
      if (stored.loaded && !stored.used) out.push_back(k);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t InMemoryAutotuneCache::UnusedLoadedCount() const {
  MutexLock lock(&mu_);
  int64_t n = 0;
  for (const auto& [k, stored] : entries_) n += stored.loaded && !stored.used;
  return n;
}

int64_t InMemoryAutotuneCache::LoadedForOtherDevices(
    absl::string_view device) const {
  MutexLock lock(&mu_);
  int64_t n = 0;
  for (const auto& [k, stored] : entries_)
    n += stored.loaded && k.device != device;
  return n;
}

std::map<std::pair<std::string, int>, int64_t>
InMemoryAutotuneCache::LoadedByDeviceAndVersion() const {
  MutexLock lock(&mu_);
  std::map<std::pair<std::string, int>, int64_t> out;
  for (const auto& [k, stored] : entries_) {
    if (stored.loaded) ++out[{k.device, k.version}];
  }
  return out;
}

}  // namespace xtune
