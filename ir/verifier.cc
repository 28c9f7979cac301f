#include "ir/verifier.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "ir/shape_inference.h"
#include "ir/text_cursor.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

class Verifier {
 public:
  Verifier(const Module& module, absl::string_view text)
      : module_(module), cursor_(text, module.source_name()) {}

  absl::Status Run() {
    if (module_.entry() == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(module_.source_name(), ": module has no entry"));
    }
    for (const auto& c : module_.computations()) {
      XTUNE_RETURN_IF_ERROR(CheckAcyclic(c.get()));
    }
    for (const auto& c : module_.computations()) {
      for (const auto& inst : c->instructions()) {
        XTUNE_RETURN_IF_ERROR(Check(*inst));
      }
    }
    return absl::OkStatus();
  }

 private:
  enum class Mark { kVisiting, kDone };

  absl::Status CheckAcyclic(const Computation* c) {
    auto it = marks_.find(c);
    if (it != marks_.end()) {
      if (it->second == Mark::kDone) return absl::OkStatus();
      return ErrorAt(c->location(),
                     absl::StrCat("computation '", c->name(),
                                  "' calls itself (recursion is not "
                                  "allowed in HLO)"));
    }
    marks_[c] = Mark::kVisiting;
    for (const auto& inst : c->instructions()) {
      for (const Computation* callee : inst->called_computations()) {
        if (callee == nullptr) continue;
        if (callee == c || (marks_.contains(callee) &&
                                marks_[callee] == Mark::kVisiting)) {
          return ErrorAt(inst->location(),
                         absl::StrCat("instruction '", inst->name(),
                                      "' calls computation '", callee->name(),
                                      "' recursively"));
        }
        XTUNE_RETURN_IF_ERROR(CheckAcyclic(callee));
      }
    }
    marks_[c] = Mark::kDone;
    return absl::OkStatus();
  }

  absl::Status Check(const Instruction& inst) {
    absl::StatusOr<Shape> inferred = InferShape(inst);
    if (!inferred.ok()) {
      absl::Status error = ErrorAt(
          inst.location(), absl::StrCat(OpcodeName(inst.opcode()), " '",
                                        inst.name(), "': ",
                                        inferred.status().message()));
      // What xtune does not run (a library call it lacks) stays Unimplemented.
      if (inferred.status().code() == absl::StatusCode::kUnimplemented) {
        return absl::UnimplementedError(error.message());
      }
      return error;
    }
    if (!inferred->Compatible(inst.shape())) {
      return ErrorAt(
          inst.location(),
          absl::StrCat(OpcodeName(inst.opcode()), " '", inst.name(),
                       "' is declared as ", inst.shape().ToString(false),
                       " but its operands give ", inferred->ToString(false)));
    }
    return absl::OkStatus();
  }

  absl::Status ErrorAt(SourceLocation loc, absl::string_view message) {
    if (!cursor_.text().empty() && loc.line > 0) {
      return cursor_.ErrorAtLocation(loc, message);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        module_.source_name().empty() ? "<module>" : module_.source_name(),
        ":", loc.line, ":", loc.column, ": ", message));
  }

  const Module& module_;
  TextCursor cursor_;
  absl::flat_hash_map<const Computation*, Mark> marks_;
};

}  // namespace

absl::Status VerifyModule(const Module& module, absl::string_view source_text) {
  return Verifier(module, source_text).Run();
}

}  // namespace xtune
