#include "codegen/cuda/cudnn.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

// cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h of cuDNN 9.
using Status = int;  // cudnnStatus_t
constexpr Status kSuccess = 0;
constexpr int kFloat = 0, kHalf = 2, kBFloat16 = 9;  // cudnnDataType_t
constexpr int kNhwc = 1;                             // cudnnTensorFormat_t
constexpr int kCrossCorrelation = 1;                 // cudnnConvolutionMode_t
constexpr int kTensorOpMath = 1, kFmaMath = 3;       // cudnnMathType_t
constexpr int kFwdAlgorithms = 8;                    // CUDNN_CONVOLUTION_FWD_ALGO_COUNT

struct AlgoPerf {  // cudnnConvolutionFwdAlgoPerf_t, 48 bytes
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};
static_assert(sizeof(AlgoPerf) == 48, "cudnnConvolutionFwdAlgoPerf_t is 48 bytes");

int DataType(DType t) {
  switch (t) {
    case DType::kF16: return kHalf;
    case DType::kBF16: return kBFloat16;
    default: return kFloat;
  }
}

}  // namespace

struct Cudnn::Api {
  Status (*create)(void**);
  Status (*destroy)(void*);
  Status (*set_stream)(void*, void*);
  const char* (*error_string)(Status);
  size_t (*get_version)();
  Status (*tensor_create)(void**);
  Status (*tensor_set_ex)(void*, int, int, int, const int*);
  Status (*tensor_destroy)(void*);
  Status (*filter_create)(void**);
  Status (*filter_set)(void*, int, int, int, const int*);
  Status (*filter_destroy)(void*);
  Status (*conv_create)(void**);
  Status (*conv_set)(void*, int, const int*, const int*, const int*, int, int);
  Status (*conv_groups)(void*, int);
  Status (*conv_math)(void*, int);
  Status (*conv_destroy)(void*);
  Status (*output_dim)(const void*, const void*, const void*, int, int*);
  Status (*max_count)(void*, int*);
  Status (*heuristic)(void*, const void*, const void*, const void*, const void*, int, int*,
                      AlgoPerf*);
  Status (*workspace)(void*, const void*, const void*, const void*, const void*, int, size_t*);
  Status (*forward)(void*, const void*, const void*, const void*, const void*, const void*,
                    const void*, int, void*, size_t, const void*, const void*, void*);
};

// The descriptors of one shape and what cuDNN says of each algorithm.
struct Cudnn::Plan {
  explicit Plan(const Api* api) : api(api) {}
  ~Plan() {
    if (x) api->tensor_destroy(x);
    if (y) api->tensor_destroy(y);
    if (w) api->filter_destroy(w);
    if (conv) api->conv_destroy(conv);
  }
  const Api* api;
  absl::Status error;  // why the shape cannot run (kept, not retried)
  void* x = nullptr;
  void* y = nullptr;
  void* w = nullptr;
  void* conv = nullptr;
  std::vector<AlgoPerf> algorithms;  // supported ones, the heuristic's order
};

absl::StatusOr<std::unique_ptr<Cudnn>> Cudnn::Load() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("XTUNE_CUDNN"); env != nullptr && *env) {
    tried = {env};
  } else {
    tried = {"libcudnn.so.9", "/usr/local/cuda/lib64/libcudnn.so.9"};
    if (const char* dir = std::getenv("XTUNE_CUDNN_DIR"); dir != nullptr && *dir) {
      tried.push_back(absl::StrCat(dir, "/libcudnn.so.9"));
    }
  }
  std::unique_ptr<Cudnn> dnn(new Cudnn());
  std::string refused;
  for (const std::string& name : tried) {
    dnn->library_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (dnn->library_ == nullptr) continue;
    absl::Status made = dnn->Init();
    if (made.ok()) return dnn;
    absl::StrAppend(&refused, refused.empty() ? "" : "; ", name, ": ", made.message());
    dnn->api_.reset();
    dnn->library_ = nullptr;  // left loaded, as cuBLASLt
  }
  if (!refused.empty()) return absl::UnavailableError(refused);
  return absl::UnavailableError(absl::StrCat(
      "cuDNN not found (tried ", absl::StrJoin(tried, ", "),
      "; XTUNE_CUDNN_DIR names the folder of a Python wheel's libcudnn.so.9)"));
}

absl::Status Cudnn::Init() {
  api_ = std::make_unique<Api>();
  Api& a = *api_;
  struct {
    const char* name;
    void** slot;
  } symbols[] = {
      {"cudnnCreate", reinterpret_cast<void**>(&a.create)},
      {"cudnnDestroy", reinterpret_cast<void**>(&a.destroy)},
      {"cudnnSetStream", reinterpret_cast<void**>(&a.set_stream)},
      {"cudnnGetErrorString", reinterpret_cast<void**>(&a.error_string)},
      {"cudnnGetVersion", reinterpret_cast<void**>(&a.get_version)},
      {"cudnnCreateTensorDescriptor", reinterpret_cast<void**>(&a.tensor_create)},
      {"cudnnSetTensorNdDescriptorEx", reinterpret_cast<void**>(&a.tensor_set_ex)},
      {"cudnnDestroyTensorDescriptor", reinterpret_cast<void**>(&a.tensor_destroy)},
      {"cudnnCreateFilterDescriptor", reinterpret_cast<void**>(&a.filter_create)},
      {"cudnnSetFilterNdDescriptor", reinterpret_cast<void**>(&a.filter_set)},
      {"cudnnDestroyFilterDescriptor", reinterpret_cast<void**>(&a.filter_destroy)},
      {"cudnnCreateConvolutionDescriptor", reinterpret_cast<void**>(&a.conv_create)},
      {"cudnnSetConvolutionNdDescriptor", reinterpret_cast<void**>(&a.conv_set)},
      {"cudnnSetConvolutionGroupCount", reinterpret_cast<void**>(&a.conv_groups)},
      {"cudnnSetConvolutionMathType", reinterpret_cast<void**>(&a.conv_math)},
      {"cudnnDestroyConvolutionDescriptor", reinterpret_cast<void**>(&a.conv_destroy)},
      {"cudnnGetConvolutionNdForwardOutputDim", reinterpret_cast<void**>(&a.output_dim)},
      {"cudnnGetConvolutionForwardAlgorithmMaxCount", reinterpret_cast<void**>(&a.max_count)},
      {"cudnnGetConvolutionForwardAlgorithm_v7", reinterpret_cast<void**>(&a.heuristic)},
      {"cudnnGetConvolutionForwardWorkspaceSize", reinterpret_cast<void**>(&a.workspace)},
      {"cudnnConvolutionForward", reinterpret_cast<void**>(&a.forward)},
  };
  for (auto& s : symbols) {
    *s.slot = dlsym(library_, s.name);
    if (*s.slot == nullptr) return absl::UnavailableError(absl::StrCat("cuDNN lacks ", s.name));
  }
  version_ = static_cast<int64_t>(a.get_version());
  if (version_ < 90000) {
    return absl::UnavailableError(
        absl::StrCat("cuDNN ", VersionString(), " is older than 9 (its status codes differ)"));
  }
  if (Status s = a.create(&handle_); s != kSuccess) {
    handle_ = nullptr;
    return absl::UnavailableError(absl::StrCat("cudnnCreate: ", Error(s)));
  }
  if (Status s = a.set_stream(handle_, nullptr); s != kSuccess) {
    return absl::UnavailableError(absl::StrCat("cudnnSetStream: ", Error(s)));
  }
  return absl::OkStatus();
}

Cudnn::~Cudnn() {
  plans_.clear();  // their descriptors go before the handle
  if (api_ != nullptr && handle_ != nullptr) api_->destroy(handle_);
}

std::string Cudnn::VersionString() const {
  return absl::StrCat(version_ / 10000, ".", version_ / 100 % 100, ".", version_ % 100);
}

std::string Cudnn::Error(int status) const {
  const char* s = api_ ? api_->error_string(status) : nullptr;
  return s != nullptr ? std::string(s) : absl::StrCat("cudnnStatus ", status);
}

absl::StatusOr<Cudnn::Plan*> Cudnn::PlanFor(const ConvShape& s, bool tensor_ops) {
  std::string key = absl::StrCat(s.batch, ",", s.in_features, ",", s.out_features, ",",
                                 s.groups, ",", static_cast<int>(s.pack_type), ",",
                                 tensor_ops, ";", absl::StrJoin(s.in_spatial, ","), ";",
                                 absl::StrJoin(s.kernel_spatial, ","), ";",
                                 absl::StrJoin(s.stride, ","), ";",
                                 absl::StrJoin(s.dilation, ","));
  auto it = plans_.find(key);
  if (it != plans_.end()) {
    if (!it->second->error.ok()) return it->second->error;
    return it->second.get();
  }
  auto plan = std::make_unique<Plan>(api_.get());
  absl::Status made = Describe(s, tensor_ops, plan.get());
  Plan* out = plan.get();
  plans_.emplace(key, std::move(plan));
  if (!made.ok()) {
    out->error = made;
    return made;
  }
  return out;
}

absl::Status Cudnn::Describe(const ConvShape& s, bool tensor_ops, Plan* p) {
  const Api& a = *api_;
  auto check = [&](Status st, const char* what) -> absl::Status {
    if (st == kSuccess) return absl::OkStatus();
    if (st / 1000 == 3) {
      return absl::UnimplementedError(absl::StrCat(what, ": ", Error(st)));
    }
    return absl::InternalError(absl::StrCat(what, ": ", Error(st)));
  };
  // cuDNN's dims: N, C, spatial... (one spatial dimension as two).
  std::vector<int> in = {static_cast<int>(s.batch), static_cast<int>(s.in_features)};
  std::vector<int> out = {static_cast<int>(s.batch), static_cast<int>(s.out_features)};
  std::vector<int> filter = {static_cast<int>(s.out_features),
                             static_cast<int>(s.in_features / s.groups)};
  std::vector<int> pad, stride, dilation;
  if (s.in_spatial.size() == 1) {
    in.push_back(1), out.push_back(1), filter.push_back(1);
    pad.push_back(0), stride.push_back(1), dilation.push_back(1);
  }
  for (size_t i = 0; i < s.in_spatial.size(); ++i) {
    in.push_back(static_cast<int>(s.in_spatial[i]));
    out.push_back(static_cast<int>(s.out_spatial[i]));
    filter.push_back(static_cast<int>(s.kernel_spatial[i]));
    pad.push_back(0);
    stride.push_back(static_cast<int>(s.stride[i]));
    dilation.push_back(static_cast<int>(s.dilation[i]));
  }
  const int rank = static_cast<int>(in.size());
  const int t = DataType(s.pack_type);
  XTUNE_RETURN_IF_ERROR(check(a.tensor_create(&p->x), "cudnnCreateTensorDescriptor"));
  XTUNE_RETURN_IF_ERROR(check(a.tensor_set_ex(p->x, kNhwc, t, rank, in.data()),
                              "cudnnSetTensorNdDescriptorEx (input)"));
  XTUNE_RETURN_IF_ERROR(check(a.tensor_create(&p->y), "cudnnCreateTensorDescriptor"));
  XTUNE_RETURN_IF_ERROR(check(a.tensor_set_ex(p->y, kNhwc, t, rank, out.data()),
                              "cudnnSetTensorNdDescriptorEx (output)"));
  XTUNE_RETURN_IF_ERROR(check(a.filter_create(&p->w), "cudnnCreateFilterDescriptor"));
  XTUNE_RETURN_IF_ERROR(check(a.filter_set(p->w, t, kNhwc, rank, filter.data()),
                              "cudnnSetFilterNdDescriptor"));
  XTUNE_RETURN_IF_ERROR(check(a.conv_create(&p->conv), "cudnnCreateConvolutionDescriptor"));
  XTUNE_RETURN_IF_ERROR(check(a.conv_set(p->conv, rank - 2, pad.data(), stride.data(),
                                         dilation.data(), kCrossCorrelation, kFloat),
                              "cudnnSetConvolutionNdDescriptor"));
  XTUNE_RETURN_IF_ERROR(check(a.conv_groups(p->conv, static_cast<int>(s.groups)),
                              "cudnnSetConvolutionGroupCount"));
  XTUNE_RETURN_IF_ERROR(check(a.conv_math(p->conv, tensor_ops ? kTensorOpMath : kFmaMath),
                              "cudnnSetConvolutionMathType"));
  std::vector<int> got(rank);
  XTUNE_RETURN_IF_ERROR(check(a.output_dim(p->conv, p->x, p->w, rank, got.data()),
                              "cudnnGetConvolutionNdForwardOutputDim"));
  if (got != out) {
    return absl::InternalError(absl::StrCat("cuDNN computes the output [",
                                            absl::StrJoin(got, ","), "], xtune [",
                                            absl::StrJoin(out, ","), "]"));
  }
  int count = 0;
  XTUNE_RETURN_IF_ERROR(check(a.max_count(handle_, &count),
                              "cudnnGetConvolutionForwardAlgorithmMaxCount"));
  std::vector<AlgoPerf> perf(std::max(count, kFwdAlgorithms));
  int returned = 0;
  XTUNE_RETURN_IF_ERROR(check(a.heuristic(handle_, p->x, p->w, p->conv, p->y,
                                          static_cast<int>(perf.size()), &returned, perf.data()),
                              "cudnnGetConvolutionForwardAlgorithm_v7"));
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status == kSuccess && perf[i].algo >= 0 && perf[i].algo < kFwdAlgorithms) {
      p->algorithms.push_back(perf[i]);
    }
  }
  if (p->algorithms.empty()) {
    return absl::UnimplementedError("cuDNN supports no forward algorithm for this convolution");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> Cudnn::Algorithms(const ConvShape& shape, bool tensor_ops,
                                                   int64_t max_workspace) {
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(Plan * p, PlanFor(shape, tensor_ops));
  std::vector<int> out;
  for (const AlgoPerf& perf : p->algorithms) {
    if (static_cast<int64_t>(perf.memory) <= max_workspace) out.push_back(perf.algo);
  }
  return out;
}

absl::Status Cudnn::Forward(const ConvShape& shape, int algorithm, bool tensor_ops, uint64_t x,
                            uint64_t w, uint64_t y, uint64_t workspace,
                            int64_t workspace_bytes) {
  MutexLock lock(&mu_);
  XTUNE_ASSIGN_OR_RETURN(Plan * p, PlanFor(shape, tensor_ops));
  const Api& a = *api_;
  int chosen = -1;
  for (const AlgoPerf& perf : p->algorithms) {
    if ((algorithm < 0 || perf.algo == algorithm) &&
        static_cast<int64_t>(perf.memory) <= workspace_bytes) {
      chosen = perf.algo;
      break;
    }
  }
  if (chosen < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cuDNN ", VersionString(), " offers no forward algorithm ",
        algorithm < 0 ? std::string("") : absl::StrCat(algorithm, " "),
        "for this convolution within ", workspace_bytes, " bytes of workspace"));
  }
  size_t bytes = 0;
  if (Status st = a.workspace(handle_, p->x, p->w, p->conv, p->y, chosen, &bytes);
      st != kSuccess || static_cast<int64_t>(bytes) > workspace_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cudnnGetConvolutionForwardWorkspaceSize (algorithm ", chosen, "): ",
        st != kSuccess ? Error(st) : absl::StrCat(bytes, " bytes needed")));
  }
  const float one = 1.0f, zero = 0.0f;
  Status st = a.forward(handle_, &one, p->x, reinterpret_cast<const void*>(x), p->w,
                        reinterpret_cast<const void*>(w), p->conv, chosen,
                        reinterpret_cast<void*>(workspace), bytes, &zero, p->y,
                        reinterpret_cast<void*>(y));
  if (st != kSuccess) {
    return absl::InternalError(
        absl::StrCat("cudnnConvolutionForward (algorithm ", chosen, "): ", Error(st)));
  }
  return absl::OkStatus();
}

}  // namespace xtune::cuda
