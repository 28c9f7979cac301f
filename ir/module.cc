#include "ir/module.h"

#include "absl/strings/str_cat.h"

namespace xtune {

Computation* Module::AddComputation(std::unique_ptr<Computation> computation) {
  Computation* raw = computation.get();
  raw->set_parent(this);
  by_name_.emplace(raw->name(), raw);  // computation names never change
  computations_.push_back(std::move(computation));
  return raw;
}

Computation* Module::FindComputation(absl::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

bool Module::Equivalent(const Module& other, std::string* why) const {
  auto fail = [&](std::string message) {
    if (why != nullptr) *why = std::move(message);
    return false;
  };
  if (name_ != other.name_) {
    return fail(absl::StrCat("module names differ: ", name_, " vs ",
                             other.name_));
  }
  if (computations_.size() != other.computations_.size()) {
    return fail(absl::StrCat("computation counts differ: ",
                             computations_.size(), " vs ",
                             other.computations_.size()));
  }
  if ((entry_ == nullptr) != (other.entry_ == nullptr) ||
      (entry_ != nullptr && entry_->name() != other.entry_->name())) {
    return fail("entry computations differ");
  }
  for (size_t c = 0; c < computations_.size(); ++c) {
    const Computation& a = *computations_[c];
    const Computation& b = *other.computations_[c];
    if (a.name() != b.name()) {
      return fail(absl::StrCat("computation ", c, " is named ", a.name(),
                               " vs ", b.name()));
    }
    if (a.instructions().size() != b.instructions().size()) {
      return fail(absl::StrCat("computation ", a.name(),
                               ": instruction counts differ"));
    }
    if ((a.root() == nullptr) != (b.root() == nullptr) ||
        (a.root() && a.root()->name() != b.root()->name())) {
      return fail(absl::StrCat("computation ", a.name(), ": roots differ"));
    }
    for (size_t i = 0; i < a.instructions().size(); ++i) {
      if (!a.instructions()[i]->Identical(*b.instructions()[i])) {
        return fail(absl::StrCat("computation ", a.name(), ": instruction ",
                                 a.instructions()[i]->name(), " differs"));
      }
    }
  }
  return true;
}

}  // namespace xtune
