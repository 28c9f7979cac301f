// Pieces shared by the row and column reduction kernels
// (row_reduction_kernel.cc, column_reduction_kernel.cc).
#ifndef XTUNE_CODEGEN_CPU_REDUCTION_EMIT_H_
#define XTUNE_CODEGEN_CPU_REDUCTION_EMIT_H_

#include <string>
#include <vector>

#include "codegen/cpu/code_buffer.h"
#include "ir/computation.h"

namespace xtune::cpu {

// `acc op x` for a simple reduction's combiner.
std::string CombineExpr(Opcode op, const std::string& acc, const std::string& x);

// The task's typed input pointers xt_p<i> and output pointer xt_out.
void EmitReductionPointers(const Computation& fused, DType out_type,
                           CodeBuffer* body);

// The whole translation unit: header, XtArgs, the emitters' globals, the
// task `body`, and xtune_kernel splitting `tasks_of` rows (or columns) into
// tasks of config[2] each on config[3] threads.
std::string FinishReductionKernel(const std::string& body, int width,
                                  int64_t tasks_of,
                                  const std::vector<std::string>& globals);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_REDUCTION_EMIT_H_
