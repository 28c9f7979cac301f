// A value read from the remote cache: any bytes are an entry or refused; an
// entry gives its key, its config in words, and serializes back to an
// entry equal to it.
#include "cache/autotune_cache.h"
#include "cache/config_proto.h"
#include "cache/inspect.h"
#include "cache/redis_store.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<xla::AutotuneResults::Entry> e =
      xtune::ParseRedisValue(xtune::fuzz::Bytes(data, size));
  if (!e) return 0;
  (void)xtune::KeyOfEntry(*e, 4);
  (void)xtune::ValidateResult(e->result());
  (void)xtune::ResultConfigText(e->result());
  (void)xtune::ResultMeaning(e->result());
  (void)xtune::SummarizeFusionText(e->hlo());
  std::optional<xla::AutotuneResults::Entry> again =
      xtune::ParseRedisValue(e->SerializeAsString());
  xtune::fuzz::Require(again.has_value(), "a parsed value does not parse back");
  xtune::fuzz::Require(again->SerializeAsString() == e->SerializeAsString(),
                       "a parsed value does not serialize back to itself");
  return 0;
}
