// Module: an HLO module — named computations, one of them the entry.
//
// The module owns its computations; computations own their instructions.
// Not thread-safe for mutation; concurrent reads are fine.
#ifndef XTUNE_IR_MODULE_H_
#define XTUNE_IR_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

#include "ir/computation.h"

namespace xtune {

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }

  // Takes ownership; returns the stored pointer.
  Computation* AddComputation(std::unique_ptr<Computation> computation);
  const std::vector<std::unique_ptr<Computation>>& computations() const {
    return computations_;
  }
  // The first computation added under `name`, or null. O(1).
  Computation* FindComputation(absl::string_view name) const;

  Computation* entry() const { return entry_; }
  void set_entry(Computation* entry) { entry_ = entry; }

  // Header attributes after the name (entry_computation_layout, ...), raw.
  const std::vector<RawAttribute>& attributes() const { return attributes_; }
  std::vector<RawAttribute>* mutable_attributes() { return &attributes_; }

  // The file the module was parsed from ("" when built in code); used in
  // error messages.
  const std::string& source_name() const { return source_name_; }
  void set_source_name(std::string name) { source_name_ = std::move(name); }

  // Same computations (by name and order), same entry, and identical
  // instructions. On a difference, `*why` (when non-null) says where.
  bool Equivalent(const Module& other, std::string* why = nullptr) const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  absl::flat_hash_map<std::string, Computation*> by_name_;
  Computation* entry_ = nullptr;
  std::vector<RawAttribute> attributes_;
  std::string source_name_;
};

}  // namespace xtune

#endif  // XTUNE_IR_MODULE_H_
