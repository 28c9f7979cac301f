#include "ir/parser.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/literal_parser.h"
#include "ir/parser_async.h"
#include "ir/parser_attributes.h"
#include "ir/shape_inference.h"
#include "ir/text_parsers.h"
#include "ir/text_cursor.h"
#include "ir/verifier.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

constexpr int kMaxShapeNesting = 32;

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view source_name,
         const ParseOptions& options)
      : cursor_(text, std::string(source_name)),
        source_name_(source_name),
        options_(options) {}

  absl::StatusOr<std::unique_ptr<Module>> ParseModule() {
    // As XLA's parser: the `HloModule name, ...` header is optional (XLA's
    // tests often start at the first computation or at ENTRY).
    bool has_header = cursor_.TryConsumeWord("HloModule");
    std::string name;
    if (has_header) {
      XTUNE_ASSIGN_OR_RETURN(name, cursor_.ParseName("a module name"));
    } else {
      XTUNE_RETURN_IF_ERROR(ExpectComputationStart());
      name = DefaultModuleName();
    }
    module_ = std::make_unique<Module>(name);
    module_->set_source_name(std::string(source_name_));
    while (has_header && cursor_.TryConsume(',')) {
      XTUNE_ASSIGN_OR_RETURN(std::string attr,
                             cursor_.ParseName("a module attribute name"));
      XTUNE_RETURN_IF_ERROR(cursor_.Expect('=', "after a module attribute"));
      XTUNE_ASSIGN_OR_RETURN(absl::string_view value, cursor_.ParseRawValue());
      module_->mutable_attributes()->push_back({attr, std::string(value)});
    }
    XTUNE_RETURN_IF_ERROR(SkipStackFrameIndex());
    Computation* entry = nullptr;
    size_t entry_pos = 0;
    while (!cursor_.AtEnd()) {
      size_t pos = cursor_.pos();
      if (cursor_.TryConsumeWord("HloModule")) {
        return cursor_.ErrorAt(
            pos, "a second HloModule: xtune reads one module a file (XLA's "
                 "test files hold several, separated by '// -----' lines: "
                 "split them into files)");
      }
      bool is_entry = cursor_.TryConsumeWord("ENTRY");
      XTUNE_ASSIGN_OR_RETURN(Computation * c, ParseNamedComputation());
      if (is_entry) {
        if (entry != nullptr) {
          return cursor_.ErrorAt(
              pos, absl::StrCat("a second ENTRY computation '", c->name(),
                                "'; the first is '", entry->name(), "'"));
        }
        entry = c;
        entry_pos = pos;
      }
    }
    (void)entry_pos;
    if (module_->computations().empty()) {
      return cursor_.Error("the module has no computations");
    }
    // As in XLA: without an ENTRY marker the last computation is the entry.
    module_->set_entry(entry ? entry
                             : module_->computations().back().get());
    XTUNE_RETURN_IF_ERROR(ResolveCalls());
    return std::move(module_);
  }

  absl::StatusOr<std::unique_ptr<Module>> ParseCanonical() {
    module_ = std::make_unique<Module>("canonical");
    module_->set_source_name(std::string(source_name_));
    XTUNE_ASSIGN_OR_RETURN(Computation * c,
                           ParseComputationBody("fused_computation"));
    if (!cursor_.AtEnd()) {
      return cursor_.Error("unexpected text after the computation");
    }
    module_->set_entry(c);
    XTUNE_RETURN_IF_ERROR(ResolveCalls());
    return std::move(module_);
  }

 private:
  // Without a header the text must start like a computation: `ENTRY`, or
  // a name followed by its signature `(` or its body `{`.
  absl::Status ExpectComputationStart() {
    size_t save = cursor_.pos();
    bool ok = cursor_.TryConsumeWord("ENTRY");
    if (!ok) {
      absl::StatusOr<std::string> first = cursor_.ParseName();
      char next = cursor_.Peek();
      ok = first.ok() && (next == '{' || next == '(');
    }
    cursor_.set_pos(save);
    if (ok) return absl::OkStatus();
    cursor_.SkipSpace();
    return cursor_.Error(
        "expected 'HloModule' or a computation ('ENTRY name {' or "
        "'name {') at the start of the module");
  }

  // A module without a header is named after its file ("a/b.hlo" -> "b"),
  // else "module".
  std::string DefaultModuleName() const {
    absl::string_view base = source_name_;
    size_t slash = base.rfind('/');
    if (slash != absl::string_view::npos) base = base.substr(slash + 1);
    size_t dot = base.find('.');
    if (dot != absl::string_view::npos) base = base.substr(0, dot);
    std::string out;
    if (base.empty() || base[0] == '<') return "module";  // "<stdin>", ...
    for (char c : base) {
      out += (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
              c == '-')
                 ? c
                 : '_';
    }
    return out.empty() ? "module" : out;
  }

  struct PendingCall {
    Instruction* instruction;
    std::string callee;
    size_t pos;
    size_t slot;  // index in the instruction's called computations
  };

  absl::StatusOr<Computation*> ParseNamedComputation() {
    size_t pos = cursor_.pos();
    XTUNE_ASSIGN_OR_RETURN(std::string name,
                           cursor_.ParseName("a computation name"));
    if (module_->FindComputation(name) != nullptr ||
        computation_names_.contains(name)) {
      return cursor_.ErrorAt(pos,
                             absl::StrCat("duplicate computation '", name, "'"));
    }
    // Optional signature: (p0: f32[2], p1: s32[]) -> f32[2]
    std::vector<std::pair<std::string, Shape>> signature;
    std::optional<Shape> result_shape;
    size_t signature_pos = cursor_.pos();
    if (cursor_.Peek() == '(') {
      signature_pos = cursor_.pos();
      cursor_.TryConsume('(');
      if (!cursor_.TryConsume(')')) {
        while (true) {
          XTUNE_ASSIGN_OR_RETURN(std::string pname,
                                 cursor_.ParseName("a parameter name"));
          cursor_.TryConsume(':');  // XLA also reads `name shape`
          XTUNE_ASSIGN_OR_RETURN(Shape s, ParseShapeText(cursor_));
          signature.emplace_back(pname, std::move(s));
          if (cursor_.TryConsume(')')) break;
          XTUNE_RETURN_IF_ERROR(cursor_.Expect(',', "or ')' in a signature"));
        }
      }
      if (!cursor_.TryConsume("->")) {
        return cursor_.Error("expected '->' and the result shape");
      }
      XTUNE_ASSIGN_OR_RETURN(Shape s, ParseShapeText(cursor_));
      result_shape = std::move(s);
    }
    XTUNE_ASSIGN_OR_RETURN(Computation * c, ParseComputationBody(name));
    c->set_location(cursor_.LocationOf(pos));
    // XLA may print `}, execution_thread="..."` after a body: kept as noise.
    while (cursor_.TryConsume(',')) {
      XTUNE_ASSIGN_OR_RETURN(std::string attr,
                             cursor_.ParseName("a computation attribute"));
      XTUNE_RETURN_IF_ERROR(cursor_.Expect('=', "after " + attr));
      XTUNE_ASSIGN_OR_RETURN(absl::string_view value, cursor_.ParseRawValue());
      (void)value;
    }
    if (result_shape.has_value()) {
      // XLA takes `main () -> ...` over parameters (its select_and_scatter test).
      if (!signature.empty() && static_cast<int64_t>(signature.size()) != c->parameter_count()) {
        return cursor_.ErrorAt(
            signature_pos,
            absl::StrCat("computation '", name, "' declares ",
                         signature.size(), " parameters but has ",
                         c->parameter_count(), " parameter instructions"));
      }
      for (size_t i = 0; i < signature.size(); ++i) {
        const Shape& declared = c->parameter(i)->shape();
        if (!signature[i].second.Compatible(declared)) {
          return cursor_.ErrorAt(
              signature_pos,
              absl::StrCat("parameter ", i, " of computation '", name,
                           "' is ", signature[i].second.ToString(false),
                           " in the signature but ",
                           declared.ToString(false), " in its body"));
        }
      }
      if (!result_shape->Compatible(c->root()->shape())) {
        return cursor_.ErrorAt(
            signature_pos,
            absl::StrCat("computation '", name, "' returns ",
                         result_shape->ToString(false),
                         " in its signature but its root is ",
                         c->root()->shape().ToString(false)));
      }
    }
    return c;
  }

  // '{' instructions '}'. Adds the computation to the module and returns it.
  // XLA's stack frame index, which recent XLA prints after the module
  // header: sections FileNames, FunctionNames, FileLocations and
  // StackFrames, each a list of `N "text"` or `N {attributes}` lines. Debug
  // information (metadata's stack_frame_id points into it): skipped.
  absl::Status SkipStackFrameIndex() {
    while (cursor_.TryConsumeWord("FileNames") || cursor_.TryConsumeWord("FunctionNames") ||
           cursor_.TryConsumeWord("FileLocations") || cursor_.TryConsumeWord("StackFrames")) {
      while (!cursor_.AtEnd() && absl::ascii_isdigit(cursor_.Peek())) {
        XTUNE_RETURN_IF_ERROR(cursor_.ParseInt().status());
        XTUNE_RETURN_IF_ERROR(cursor_.ParseRawValue().status());
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Computation*> ParseComputationBody(std::string name) {
    if (++depth_ > kMaxShapeNesting) {
      return cursor_.Error("computations nested too deeply");
    }
    computation_names_.insert(name);
    auto computation = std::make_unique<Computation>(name);
    XTUNE_RETURN_IF_ERROR(cursor_.Expect('{', "to start a computation body"));
    Instruction* root = nullptr;
    size_t root_pos = 0;
    Instruction* last = nullptr;
    while (!cursor_.TryConsume('}')) {
      if (cursor_.AtEnd()) {
        return cursor_.Error(absl::StrCat("computation '", name,
                                          "' is not closed with '}'"));
      }
      size_t pos = cursor_.pos();
      bool is_root = cursor_.TryConsumeWord("ROOT");
      XTUNE_ASSIGN_OR_RETURN(Instruction * inst,
                             ParseInstruction(computation.get()));
      last = inst;
      if (is_root) {
        if (root != nullptr) {
          return cursor_.ErrorAt(
              pos, absl::StrCat("computation '", name,
                                "' has a second ROOT; the first is '",
                                root->name(), "' at line ",
                                cursor_.LocationOf(root_pos).line));
        }
        root = inst;
        root_pos = pos;
      }
    }
    if (computation->instructions().empty()) {
      return cursor_.Error(
          absl::StrCat("computation '", name, "' has no instructions"));
    }
    // As in XLA: without a ROOT marker the last instruction is the root.
    computation->set_root(root ? root : last);
    XTUNE_RETURN_IF_ERROR(CollectParameters(computation.get()));
    --depth_;
    return module_->AddComputation(std::move(computation));
  }

  absl::Status CollectParameters(Computation* c) {
    std::vector<Instruction*> params;
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() != Opcode::kParameter) continue;
      int64_t n = inst->attrs().parameter_number;
      size_t pos = positions_[inst.get()];
      if (n < 0 || n >= static_cast<int64_t>(c->instructions().size())) {
        return cursor_.ErrorAt(pos, absl::StrCat("parameter number ", n,
                                                 " is out of range"));
      }
      if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1);
      if (params[n] != nullptr) {
        return cursor_.ErrorAt(
            pos, absl::StrCat("parameter number ", n, " is used by both '",
                              params[n]->name(), "' and '", inst->name(),
                              "'"));
      }
      params[n] = inst.get();
    }
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i] == nullptr) {
        return cursor_.ErrorAt(
            cursor_.pos(), absl::StrCat("computation '", c->name(),
                                        "' has no parameter(", i,
                                        ") but has parameter(", params.size() - 1,
                                        ")"));
      }
    }
    c->set_parameters(std::move(params));
    return absl::OkStatus();
  }

  absl::StatusOr<Instruction*> ParseInstruction(Computation* c) {
    cursor_.SkipSpace();
    size_t pos = cursor_.pos();
    XTUNE_ASSIGN_OR_RETURN(std::string name,
                           cursor_.ParseName("an instruction name"));
    if (Lookup(c, name) != nullptr || async_bundles_.contains({c, name})) {
      return cursor_.ErrorAt(
          pos, absl::StrCat("duplicate instruction name '", name, "'"));
    }
    XTUNE_RETURN_IF_ERROR(cursor_.Expect('=', "after the instruction name"));
    // Newer XLA parsers take an instruction without its result shape
    // (`r = add(a, b)`) and infer it: so do we, below.
    bool infer_shape = false;
    {
      cursor_.SkipSpace();
      size_t at = cursor_.pos();
      absl::StatusOr<std::string> word = cursor_.ParseName();
      infer_shape = word.ok() && cursor_.PeekRaw() == '(' &&
                    !DTypeFromName(*word).has_value() && *word != "token";
      cursor_.set_pos(at);
    }
    Shape shape;
    if (!infer_shape) {
      XTUNE_ASSIGN_OR_RETURN(shape, ParseShapeText(cursor_));
    }
    cursor_.SkipSpace();
    size_t op_pos = cursor_.pos();
    XTUNE_ASSIGN_OR_RETURN(std::string op_name, cursor_.ParseName("an opcode"));
    std::optional<Opcode> opcode = OpcodeFromName(op_name);
    std::optional<AsyncOpName> async;
    if (!opcode.has_value()) async = ParseAsyncOpName(op_name);
    if (async.has_value() && async->part != AsyncOpName::Part::kStart) {
      return ParseAsyncContinuation(c, name, shape, op_name, pos);
    }
    if (async.has_value()) opcode = async->wrapped;
    if (!opcode.has_value()) {
      if (std::optional<std::string> why = HostTransferRefusal(op_name)) {
        return cursor_.ErrorAt(op_pos, *why);
      }
      return cursor_.ErrorAt(op_pos,
                             absl::StrCat("unsupported opcode '", op_name, "'"));
    }
    if (async.has_value()) {
      absl::StatusOr<Shape> result = AsyncResultShape(*async, op_name, shape);
      if (!result.ok()) return cursor_.ErrorAt(pos, result.status().message());
      shape = *std::move(result);
    }
    auto inst = std::make_unique<Instruction>(name, *opcode, shape);
    inst->set_location(cursor_.LocationOf(pos));
    XTUNE_RETURN_IF_ERROR(
        cursor_.Expect('(', absl::StrCat("after '", op_name, "'")));
    if (*opcode == Opcode::kConstant && options_.fill_elided_constants &&
        shape.IsArray() && cursor_.TryConsume("{...}")) {
      inst->mutable_attrs()->literal = FillElidedConstant(shape, name);
      XTUNE_RETURN_IF_ERROR(cursor_.Expect(')', "after the constant value"));
    } else if (*opcode == Opcode::kConstant &&
               options_.allow_elided_constants &&
               cursor_.TryConsume("{...}")) {
      inst->mutable_attrs()->literal = Literal(shape);
      inst->mutable_attrs()->literal_elided = true;
      XTUNE_RETURN_IF_ERROR(cursor_.Expect(')', "after the constant value"));
    } else if (*opcode == Opcode::kConstant) {
      XTUNE_ASSIGN_OR_RETURN(inst->mutable_attrs()->literal,
                             ParseLiteral(cursor_, shape,
                                          options_.allow_elided_constants));
      XTUNE_RETURN_IF_ERROR(cursor_.Expect(')', "after the constant value"));
    } else if (*opcode == Opcode::kParameter) {
      XTUNE_ASSIGN_OR_RETURN(inst->mutable_attrs()->parameter_number,
                             cursor_.ParseInt());
      XTUNE_RETURN_IF_ERROR(cursor_.Expect(')', "after the parameter number"));
    } else if (!cursor_.TryConsume(')')) {
      while (true) {
        XTUNE_RETURN_IF_ERROR(ParseOperand(c, inst.get()));
        if (cursor_.TryConsume(')')) break;
        XTUNE_RETURN_IF_ERROR(cursor_.Expect(',', "or ')' between operands"));
      }
    }
    absl::flat_hash_set<std::string> seen;
    std::vector<std::string> callee_order;
    while (cursor_.TryConsume(',')) {
      cursor_.SkipSpace();
      size_t attr_pos = cursor_.pos();
      XTUNE_ASSIGN_OR_RETURN(std::string attr,
                             cursor_.ParseName("an attribute name"));
      if (!seen.insert(attr).second) {
        return cursor_.ErrorAt(attr_pos,
                               absl::StrCat("duplicate attribute '", attr, "'"));
      }
      XTUNE_RETURN_IF_ERROR(
          cursor_.Expect('=', absl::StrCat("after attribute '", attr, "'")));
      // async-start runs its `calls=` computation as a call's to_apply.
      if (async.has_value() && op_name == "async-start" && attr == "calls") {
        attr = "to_apply";
        seen.insert(attr);
      }
      size_t callees = inst->called_computations().size();
      XTUNE_RETURN_IF_ERROR(ParseAttribute(attr, inst.get()));
      if (inst->called_computations().size() == callees + 1) {
        callee_order.push_back(attr);
      }
    }
    CanonicalCalleeOrder(inst.get(), callee_order);
    XTUNE_RETURN_IF_ERROR(CheckRequiredAttributes(*inst, seen, pos, cursor_));
    if (infer_shape) {
      if (*opcode == Opcode::kParameter || *opcode == Opcode::kConstant ||
          *opcode == Opcode::kIota || *opcode == Opcode::kRngBitGenerator ||
          !inst->called_computations().empty()) {
        return cursor_.ErrorAt(
            pos, absl::StrCat(op_name, " '", name,
                              "' needs its result shape written out"));
      }
      absl::StatusOr<Shape> inferred = InferShape(*inst);
      if (!inferred.ok()) {
        return cursor_.ErrorAt(pos, absl::StrCat(op_name, " '", name, "': ",
                                                 inferred.status().message()));
      }
      *inst->mutable_shape() = *std::move(inferred);
    }
    Instruction* raw = c->AddInstruction(std::move(inst));
    positions_[raw] = pos;
    if (async.has_value()) async_bundles_[{c, name}] = raw;
    return raw;
  }

  // An instruction by name, or the operation an async done names.
  // The get-tuple-element `index` of `tuple` in `c` that `tuple#index`
  // names: one instruction (named `<tuple>.element<index>`) however often the
  // element is used.
  absl::StatusOr<Instruction*> TupleElement(Computation* c, Instruction* tuple, int64_t index,
                                            size_t pos) {
    const Shape& shape = tuple->shape();
    if (!shape.IsTuple() || index < 0 ||
        index >= static_cast<int64_t>(shape.tuple_shapes().size())) {
      return cursor_.ErrorAt(
          pos, absl::StrCat("'", tuple->name(), "#", index, "': '", tuple->name(),
                            "' is ", shape.ToString(false), ", which has no element ", index));
    }
    std::string name = absl::StrCat(tuple->name(), ".element", index);
    for (int n = 1; Instruction* existing = c->FindInstruction(name); ++n) {
      if (existing->opcode() == Opcode::kGetTupleElement && existing->operand_count() == 1 &&
          existing->operand(0) == tuple && existing->attrs().tuple_index == index) {
        return existing;
      }
      name = absl::StrCat(tuple->name(), ".element", index, ".", n);
    }
    auto gte = std::make_unique<Instruction>(name, Opcode::kGetTupleElement,
                                             shape.tuple_shapes()[index]);
    gte->mutable_attrs()->tuple_index = index;
    gte->AppendOperand(tuple);
    return c->AddInstruction(std::move(gte));
  }

  Instruction* Lookup(const Computation* c, const std::string& name) const {
    if (Instruction* i = const_cast<Computation*>(c)->FindInstruction(name)) {
      return i;
    }
    auto it = async_dones_.find({c, name});
    return it == async_dones_.end() ? nullptr : it->second;
  }

  // `*-update` or `*-done` (name, shape and opcode already read): its one
  // operand is a start or an update; its value is the operation the start
  // ran. Attributes are read and dropped (they repeat the start's).
  absl::StatusOr<Instruction*> ParseAsyncContinuation(
      Computation* c, const std::string& name, const Shape& shape,
      const std::string& op_name, size_t pos) {
    XTUNE_RETURN_IF_ERROR(
        cursor_.Expect('(', absl::StrCat("after '", op_name, "'")));
    cursor_.SkipSpace();
    // The operand's shape may be written before it (the start's tuple).
    size_t at = cursor_.pos();
    if (cursor_.PeekRaw() == '(') {
      XTUNE_RETURN_IF_ERROR(ParseShapeText(cursor_).status());
    } else if (absl::StatusOr<std::string> word = cursor_.ParseName();
               word.ok() && cursor_.PeekRaw() == '[') {
      cursor_.set_pos(at);
      XTUNE_RETURN_IF_ERROR(ParseShapeText(cursor_).status());
    } else {
      cursor_.set_pos(at);
    }
    cursor_.SkipSpace();
    size_t operand_pos = cursor_.pos();
    XTUNE_ASSIGN_OR_RETURN(std::string operand,
                           cursor_.ParseName("an async start"));
    auto it = async_bundles_.find({c, operand});
    if (it == async_bundles_.end()) {
      return cursor_.ErrorAt(
          operand_pos, absl::StrCat(op_name, " '", name, "' takes an async "
                                    "start or update, not '", operand, "'"));
    }
    Instruction* value = it->second;
    XTUNE_RETURN_IF_ERROR(cursor_.Expect(')', "after the async start"));
    while (cursor_.TryConsume(',')) {
      XTUNE_RETURN_IF_ERROR(cursor_.ParseName("an attribute name").status());
      XTUNE_RETURN_IF_ERROR(cursor_.Expect('=', "after an attribute name"));
      XTUNE_RETURN_IF_ERROR(cursor_.ParseRawValue().status());
    }
    if (absl::EndsWith(op_name, "-update")) {
      async_bundles_[{c, name}] = value;
      return value;
    }
    if (!shape.Compatible(value->shape())) {
      return cursor_.ErrorAt(
          pos, absl::StrCat(op_name, " '", name, "' has shape ",
                            shape.ToString(false), " but its start computes ",
                            value->shape().ToString(false)));
    }
    async_dones_[{c, name}] = value;
    return value;
  }

  absl::Status ParseOperand(Computation* c, Instruction* inst) {
    cursor_.SkipSpace();
    size_t pos = cursor_.pos();
    std::optional<Shape> shape;
    if (cursor_.PeekRaw() == '(') {
      XTUNE_ASSIGN_OR_RETURN(shape, ParseShapeText(cursor_));
    } else {
      XTUNE_ASSIGN_OR_RETURN(std::string token,
                             cursor_.ParseName("an operand"));
      if ((DTypeFromName(token).has_value() || token == "token") &&
          cursor_.PeekRaw() == '[') {
        cursor_.set_pos(pos);
        XTUNE_ASSIGN_OR_RETURN(shape, ParseShapeText(cursor_));
      } else {
        cursor_.set_pos(pos);
      }
    }
    cursor_.SkipSpace();
    size_t name_pos = cursor_.pos();
    XTUNE_ASSIGN_OR_RETURN(std::string name, cursor_.ParseName("an operand"));
    Instruction* operand = Lookup(c, name);
    if (operand != nullptr && cursor_.PeekRaw() == '#') {
      // Recent XLA writes an element of a tuple-shaped operand as `name#i`.
      cursor_.TryConsume('#');
      XTUNE_ASSIGN_OR_RETURN(int64_t index, cursor_.ParseInt());
      XTUNE_ASSIGN_OR_RETURN(operand, TupleElement(c, operand, index, name_pos));
    }
    if (async_bundles_.contains({c, name})) {
      return cursor_.ErrorAt(
          name_pos, absl::StrCat("'", name, "' is an async start or update: "
                                 "only its -update and -done may use it"));
    }
    if (operand == nullptr) {
      return cursor_.ErrorAt(
          name_pos, absl::StrCat("unknown operand '", name,
                                 "' (operands must be defined before use)"));
    }
    if (shape.has_value() && !shape->Compatible(operand->shape())) {
      return cursor_.ErrorAt(
          pos, absl::StrCat("operand '", name, "' is written as ",
                            shape->ToString(false), " but is defined as ",
                            operand->shape().ToString(false)));
    }
    inst->AppendOperand(operand);
    return absl::OkStatus();
  }

  absl::Status ParseAttribute(const std::string& attr, Instruction* inst) {
    if (IsCalleeAttribute(attr) && AttributeApplies(attr, inst->opcode())) {
      cursor_.SkipSpace();
      return ParseCalledComputation(inst, attr);
    }
    return ParseValueAttribute(attr, inst, cursor_);
  }

  // calls=name, calls={a, b}, or an inline body "{\n tmp_0 = ... }" as in
  // canonical text.
  absl::Status ParseCalledComputation(Instruction* inst,
                                      const std::string& attr) {
    cursor_.SkipSpace();
    size_t pos = cursor_.pos();
    if (cursor_.PeekRaw() == '{') {
      // Either a list of names or an inline body: look past the brace.
      size_t save = cursor_.pos();
      cursor_.TryConsume('{');
      absl::StatusOr<std::string> first = cursor_.ParseName();
      bool is_body = first.ok() && (cursor_.Peek() == '=' ||
                                    *first == "ROOT");
      cursor_.set_pos(save);
      if (is_body) {
        XTUNE_ASSIGN_OR_RETURN(
            Computation * body,
            ParseComputationBody(absl::StrCat(inst->name(), ".", attr, ".",
                                              module_->computations().size())));
        inst->AppendCalledComputation(body);
        return absl::OkStatus();
      }
      cursor_.TryConsume('{');
      while (true) {
        cursor_.SkipSpace();
        size_t name_pos = cursor_.pos();
        XTUNE_ASSIGN_OR_RETURN(std::string name,
                               cursor_.ParseName("a computation name"));
        pending_.push_back(
            {inst, name, name_pos, inst->called_computations().size()});
        inst->AppendCalledComputation(nullptr);
        if (cursor_.TryConsume('}')) break;
        XTUNE_RETURN_IF_ERROR(cursor_.Expect(',', "or '}' in a list"));
      }
      return absl::OkStatus();
    }
    XTUNE_ASSIGN_OR_RETURN(std::string name,
                           cursor_.ParseName("a computation name"));
    pending_.push_back({inst, name, pos, inst->called_computations().size()});
    inst->AppendCalledComputation(nullptr);
    return absl::OkStatus();
  }

  // While: [condition, body]; conditional with true_/false_computation:
  // [true, false], whatever order the attributes came in. `order` is the
  // called-computation attributes in source order (one slot each).
  void CanonicalCalleeOrder(Instruction* inst,
                            const std::vector<std::string>& order) {
    std::vector<std::string> want;
    if (inst->opcode() == Opcode::kWhile) {
      want = {"condition", "body"};
    } else if (inst->opcode() == Opcode::kSelectAndScatter) {
      want = {"select", "scatter"};
    } else if (inst->opcode() == Opcode::kConditional &&
               order.size() == 2 && order[0] != "branch_computations") {
      want = {"true_computation", "false_computation"};
    }
    if (want.empty() || order.size() != 2 || order == want) return;
    auto& called = const_cast<std::vector<Computation*>&>(
        inst->called_computations());
    if (called.size() != 2) return;
    std::swap(called[0], called[1]);
    for (PendingCall& p : pending_) {
      if (p.instruction == inst) p.slot = 1 - p.slot;
    }
  }

  absl::Status ResolveCalls() {
    for (const PendingCall& call : pending_) {
      Computation* callee = module_->FindComputation(call.callee);
      if (callee == nullptr) {
        return cursor_.ErrorAt(call.pos, absl::StrCat("unknown computation '",
                                                      call.callee, "'"));
      }
      auto& called =
          const_cast<std::vector<Computation*>&>(
              call.instruction->called_computations());
      called[call.slot] = callee;
    }
    return absl::OkStatus();
  }

  TextCursor cursor_;
  absl::string_view source_name_;
  ParseOptions options_;
  std::unique_ptr<Module> module_;
  std::vector<PendingCall> pending_;
  absl::flat_hash_set<std::string> computation_names_;
  absl::flat_hash_map<const Instruction*, size_t> positions_;
  // Async starts and updates, and dones, by (computation, name): the
  // synchronous operation each stands for (see ir/parser_async.h).
  absl::flat_hash_map<std::pair<const Computation*, std::string>, Instruction*>
      async_bundles_, async_dones_;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> ParseModule(
    absl::string_view text, absl::string_view source_name,
    const ParseOptions& options) {
  Parser parser(text, source_name, options);
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parser.ParseModule());
  if (options.verify) XTUNE_RETURN_IF_ERROR(VerifyModule(*module, text));
  return module;
}

absl::StatusOr<std::unique_ptr<Module>> ParseCanonicalComputation(
    absl::string_view text, absl::string_view source_name,
    const ParseOptions& options) {
  ParseOptions canonical_options = options;
  canonical_options.allow_elided_constants = true;
  Parser parser(text, source_name, canonical_options);
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> module,
                         parser.ParseCanonical());
  if (options.verify) XTUNE_RETURN_IF_ERROR(VerifyModule(*module, text));
  return module;
}

}  // namespace xtune
