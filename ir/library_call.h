// XLA's library custom-calls: the cuBLAS gemms XLA's GPU compiler writes into
// its optimized modules (`__cublas$gemm`, `__cublas$lt$matmul`), read from
// their `backend_config` (XLA's GemmBackendConfig, as JSON, bare or inside
// a GpuBackendConfig's "gemm_backend_config", or a string holding that JSON
// as older XLA modules write it).
//
// Semantics (cuBLASLt's, as XLA configures it), for D the custom-call's
// result (element 0 of its tuple):
//   D = act(alpha * dot(A, B) + beta * C + bias)
// with the dot of `dot_dimension_numbers` accumulated in f32 (f64 for f64),
// C the third operand (present exactly when beta != 0, same shape as D),
// bias the next operand when the epilogue has BIAS: a vector of D's last
// dimension, added to every row; act RELU (max(x, 0)) or GELU (XLA's tanh
// approximation, kGelu* below) or none. *_AUX epilogues also return the
// value before the activation as tuple element 1. The last tuple element is
// cuBLAS's s8 workspace, whose contents are undefined. alpha_imag must be
// 0 (no complex types).
//
// `__cublas$lt$matmul$f8` (cuBLASLt's FP8 gemm): A and B are 8-bit floats,
// followed by f32[] scales (ReadFp8Operands in the .cc says which forms):
//   v = act(alpha * a_scale * b_scale * dot(A, B) + beta * c_scale * C + bias)
//   amax = max |v| over all elements (tuple element 1 when damax_output)
//   D = v * d_scale, saturated to the largest finite value when D is 8-bit
//       (NaN stays NaN)
// each product rounded to f32 in that order.
//
// Every layer implements these semantics from ReadGemmCall: the evaluator
// (eval/library_call.cc) directly, the flatten pass (fusion/
// library_call_expander.cc) as a gemm fusion keyed by the custom-call.
// Thread-safe (no shared state).
#ifndef XTUNE_IR_LIBRARY_CALL_H_
#define XTUNE_IR_LIBRARY_CALL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/instruction.h"

namespace xtune {

inline constexpr absl::string_view kCublasGemmTarget = "__cublas$gemm";
inline constexpr absl::string_view kCublasLtMatmulTarget = "__cublas$lt$matmul";
inline constexpr absl::string_view kCublasLtMatmulF8Target = "__cublas$lt$matmul$f8";

enum class GemmEpilogue {
  kDefault, kBias, kRelu, kBiasRelu, kGelu, kGeluAux, kBiasGelu, kBiasGeluAux,
};
absl::string_view GemmEpilogueName(GemmEpilogue e);  // XLA's: "BIAS_GELU", ...
bool EpilogueHasBias(GemmEpilogue e);
bool EpilogueHasRelu(GemmEpilogue e);
bool EpilogueHasGelu(GemmEpilogue e);
bool EpilogueHasAux(GemmEpilogue e);

// XLA's GELU epilogue: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// computed in the gemm's compute type (f32, or f64 for f64).
inline constexpr double kGeluSqrt2OverPi = 0.7978845608028654;
inline constexpr double kGeluCubic = 0.044715;

// One library gemm, read and checked against its operands and result.
struct GemmCall {
  std::string target;             // one of the k*Target names above
  DotDimensions dot;
  double alpha = 1;               // alpha_real
  double beta = 0;
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  // precision_config.operand_precision in HLO's attribute form
  // ("{highest,highest}"); empty when the config names none.
  std::string operand_precision;
  // precision_config.algorithm in HLO's attribute form ("dot_f32_f32_f32");
  // empty when unset (ALG_UNSET). A named algorithm rules out TF32.
  std::string algorithm;
  int64_t c_operand = -1;         // operand index of C, or -1
  int64_t bias_operand = -1;      // operand index of the bias, or -1
  Shape result;                   // D's shape (layout included)
  int64_t aux_index = -1;         // tuple index of the aux output, or -1
  int64_t workspace_index = -1;   // tuple index of the workspace, or -1
  // FP8 gemms: operand indices of the f32[] scales (-1 when absent) and the
  // tuple index of amax (-1 unless damax_output).
  int64_t a_scale_operand = -1, b_scale_operand = -1;
  int64_t c_scale_operand = -1, d_scale_operand = -1;
  bool amax = false;
  int64_t amax_index = -1;
  std::optional<int64_t> selected_algorithm;  // as XLA's picker chose it
};

// The custom_call_target of a custom-call, unquoted; nullopt otherwise.
std::optional<std::string> CustomCallTarget(const Instruction& inst);

// Whether xtune runs custom-calls to `target`.
bool IsLibraryCallTarget(absl::string_view target);

// Custom-calls that only annotate their one operand for XLA's partitioner
// or memory placement (`Sharding`, `SPMDFullToShardShape`,
// `SPMDShardToFullShape`, `MoveToHost`, `MoveToDevice`, as JAX writes them
// before XLA's optimizations): on one device each is its operand, unchanged.
bool IsAnnotationCustomCall(const Instruction& inst);

// Reads a custom-call's gemm. Errors: Unimplemented for a target xtune does
// not run (naming those it does) or complex alpha; InvalidArgument for a
// backend_config that is not a gemm config, or operands and result that
// do not fit it.
absl::StatusOr<GemmCall> ReadGemmCall(const Instruction& custom_call);

// The text XLA keys a library call's autotuning result by (its gemm
// algorithm picker's AutotuneCacheKey): the instruction without its name,
// operand shapes printed, its attributes in source order and its
// backend_config with keys sorted and "selected_algorithm" (the answer, not
// the question) left out. A cuDNN convolution call is keyed as XLA's conv
// picker keys it: without the "algorithm" of its cudnn_conv_backend_config
// and with an empty scratch, u8[0]. XLA before 2024 printed the config in
// the order it was written, not sorted: `sort_config` false gives that
// form (its older files' keys).
absl::StatusOr<std::string> LibraryCallKeyText(const Instruction& custom_call,
                                               bool sort_config = true);

// A fusion standing for a library call (made by the flatten pass): the
// call's target and key text, kept in the fusion's backend_config so that
// printed and re-read fused modules keep them.
struct LibraryFusion {
  std::string target;
  std::string key;
  std::string legacy_key;  // the unsorted form, when it differs
};
std::string LibraryFusionBackendConfig(const LibraryFusion& call);
std::optional<LibraryFusion> LibraryFusionOf(const Instruction& fusion);

}  // namespace xtune

#endif  // XTUNE_IR_LIBRARY_CALL_H_
