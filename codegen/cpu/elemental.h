// ElementalEmitter: generates C++ that computes one element (or one vector
// of W consecutive elements) of any instruction of a fused computation, by
// recursively computing its operands at the mapped indices — XLA's elemental
// IR emitter, producing C++ text.
//
// Index expressions are affine in the vector lane: lane l of dimension d has
// index `base + l * lane_stride`. Vector mode (width > 1) accepts only ops
// whose index maps stay affine (elementwise, broadcast, transpose, slice,
// reverse, iota, parameters, constants) on f16/bf16/f32/pred values;
// scalar mode (width 1) accepts every op of the subset but scatter (a dot
// becomes a loop over its contracting dimensions: correct, not fast;
// dynamic-slice, dynamic-update-slice and gather compute their operand
// index from the start indices they load).
#ifndef XTUNE_CODEGEN_CPU_ELEMENTAL_H_
#define XTUNE_CODEGEN_CPU_ELEMENTAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "codegen/cpu/code_buffer.h"
#include "ir/computation.h"

namespace xtune::cpu {

struct IndexExpr {
  std::string base;         // C++ expression of lane 0's index
  int64_t lane_stride = 0;  // index step from one lane to the next
};

class ElementalEmitter {
 public:
  // `param_pointer(i)` is the C++ expression of parameter i's data pointer,
  // typed by its element type (const float*, const uint16_t*, ...).
  // `width` is the vector width: 1 for scalar code.
  // `name_prefix` keeps the static data of several emitters of one kernel
  // apart.
  ElementalEmitter(int width, std::function<std::string(int64_t)> param_pointer,
                   std::string name_prefix = "xt_const");

  // Makes `inst` evaluate to the C++ variable `var` at every index (gemm
  // accumulators, per-row reduction results, to_apply arguments).
  void Bind(const Instruction* inst, std::string var);

  // Makes `inst` (an f32-family value) read from float buffer `pointer` at
  // offset sum(index[d] * strides[d]) — values stored by an earlier loop.
  void BindBuffer(const Instruction* inst, std::string pointer,
                  std::vector<int64_t> strides);

  // Emits into `out` the code computing `inst` at `index` (one entry per
  // logical dimension) and returns the variable holding the result.
  // Unimplemented for ops the mode cannot generate.
  absl::StatusOr<std::string> Emit(const Instruction* inst,
                                   const std::vector<IndexExpr>& index,
                                   CodeBuffer* out);

  // Whether vector mode can generate everything `root` depends on, not
  // looking past the instructions in `boundary` (values bound to variables).
  static bool Vectorizable(
      const Instruction* root,
      const absl::flat_hash_set<const Instruction*>& boundary = {});

  // The declaration qualifier of array constants in globals(). Default
  // "static const"; CUDA kernels need their arrays in device memory.
  void set_array_qualifier(std::string q) { array_qualifier_ = std::move(q); }

  // Static data (array constants) the emitted code refers to; goes at file
  // scope before the kernel.
  const std::string& globals() const { return globals_; }

  // C++ type of an element of `t` held in a register: float for
  // f16/bf16/f32, double, int64_t for integers, bool for pred.
  static std::string ScalarType(DType t);
  // C++ type of an element in memory: float, uint16_t, int8_t, ...
  static std::string StorageType(DType t);
  // Expression converting register value `v` of type `t` to storage.
  // `f` (a float expression) rounded to float type `t` (f16, bf16 or an
  // 8-bit float; `f` itself for f32 and f64).
  static std::string RoundTo(const std::string& f, DType t);
  static std::string ToStorage(const std::string& v, DType t);
  // `e` (an int64_t expression) wrapped to integer type `t`, as int64_t
  // (pred: a bool).
  static std::string WrapInteger(const std::string& e, DType t);
  // An int64_t literal with exactly the bits of `v`.
  static std::string IntegerLiteral(int64_t v);
  // A C++ literal for `v` as element type `t` (scalar).
  static std::string Literal(double v, DType t);
  // Expression reading element `at` of storage pointer `p` of type `t` as
  // its register type (scalar).
  static std::string FromStorage(const std::string& p, const std::string& at,
                                 DType t);

  // Applies a two-parameter to_apply (reduce, scatter) to two scalars;
  // returns the variable holding the result. Call once per code scope.
  absl::StatusOr<std::string> EmitCombine(const Computation& to_apply,
                                          const std::string& acc,
                                          const std::string& x,
                                          CodeBuffer* out);

  // The clamped start of every dimension of a dynamic-(update-)slice whose
  // start operands begin at `first`, as int64 variables.
  absl::StatusOr<std::vector<std::string>> EmitClampedStarts(
      const Instruction* inst, int64_t first, const Shape& slice,
      CodeBuffer* out);

 private:
  absl::StatusOr<std::string> EmitUncached(const Instruction* inst,
                                           const std::vector<IndexExpr>& index,
                                           CodeBuffer* out);
  absl::StatusOr<std::string> EmitParameterLoad(const Instruction* inst,
                                                const std::string& pointer,
                                                const std::vector<IndexExpr>& index,
                                                CodeBuffer* out);
  // Scalar value `a` of type `in` reinterpreted as type `t` of the same
  // width (bitcast-convert, and XLA's type-changing bitcast).
  absl::StatusOr<std::string> EmitBitsAs(const std::string& a, DType in, DType t,
                                         CodeBuffer* out);
  absl::StatusOr<std::string> EmitElementwise(const Instruction* inst,
                                              const std::vector<std::string>& ops,
                                              CodeBuffer* out);
  absl::StatusOr<std::string> EmitDot(const Instruction* inst,
                                      const std::vector<IndexExpr>& index,
                                      CodeBuffer* out);
  // Output `output` of a reduce (0 for one of a single input; a variadic
  // reduce's to_apply must end in a tuple).
  absl::StatusOr<std::string> EmitReduce(const Instruction* inst,
                                         int64_t output,
                                         const std::vector<IndexExpr>& index,
                                         CodeBuffer* out);
  // The indexing family (elemental_indexing.cc), scalar mode only.
  absl::StatusOr<std::string> EmitDynamicSlice(
      const Instruction* inst, const std::vector<IndexExpr>& index,
      CodeBuffer* out);
  absl::StatusOr<std::string> EmitDynamicUpdateSlice(
      const Instruction* inst, const std::vector<IndexExpr>& index,
      CodeBuffer* out);
  absl::StatusOr<std::string> EmitGather(const Instruction* inst,
                                         const std::vector<IndexExpr>& index,
                                         CodeBuffer* out);
  // A reduce's or reduce-window's accumulators, set to its initial values
  // (operands n..2n-1), and one step of it: acc = to_apply(acc, input at
  // `in_index`) for every input at once.
  absl::StatusOr<std::vector<std::string>> EmitAccumulators(const Instruction* inst,
                                                            CodeBuffer* out);
  absl::Status EmitAccumulate(const Instruction* inst, const std::vector<std::string>& accs,
                              const std::vector<IndexExpr>& in_index, CodeBuffer* out);
  // The windowed operations (elemental_window.cc), scalar mode only.
  absl::StatusOr<std::string> EmitConvolution(const Instruction* inst,
                                              const std::vector<IndexExpr>& index,
                                              CodeBuffer* out);
  absl::StatusOr<std::string> EmitReduceWindow(const Instruction* inst, int64_t output,
                                               const std::vector<IndexExpr>& index,
                                               CodeBuffer* out);
  absl::StatusOr<std::string> EmitSelectAndScatter(const Instruction* inst,
                                                   const std::vector<IndexExpr>& index,
                                                   CodeBuffer* out);
  std::string Splat(const std::string& scalar) const;

  int width_;
  std::string name_prefix_;
  std::function<std::string(int64_t)> param_pointer_;
  absl::flat_hash_map<const Instruction*, std::string> bound_;
  absl::flat_hash_map<const Instruction*,
                      std::pair<std::string, std::vector<int64_t>>>
      buffers_;
  absl::flat_hash_map<const Instruction*, std::string> constant_arrays_;
  std::string globals_;
  std::string array_qualifier_ = "static const";
};

// Physical offset of a logical multi-index under `shape`'s layout, as an
// affine expression (base string and lane stride).
IndexExpr PhysicalOffset(const Shape& shape, const std::vector<IndexExpr>& index);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_ELEMENTAL_H_
