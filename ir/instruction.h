// Instruction: one HLO instruction — name, opcode, result shape, operands and
// opcode-specific attributes — owned by its Computation.
//
// Operands are non-owning pointers to instructions of the same computation,
// called computations pointers to computations of the same module. Not
// thread-safe for mutation; concurrent reads are fine.
#ifndef XTUNE_IR_INSTRUCTION_H_
#define XTUNE_IR_INSTRUCTION_H_

#include "absl/strings/string_view.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace xtune {

class Computation;

// 1-based line and column in the source text; 0 when built in code.
struct SourceLocation {
  int line = 0;
  int column = 0;
};

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
absl::string_view ComparisonDirectionName(ComparisonDirection d);  // "EQ", ...

struct DotDimensions {
  std::vector<int64_t> lhs_batch;
  std::vector<int64_t> lhs_contracting;
  std::vector<int64_t> rhs_batch;
  std::vector<int64_t> rhs_contracting;
  bool operator==(const DotDimensions&) const = default;
};

struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDimension&) const = default;
};

struct PaddingDimension {
  int64_t low = 0;  // may be negative (cropping)
  int64_t high = 0;
  int64_t interior = 0;
  bool operator==(const PaddingDimension&) const = default;
};

// Gather's dimension numbers (XLA's GatherDimensionNumbers).
struct GatherDimensions {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensions&) const = default;
};

// Scatter's dimension numbers (XLA's ScatterDimensionNumbers).
struct ScatterDimensions {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensions&) const = default;
};

// An attribute xtune keeps but does not interpret (sharding,
// frontend_attributes, operand_precision, replica_groups, ...): its name and
// its value exactly as written.
struct RawAttribute {
  std::string name;
  std::string value;
  bool operator==(const RawAttribute&) const = default;
};

// One dimension of a `window={...}` (convolution, reduce-window,
// select-and-scatter), with XLA's defaults. base_dilation is `lhs_dilate`,
// window_dilation `rhs_dilate`, reversal `rhs_reversal`.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t pad_low = 0;
  int64_t pad_high = 0;
  int64_t base_dilation = 1;
  int64_t window_dilation = 1;
  bool reversal = false;
  bool operator==(const WindowDimension&) const = default;
};

// A convolution's `dim_labels=b01f_01io->b01f`: which dimension of the
// input (lhs), kernel (rhs) and output is which. Spatial lists are in
// spatial order (digit 0 first).
struct ConvDimensions {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
  bool operator==(const ConvDimensions&) const = default;
};

// Opcode-specific attributes. Each field says which opcodes use it.
struct InstructionAttrs {
  int64_t parameter_number = -1;        // parameter
  std::vector<int64_t> dimensions;      // broadcast transpose reduce reverse
                                        // concatenate sort (its one dimension)
  bool is_stable = false;               // sort
  int64_t k = 0;                        // topk
  bool largest = true;                  // topk
  int64_t exponent_bits = -1;           // reduce-precision
  int64_t mantissa_bits = -1;           // reduce-precision
  DotDimensions dot;                    // dot
  std::vector<SliceDimension> slice;    // slice
  std::vector<PaddingDimension> padding;  // pad
  std::vector<int64_t> slice_sizes;     // gather `slice_sizes`,
                                        // dynamic-slice `dynamic_slice_sizes`
  GatherDimensions gather;              // gather
  ScatterDimensions scatter;            // scatter
  std::vector<WindowDimension> window;  // convolution reduce-window
                                        // select-and-scatter
  ConvDimensions conv;                  // convolution `dim_labels`
  int64_t feature_group_count = 1;      // convolution
  int64_t batch_group_count = 1;        // convolution
  bool indices_are_sorted = false;      // gather scatter
  bool unique_indices = false;          // scatter
  ComparisonDirection direction = ComparisonDirection::kEq;  // compare
  std::string comparison_type;          // compare `type=`; "" = default
  int64_t tuple_index = 0;              // get-tuple-element `index=`
  int64_t iota_dimension = 0;           // iota
  std::string fusion_kind;              // fusion `kind=` (kLoop, kCustom, ...)
  Literal literal;                      // constant
  bool literal_elided = false;          // constant printed as {...} in a
                                        // cache key: value unknown
  std::string backend_config;           // raw text: JSON object or "string"
  std::string metadata;                 // raw text of `metadata={...}`
  std::vector<RawAttribute> other;      // everything else, in source order
};

class Instruction {
 public:
  Instruction(std::string name, Opcode opcode, Shape shape)
      : name_(std::move(name)), opcode_(opcode), shape_(std::move(shape)) {}
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Opcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  const std::vector<Instruction*>& operands() const { return operands_; }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  // Appends an operand and records this instruction as its user.
  void AppendOperand(Instruction* operand);
  // Instructions using this one, each once, in the order they were added.
  const std::vector<Instruction*>& users() const { return users_; }

  // to_apply (reduce, call, all-reduce, scatter) or calls (fusion).
  const std::vector<Computation*>& called_computations() const {
    return called_;
  }
  void AppendCalledComputation(Computation* c) { called_.push_back(c); }

  // The attributes; every field at its default for an instruction that was
  // given none (most elementwise ones: they share one default record, so
  // a million-instruction module does not hold a million of them).
  const InstructionAttrs& attrs() const { return attrs_ ? *attrs_ : DefaultAttrs(); }
  bool has_attrs() const { return attrs_ != nullptr; }
  InstructionAttrs* mutable_attrs() {
    if (!attrs_) attrs_ = std::make_unique<InstructionAttrs>();
    return attrs_.get();
  }

  Computation* parent() const { return parent_; }
  void set_parent(Computation* parent) { parent_ = parent; }
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }

  // Same opcode, shape (with layout), operand names, called computation
  // names and attributes; metadata is ignored.
  bool Identical(const Instruction& other) const;

 private:
  std::string name_;
  Opcode opcode_;
  Shape shape_;
  std::vector<Instruction*> operands_;
  std::vector<Instruction*> users_;
  std::vector<Computation*> called_;
  static const InstructionAttrs& DefaultAttrs();
  std::unique_ptr<InstructionAttrs> attrs_;  // null: all defaults
  Computation* parent_ = nullptr;
  SourceLocation location_;
};

}  // namespace xtune

#endif  // XTUNE_IR_INSTRUCTION_H_
