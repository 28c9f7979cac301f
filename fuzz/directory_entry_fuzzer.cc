// One per-fusion cache file (--xla_gpu_per_fusion_autotune_cache_dir): any
// bytes give its key and result or a status; a keyed entry names its file.
#include "cache/config_proto.h"
#include "cache/directory_cache.h"
#include "cache/inspect.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<xtune::DirectoryEntry> e =
      xtune::ParseDirectoryEntry(xtune::fuzz::Bytes(data, size), "fuzz.textproto");
  if (!e.ok()) return 0;
  (void)xtune::ValidateResult(e->result);
  (void)xtune::ResultConfigText(e->result);
  (void)xtune::ResultMeaning(e->result);
  if (e->key) {
    xtune::fuzz::Require(!xtune::DirectoryCacheFileName(*e->key).empty(), "no file name");
    (void)xtune::SummarizeFusionText(e->key->hlo);
  }
  return 0;
}
