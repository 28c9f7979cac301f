// The row reduction kernel (softmax, layer norm, plain row sums), written
// in named phases. Each task takes whole rows. A row is processed in
// passes: pass p loops over the row's columns once, accumulating every
// reduce of that pass (vector accumulators from the identity when the
// reduce is a simple add/mul/max/min, else one scalar accumulator in
// order), then computes the per-row values that need them; the last loop
// computes and stores the fused root. Elementwise values are recomputed in
// each pass that needs them, except reduce inputs that later passes need
// again, which go to a row buffer (softmax's exp). RowReductionKernelSource
// (kernel_source.h) is RowKernelWriter::Write(); the phases are public for
// their tests.
#ifndef XTUNE_CODEGEN_CPU_ROW_REDUCTION_KERNEL_H_
#define XTUNE_CODEGEN_CPU_ROW_REDUCTION_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/reduction_analysis.h"
#include "codegen/kernel_config.h"

namespace xtune::cpu {

// Per pass, per reduce: the row buffer ("xt_buf<k>") its input is stored
// in, or "" when it is recomputed (cheap: a parameter; or not needed after
// the pass; or not a float).
std::vector<std::vector<std::string>> PlanRowBuffers(const Computation& fused,
                                                     const RowFusion& f);

// The parameters read once per element (the full dims, default layout),
// whose next row is prefetched while later passes work on this one.
std::vector<int64_t> StreamedParameters(const Computation& fused,
                                        const RowFusion& f);

class RowKernelWriter {
 public:
  // InvalidArgument for a fusion the row kernel does not take (from
  // AnalyzeRowFusion) or a bad vector_width / unroll.
  static absl::StatusOr<std::unique_ptr<RowKernelWriter>> Create(
      const Computation& fused, const KernelConfig& config);

  // The whole translation unit: the phases below, in order.
  absl::StatusOr<std::string> Write();

  // The task's start: pointers, row buffers, the row loop, its indices.
  void EmitPrologue(CodeBuffer* body);
  // Pass p: accumulators, the loop over the row's columns (vector and tail),
  // the accumulators' finalization, and the per-row values it enables.
  absl::Status EmitPass(size_t p, CodeBuffer* body);
  // The fused root, stored per row or per element.
  absl::Status EmitRoot(CodeBuffer* body);
  // Closes the row loop, frees the buffers, closes the task.
  void EmitEpilogue(CodeBuffer* body);

  const RowFusion& fusion() const { return f_; }

 private:
  RowKernelWriter(const Computation& fused, RowFusion f, int width, int unroll);

  // Index expressions of the element at column `j` (lane offset `lane`).
  std::vector<IndexExpr> FullIndex(const std::string& j, int64_t lane) const;
  // Index of a per-row value of shape `s` for the current row.
  std::vector<IndexExpr> RowIndex(const Shape& s) const;
  // The loops over the columns but the last (the caller adds the last).
  void OpenColumnLoops(CodeBuffer* body) const;
  void CloseColumnLoops(CodeBuffer* body) const;
  // The offset of the current element within its row (row buffers).
  std::string ColumnOffset(const std::string& j) const;
  void PrefetchNextRow(const std::string& j, CodeBuffer* body) const;
  // Whether pass p's reduces all accumulate in vectors.
  bool VectorPass(size_t p) const;
  // The pieces of EmitPass.
  absl::Status EmitAccumulators(size_t p, bool vector_pass,
                                const std::vector<std::string>& names,
                                CodeBuffer* body);
  absl::Status EmitPassLoop(size_t p, bool vector_pass,
                            const std::vector<std::string>& names,
                            CodeBuffer* body);
  void FinalizePass(size_t p, bool vector_pass,
                    const std::vector<std::string>& names, CodeBuffer* body);
  absl::Status EmitRowValues(size_t p, CodeBuffer* body);

  const Computation& fused_;
  const RowFusion f_;
  const int width_;
  const int unroll_;
  const int64_t rank_;
  const int64_t last_;  // the innermost dimension
  std::vector<int64_t> strides_;
  std::vector<int64_t> column_strides_;  // 0 for the row dimensions
  ElementalEmitter vec_;
  ElementalEmitter sca_;
  absl::flat_hash_set<const Instruction*> bound_;
  std::vector<std::vector<std::string>> buffer_of_;
  int buffers_ = 0;
  std::vector<int64_t> streamed_;
  int reduce_id_ = 0;
};

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_ROW_REDUCTION_KERNEL_H_
