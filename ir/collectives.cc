#include "ir/collectives.h"

#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xtune {

bool IsCollective(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return true;
    default:
      return false;
  }
}

bool PermuteKeepsReplicaZero(const Instruction& permute) {
  for (const RawAttribute& a : permute.attrs().other) {
    if (a.name != "source_target_pairs") continue;
    // "{{0,1},{1,0}}": look for a pair of zeros, spaces ignored.
    std::string compact;
    for (char c : a.value) {
      if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
    }
    return compact.find("{0,0}") != std::string::npos;
  }
  return false;
}

std::string ReplicaWarning(const Module& module) {
  std::string out;
  for (const RawAttribute& a : module.attributes()) {
    if (a.name != "replica_count" && a.name != "num_partitions") continue;
    int64_t n = 0;
    if (absl::SimpleAtoi(a.value, &n) && n > 1) {
      absl::StrAppend(&out, out.empty() ? "" : "; ", "the module was built for ",
                      a.name, "=", n,
                      ", xtune runs it on one device: its collectives see one "
                      "participant (ir/collectives.h)");
    }
  }
  return out;
}

}  // namespace xtune
