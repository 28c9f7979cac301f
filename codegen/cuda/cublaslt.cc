#include "codegen/cuda/cublaslt.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

// cublasLt.h, cublas_api.h and library_types.h of CUDA 13.
using Status = int;  // cublasStatus_t
constexpr Status kSuccess = 0;
constexpr int kComputeF32 = 68;      // CUBLAS_COMPUTE_32F
constexpr int kComputeF32Tf32 = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;  // cudaDataType
constexpr int kLayoutBatchCount = 5;              // int32
constexpr int kLayoutStridedBatchOffset = 6;      // int64
constexpr int kPrefMaxWorkspaceBytes = 1;         // uint64

struct Algo {
  uint64_t data[8];
};
struct HeuristicResult {
  Algo algo;
  size_t workspace_size;
  Status state;
  float waves_count;
  int reserved[4];
};

int DataType(DType t) {
  switch (t) {
    case DType::kF16: return kR16F;
    case DType::kBF16: return kR16BF;
    default: return kR32F;
  }
}

}  // namespace

struct CublasLt::Api {
  Status (*create)(void**);
  Status (*destroy)(void*);
  size_t (*get_version)();
  const char* (*status_string)(Status);
  Status (*desc_create)(void**, int, int);
  Status (*desc_destroy)(void*);
  Status (*layout_create)(void**, int, uint64_t, uint64_t, int64_t);
  Status (*layout_set)(void*, int, const void*, size_t);
  Status (*layout_destroy)(void*);
  Status (*pref_create)(void**);
  Status (*pref_set)(void*, int, const void*, size_t);
  Status (*pref_destroy)(void*);
  Status (*heuristic)(void*, void*, void*, void*, void*, void*, void*, int,
                      HeuristicResult*, int*);
  Status (*matmul)(void*, void*, const void*, const void*, void*, const void*,
                   void*, const void*, const void*, void*, void*, void*,
                   const Algo*, void*, size_t, void*);
};

// The descriptors of one shape and the algorithms proposed for it.
struct CublasLt::Heuristic {
  explicit Heuristic(const Api* api) : api(api) {}
  ~Heuristic() {
    if (a) api->layout_destroy(a);
    if (b) api->layout_destroy(b);
    if (c) api->layout_destroy(c);
    if (desc) api->desc_destroy(desc);
  }
  const Api* api;
  absl::Status error;  // why the heuristic offers nothing (kept, not retried)
  void* desc = nullptr;
  void* a = nullptr;  // cuBLAS's A: our B, column-major n x k
  void* b = nullptr;  // cuBLAS's B: our A, column-major k x m
  void* c = nullptr;  // column-major n x m, f32
  std::vector<HeuristicResult> algorithms;
};

absl::StatusOr<std::unique_ptr<CublasLt>> CublasLt::Load() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("XTUNE_CUBLASLT"); env != nullptr && *env) {
    tried = {env};
  } else {
    // cuBLASLt 13 needs a CUDA 13 driver; 12 has the same entry points.
    tried = {"libcublasLt.so.13", "/usr/local/cuda/lib64/libcublasLt.so.13",
             "libcublasLt.so.12", "/usr/local/cuda/lib64/libcublasLt.so.12",
             "libcublasLt.so", "/usr/local/cuda/lib64/libcublasLt.so"};
  }
  std::unique_ptr<CublasLt> lt(new CublasLt());
  std::string refused;
  for (const std::string& name : tried) {
    lt->library_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lt->library_ == nullptr) continue;
    // A library that loads but cannot make a handle (cuBLASLt 13 on a
    // CUDA 12 driver) gives way to the next one.
    absl::Status made = lt->Init();
    if (made.ok()) return lt;
    absl::StrAppend(&refused, refused.empty() ? "" : "; ", name, ": ",
                    made.message());
    lt->api_.reset();
    lt->library_ = nullptr;  // left loaded: see ~CublasLt
  }
  if (!refused.empty()) return absl::UnavailableError(refused);
  return absl::UnavailableError(absl::StrCat(
      "cuBLASLt not found (tried ", absl::StrJoin(tried, ", "), ")"));
}

absl::Status CublasLt::Init() {
  api_ = std::make_unique<Api>();
  Api& a = *api_;
  struct {
    const char* name;
    void** slot;
  } symbols[] = {
      {"cublasLtCreate", reinterpret_cast<void**>(&a.create)},
      {"cublasLtDestroy", reinterpret_cast<void**>(&a.destroy)},
      {"cublasLtGetVersion", reinterpret_cast<void**>(&a.get_version)},
      {"cublasLtGetStatusString", reinterpret_cast<void**>(&a.status_string)},
      {"cublasLtMatmulDescCreate", reinterpret_cast<void**>(&a.desc_create)},
      {"cublasLtMatmulDescDestroy", reinterpret_cast<void**>(&a.desc_destroy)},
      {"cublasLtMatrixLayoutCreate", reinterpret_cast<void**>(&a.layout_create)},
      {"cublasLtMatrixLayoutSetAttribute", reinterpret_cast<void**>(&a.layout_set)},
      {"cublasLtMatrixLayoutDestroy", reinterpret_cast<void**>(&a.layout_destroy)},
      {"cublasLtMatmulPreferenceCreate", reinterpret_cast<void**>(&a.pref_create)},
      {"cublasLtMatmulPreferenceSetAttribute", reinterpret_cast<void**>(&a.pref_set)},
      {"cublasLtMatmulPreferenceDestroy", reinterpret_cast<void**>(&a.pref_destroy)},
      {"cublasLtMatmulAlgoGetHeuristic", reinterpret_cast<void**>(&a.heuristic)},
      {"cublasLtMatmul", reinterpret_cast<void**>(&a.matmul)},
  };
  for (auto& s : symbols) {
    *s.slot = dlsym(library_, s.name);
    if (*s.slot == nullptr) {
      return absl::UnavailableError(absl::StrCat("cuBLASLt lacks ", s.name));
    }
  }
  version_ = static_cast<int64_t>(a.get_version());
  if (Status s = a.create(&handle_); s != kSuccess) {
    handle_ = nullptr;
    return absl::UnavailableError(absl::StrCat("cublasLtCreate: ", Error(s)));
  }
  return absl::OkStatus();
}

CublasLt::~CublasLt() {
  heuristics_.clear();  // their descriptors go before the handle
  if (api_ != nullptr && handle_ != nullptr) api_->destroy(handle_);
  // The library stays loaded: its CUDA runtime may still be referenced by
  // the process's context.
}

std::string CublasLt::Error(int status) const {
  const char* s = api_ ? api_->status_string(status) : nullptr;
  return s != nullptr ? std::string(s) : absl::StrCat("cublasStatus ", status);
}

absl::StatusOr<const CublasLt::Heuristic*> CublasLt::Algorithms(
    const GemmShape& s) {
  auto key = std::make_tuple(s.batch, s.m, s.n, s.k, static_cast<int>(s.pack_type),
                             s.tf32);
  auto it = heuristics_.find(key);
  if (it != heuristics_.end()) {
    if (!it->second->error.ok()) return it->second->error;
    return it->second.get();
  }
  auto h = std::make_unique<Heuristic>(api_.get());
  absl::Status made = Describe(s, h.get());
  Heuristic* out = h.get();
  heuristics_.emplace(key, std::move(h));
  if (!made.ok()) {
    out->error = made;
    return made;
  }
  return out;
}

absl::Status CublasLt::Describe(const GemmShape& s, Heuristic* h) {
  const Api& a = *api_;
  auto check = [&](Status st, const char* what) -> absl::Status {
    if (st == kSuccess) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(what, ": ", Error(st)));
  };
  int t = DataType(s.pack_type);
  XTUNE_RETURN_IF_ERROR(
      check(a.desc_create(&h->desc, s.tf32 ? kComputeF32Tf32 : kComputeF32, kR32F),
            "cublasLtMatmulDescCreate"));
  XTUNE_RETURN_IF_ERROR(check(a.layout_create(&h->a, t, s.n, s.k, s.n),
                              "cublasLtMatrixLayoutCreate"));
  XTUNE_RETURN_IF_ERROR(check(a.layout_create(&h->b, t, s.k, s.m, s.k),
                              "cublasLtMatrixLayoutCreate"));
  XTUNE_RETURN_IF_ERROR(check(a.layout_create(&h->c, kR32F, s.n, s.m, s.n),
                              "cublasLtMatrixLayoutCreate"));
  if (s.batch > 1) {
    int32_t count = static_cast<int32_t>(s.batch);
    int64_t strides[3] = {s.n * s.k, s.k * s.m, s.n * s.m};
    void* layouts[3] = {h->a, h->b, h->c};
    for (int i = 0; i < 3; ++i) {
      XTUNE_RETURN_IF_ERROR(check(
          a.layout_set(layouts[i], kLayoutBatchCount, &count, sizeof(count)),
          "cublasLtMatrixLayoutSetAttribute"));
      XTUNE_RETURN_IF_ERROR(check(a.layout_set(layouts[i], kLayoutStridedBatchOffset,
                                               &strides[i], sizeof(strides[i])),
                                  "cublasLtMatrixLayoutSetAttribute"));
    }
  }
  void* pref = nullptr;
  XTUNE_RETURN_IF_ERROR(check(a.pref_create(&pref), "cublasLtMatmulPreferenceCreate"));
  uint64_t workspace = kWorkspaceBytes;
  Status st = a.pref_set(pref, kPrefMaxWorkspaceBytes, &workspace, sizeof(workspace));
  std::vector<HeuristicResult> results(16);
  int returned = 0;
  if (st == kSuccess) {
    st = a.heuristic(handle_, h->desc, h->a, h->b, h->c, h->c, pref,
                     static_cast<int>(results.size()), results.data(), &returned);
  }
  a.pref_destroy(pref);
  XTUNE_RETURN_IF_ERROR(check(st, "cublasLtMatmulAlgoGetHeuristic"));
  for (int i = 0; i < returned; ++i) {
    if (results[i].state == kSuccess) h->algorithms.push_back(results[i]);
  }
  if (h->algorithms.empty()) {
    return absl::InternalError(absl::StrCat(
        "cuBLASLt proposes no algorithm for a ", s.batch, "x", s.m, "x", s.n,
        "x", s.k, " gemm"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> CublasLt::AlgorithmCount(const GemmShape& shape, int max) {
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(const Heuristic* h, Algorithms(shape));
  return std::min<int>(max, static_cast<int>(h->algorithms.size()));
}

absl::Status CublasLt::Gemm(const GemmShape& shape, int algorithm, uint64_t a,
                            uint64_t b, uint64_t c, uint64_t workspace) {
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(const Heuristic* h, Algorithms(shape));
  if (algorithm == kDefaultAlgorithm) algorithm = 0;  // the heuristic's first
  if (algorithm < 0 || algorithm >= static_cast<int>(h->algorithms.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cuBLASLt algorithm ", algorithm, " is not offered for this gemm (",
        h->algorithms.size(), " are)"));
  }
  const float alpha = 1.0f, beta = 0.0f;
  // Column-major C^T (n x m) = B^T (n x k) x A^T (k x m).
  Status st = api_->matmul(handle_, h->desc, &alpha, reinterpret_cast<void*>(b),
                           h->a, reinterpret_cast<void*>(a), h->b, &beta,
                           reinterpret_cast<void*>(c), h->c,
                           reinterpret_cast<void*>(c), h->c,
                           &h->algorithms[algorithm].algo,
                           reinterpret_cast<void*>(workspace), kWorkspaceBytes,
                           nullptr);
  if (st != kSuccess) {
    return absl::InternalError(absl::StrCat("cublasLtMatmul: ", Error(st)));
  }
  return absl::OkStatus();
}

}  // namespace xtune::cuda
