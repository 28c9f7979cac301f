// cuBLASLt (libcublasLt.so.13 from the CUDA toolkit), loaded with dlopen:
// the library gemm of the `cuda` backend (library_gemm.h) and the reference
// XLA also checks gemms against. Declares the small part of cublasLt.h it
// uses, so the build needs no CUDA headers.
//
// Row-major C[b] = A[b] (m x k) x B[b] (k x n) in f32 accumulation, with A
// and B of GemmShape::pack_type, is asked of cuBLASLt as the column-major
// C^T = B^T A^T (no transposes), strided batches. Candidates are the
// algorithms cuBLASLt's heuristic proposes for the shape, best first, and
// XLA's GemmKey{algorithm} is the index in that list.
//
// Thread-safe: calls are serialised on one handle.
#ifndef XTUNE_CODEGEN_CUDA_CUBLASLT_H_
#define XTUNE_CODEGEN_CUDA_CUBLASLT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/library_gemm.h"
#include "util/mutex.h"

namespace xtune::cuda {

class CublasLt {
 public:
  // The workspace every algorithm offered may use.
  static constexpr int64_t kWorkspaceBytes = int64_t{32} << 20;

  // Loads libcublasLt ($XTUNE_CUBLASLT names another path; else the CUDA 13
  // soname, then 12's, then unversioned, each also in /usr/local/cuda/lib64)
  // and creates a handle (which needs a GPU); a library whose handle cannot
  // be made gives way to the next. Unavailable naming what was tried or why the
  // handle could not be made.
  static absl::StatusOr<std::unique_ptr<CublasLt>> Load();
  ~CublasLt();

  // cuBLASLt's version, e.g. 130100.
  int64_t version() const { return version_; }

  // How many algorithms (at most `max`) the heuristic proposes for `shape`
  // within kWorkspaceBytes. Internal when it proposes none.
  absl::StatusOr<int> AlgorithmCount(const GemmShape& shape, int max);

  // XLA's se::blas::kDefaultAlgorithm: the library's own choice, which for
  // cuBLASLt is the heuristic's first algorithm.
  static constexpr int kDefaultAlgorithm = -1;

  // C = A x B with the heuristic's algorithm number `algorithm` (or
  // kDefaultAlgorithm), on the default stream (asynchronous). `workspace`
  // holds kWorkspaceBytes. InvalidArgument for an algorithm the heuristic
  // does not offer.
  absl::Status Gemm(const GemmShape& shape, int algorithm, uint64_t a,
                    uint64_t b, uint64_t c, uint64_t workspace);

 private:
  CublasLt() = default;
  struct Api;
  struct Heuristic;
  // dlsym()s the entry points and creates the handle.
  absl::Status Init();
  // The heuristic's algorithms for `shape` (cached, failures too), under
  // mu_; Describe fills a new entry.
  absl::StatusOr<const Heuristic*> Algorithms(const GemmShape& shape);
  absl::Status Describe(const GemmShape& shape, Heuristic* h);
  std::string Error(int status) const;

  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* handle_ = nullptr;
  int64_t version_ = 0;
  Mutex mu_;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int, bool>,
           std::unique_ptr<Heuristic>>
      heuristics_;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUBLASLT_H_
