// Sort fusions (fusion/fusion_pass.h): a sort or topk that one kernel
// computes, writing one of its outputs. Shared by the CPU (cpu_sort) and
// CUDA (cuda_sort) kernels: what the fusion sorts, and the comparator as a
// generated function.
#ifndef XTUNE_CODEGEN_CPU_SORT_FUSION_H_
#define XTUNE_CODEGEN_CPU_SORT_FUSION_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "ir/computation.h"

namespace xtune::cpu {

struct SortFusion {
  const Instruction* sort = nullptr;  // the sort or topk
  bool topk = false;
  int64_t output = 0;  // which of its outputs the fusion's root is
  int64_t dim = 0;     // the sorted dimension
  int64_t n = 0;       // its length
  int64_t keep = 0;    // outputs kept along it: n, or topk's k
  int64_t slices = 0;  // sorts per kernel run
};

// The sort of a fusion whose root is a sort/topk of one array or a
// get-tuple-element of one. InvalidArgument otherwise.
absl::StatusOr<SortFusion> AnalyzeSortFusion(const Computation& fused);

// Defines `XT_DEVICE bool xt_less(a0, b0, a1, b1, ...)` ("element a before
// element b", one pair of values per sort operand, in their register
// types): the sort's comparator, or topk's order (total order on floats,
// descending when largest, ties left to the stable sort).
absl::StatusOr<std::string> ComparatorFunction(const SortFusion& s,
                                               bool device_arrays);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_SORT_FUSION_H_
