#include "cache/directory_cache.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cache/config_proto.h"
#include "cache/results_file.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<DirectoryCacheMode> ParseDirectoryCacheMode(
    absl::string_view s) {
  std::string lower = absl::AsciiStrToLower(s);
  if (lower == "update" || lower == "autotune_cache_mode_update") {
    return DirectoryCacheMode::kUpdate;
  }
  if (lower == "read" || lower == "autotune_cache_mode_read") {
    return DirectoryCacheMode::kRead;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown autotune cache mode '", s,
                   "' (expected update, read, AUTOTUNE_CACHE_MODE_UPDATE or "
                   "AUTOTUNE_CACHE_MODE_READ)"));
}

std::string DirectoryCacheFileName(const AutotuneKey& key) {
  std::array<uint8_t, 32> digest = Sha256(key.ToString());
  return absl::StrCat(
      Base64UrlUnpadded(absl::string_view(
          reinterpret_cast<const char*>(digest.data()), digest.size())),
      ".textproto");
}

absl::StatusOr<std::unique_ptr<DirectoryAutotuneCache>>
DirectoryAutotuneCache::Open(const std::string& dir, DirectoryCacheMode mode) {
  if (dir.empty()) {
    return absl::InvalidArgumentError(
        "the per-fusion autotune cache folder is empty");
  }
  if (mode == DirectoryCacheMode::kUpdate) {
    XTUNE_RETURN_IF_ERROR(CreateDirectories(absl::StrCat(dir, "/tmp")));
    // Temporary files of writers killed before their rename.
    RemoveStaleTemporaries(absl::StrCat(dir, "/tmp"));
  }
  return std::unique_ptr<DirectoryAutotuneCache>(
      new DirectoryAutotuneCache(dir, mode));
}

absl::StatusOr<std::optional<CacheHit>> DirectoryAutotuneCache::Lookup(
    const AutotuneKey& key) {
  std::string path = absl::StrCat(dir_, "/", DirectoryCacheFileName(key));
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) {
    if (text.status().code() == absl::StatusCode::kNotFound) {
      return std::optional<CacheHit>();
    }
    return absl::UnavailableError(std::string(text.status().message()));
  }
  absl::StatusOr<xla::AutotuneResult> parsed =
      ParseAutotuneResultText(*text, path);
  if (!parsed.ok()) {
    return absl::DataLossError(std::string(parsed.status().message()));
  }
  auto result = std::make_shared<xla::AutotuneResult>(std::move(*parsed));
  if (absl::Status s = ValidateResult(*result); !s.ok()) {
    return absl::DataLossError(absl::StrCat("'", path, "': ", s.message()));
  }
  return std::optional<CacheHit>(CacheHit{std::move(result), "directory"});
}

absl::Status DirectoryAutotuneCache::Insert(const AutotuneKey& key,
                                            const xla::AutotuneResult& result) {
  if (mode_ == DirectoryCacheMode::kRead) return absl::OkStatus();
  std::string text;
  google::protobuf::TextFormat::PrintToString(result, &text);
  // The key goes first as comments (XLA's reader skips them) so that
  // `xtune cache` can list a directory; the file name alone is a hash.
  text = absl::StrCat("# xtune-key-device: ", absl::CEscape(key.device),
                      "\n# xtune-key-version: ", key.version,
                      "\n# xtune-key-hlo: ", absl::CEscape(key.hlo), "\n",
                      text);
  return WriteFileAtomically(
      absl::StrCat(dir_, "/", DirectoryCacheFileName(key)), text,
      absl::StrCat(dir_, "/tmp"));
}

absl::Status DirectoryAutotuneCache::Erase(const AutotuneKey& key) {
  if (mode_ == DirectoryCacheMode::kRead) return absl::OkStatus();
  std::error_code ec;
  const std::string path = absl::StrCat(dir_, "/", DirectoryCacheFileName(key));
  std::filesystem::remove(path, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot remove '", path, "': ", ec.message()));
  }
  return absl::OkStatus();
}

namespace {

// The *.textproto files of `dir`, sorted.
absl::StatusOr<std::vector<std::string>> DirectoryFiles(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("cannot list '", dir, "': ", ec.message()));
  }
  std::vector<std::string> paths;
  for (const auto& f : it) {
    if (f.is_regular_file() && f.path().extension() == ".textproto") {
      paths.push_back(f.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// One file: its key (from its first lines) and result; nullopt for a file
// XLA wrote (no key lines) and, unread past its key lines, for a key
// `wanted` (when given) refuses. DataLoss for a file that does not parse or
// whose name is not its key's.
absl::StatusOr<std::optional<std::pair<AutotuneKey, xla::AutotuneResult>>>
ReadDirectoryEntry(const std::string& path,
                   const std::function<bool(const AutotuneKey&)>& wanted = {}) {
  XTUNE_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::optional<AutotuneKey> key = DirectoryEntryKey(text);
  if (key && wanted && !wanted(*key)) return std::nullopt;
  XTUNE_ASSIGN_OR_RETURN(DirectoryEntry entry, ParseDirectoryEntry(text, path));
  if (!entry.key) {
    return std::nullopt;  // written by XLA: only the key's hash is known
  }
  std::string name = std::filesystem::path(path).filename().string();
  if (name != DirectoryCacheFileName(*entry.key)) {
    return absl::DataLossError(absl::StrCat(
        "'", path, "' holds the key of ", DirectoryCacheFileName(*entry.key),
        " (renamed or altered)"));
  }
  return std::make_optional(std::make_pair(std::move(*entry.key), std::move(entry.result)));
}

}  // namespace

std::optional<AutotuneKey> DirectoryEntryKey(absl::string_view text) {
  AutotuneKey key;
  bool has_device = false, has_hlo = false, has_version = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "#")) break;
    if (absl::ConsumePrefix(&line, "# xtune-key-device: ")) {
      has_device = absl::CUnescape(line, &key.device);
    } else if (absl::ConsumePrefix(&line, "# xtune-key-hlo: ")) {
      has_hlo = absl::CUnescape(line, &key.hlo);
    } else if (absl::ConsumePrefix(&line, "# xtune-key-version: ")) {
      has_version = absl::SimpleAtoi(line, &key.version);
    }
  }
  if (!has_device || !has_hlo || !has_version) return std::nullopt;
  return key;
}

absl::StatusOr<DirectoryEntry> ParseDirectoryEntry(absl::string_view text,
                                                   absl::string_view path) {
  DirectoryEntry entry;
  entry.key = DirectoryEntryKey(text);
  // A file that is no AutotuneResult at all is damage, not XLA's.
  XTUNE_ASSIGN_OR_RETURN(entry.result, ParseAutotuneResultText(text, path));
  return entry;
}

AutotuneCache::Entries DirectoryAutotuneCache::ListEntries(absl::string_view device,
                                                           int version) const {
  Entries out;
  absl::StatusOr<std::vector<std::string>> paths = DirectoryFiles(dir_);
  if (!paths.ok()) return out;
  // Other devices' and versions' files are not parsed.
  auto wanted = [&](const AutotuneKey& key) {
    return key.device == device && key.version == version;
  };
  for (const std::string& path : *paths) {
    auto entry = ReadDirectoryEntry(path, wanted);
    if (!entry.ok() || !entry->has_value()) continue;
    auto& [key, result] = **entry;
    if (!ValidateResult(result).ok()) continue;
    out.emplace_back(key, std::make_shared<const xla::AutotuneResult>(std::move(result)));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

absl::StatusOr<xla::AutotuneResults> ReadDirectoryCache(const std::string& dir,
                                                        int64_t* without_key) {
  XTUNE_ASSIGN_OR_RETURN(std::vector<std::string> paths, DirectoryFiles(dir));
  xla::AutotuneResults out;
  out.set_version(3);
  int64_t unkeyed = 0;
  for (const std::string& path : paths) {
    XTUNE_ASSIGN_OR_RETURN(auto entry, ReadDirectoryEntry(path));
    if (!entry.has_value()) {
      ++unkeyed;
      continue;
    }
    auto& [key, result] = *entry;
    xla::AutotuneResults::Entry* e = out.add_results();
    *e->mutable_result() = std::move(result);
    e->set_device(key.device);
    e->set_hlo(key.hlo);
    e->set_version(key.version);
  }
  if (without_key != nullptr) *without_key = unkeyed;
  return out;
}

}  // namespace xtune
