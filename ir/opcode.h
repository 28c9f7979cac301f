// HLO opcodes of the supported subset, spelled as XLA prints them.
#ifndef XTUNE_IR_OPCODE_H_
#define XTUNE_IR_OPCODE_H_

#include <optional>
#include "absl/strings/string_view.h"

namespace xtune {

#define XTUNE_OPCODE_LIST(V)                          \
  V(kParameter, "parameter", kOther)                  \
  V(kConstant, "constant", kOther)                    \
  V(kIota, "iota", kOther)                            \
  V(kAdd, "add", kBinary)                             \
  V(kSubtract, "subtract", kBinary)                   \
  V(kMultiply, "multiply", kBinary)                   \
  V(kDivide, "divide", kBinary)                       \
  V(kRemainder, "remainder", kBinary)                 \
  V(kMaximum, "maximum", kBinary)                     \
  V(kMinimum, "minimum", kBinary)                     \
  V(kPower, "power", kBinary)                         \
  V(kAtan2, "atan2", kBinary)                         \
  V(kAnd, "and", kBinary)                             \
  V(kOr, "or", kBinary)                               \
  V(kXor, "xor", kBinary)                             \
  V(kShiftLeft, "shift-left", kBinary)                \
  V(kShiftRightLogical, "shift-right-logical", kBinary) \
  V(kShiftRightArithmetic, "shift-right-arithmetic", kBinary) \
  V(kNot, "not", kUnary)                              \
  V(kNegate, "negate", kUnary)                        \
  V(kAbs, "abs", kUnary)                              \
  V(kSign, "sign", kUnary)                            \
  V(kExp, "exponential", kUnary)                      \
  V(kExpm1, "exponential-minus-one", kUnary)          \
  V(kLog, "log", kUnary)                              \
  V(kLog1p, "log-plus-one", kUnary)                   \
  V(kTanh, "tanh", kUnary)                            \
  V(kTan, "tan", kUnary)                              \
  V(kLogistic, "logistic", kUnary)                    \
  V(kSqrt, "sqrt", kUnary)                            \
  V(kRsqrt, "rsqrt", kUnary)                          \
  V(kCbrt, "cbrt", kUnary)                            \
  V(kFloor, "floor", kUnary)                          \
  V(kCeil, "ceil", kUnary)                            \
  V(kRoundNearestEven, "round-nearest-even", kUnary)  \
  V(kRoundNearestAfz, "round-nearest-afz", kUnary)    \
  V(kCos, "cosine", kUnary)                           \
  V(kSin, "sine", kUnary)                             \
  V(kErf, "erf", kUnary)                              \
  V(kIsFinite, "is-finite", kUnary)                   \
  V(kClz, "count-leading-zeros", kUnary)              \
  V(kPopcnt, "popcnt", kUnary)                        \
  V(kReducePrecision, "reduce-precision", kUnary)     \
  V(kConvert, "convert", kUnary)                      \
  V(kBitcastConvert, "bitcast-convert", kOther)       \
  V(kBroadcast, "broadcast", kOther)                  \
  V(kReshape, "reshape", kOther)                      \
  V(kBitcast, "bitcast", kOther)                      \
  V(kTranspose, "transpose", kOther)                  \
  V(kSlice, "slice", kOther)                          \
  V(kConcatenate, "concatenate", kOther)              \
  V(kPad, "pad", kOther)                              \
  V(kReverse, "reverse", kOther)                      \
  V(kDot, "dot", kOther)                              \
  V(kConvolution, "convolution", kOther)              \
  V(kReduceWindow, "reduce-window", kOther)           \
  V(kSelectAndScatter, "select-and-scatter", kOther)  \
  V(kReduce, "reduce", kOther)                        \
  V(kSelect, "select", kOther)                        \
  V(kClamp, "clamp", kOther)                          \
  V(kCompare, "compare", kOther)                      \
  V(kFusion, "fusion", kOther)                        \
  V(kCall, "call", kOther)                            \
  V(kTuple, "tuple", kOther)                          \
  V(kGetTupleElement, "get-tuple-element", kOther)    \
  V(kCopy, "copy", kOther)                            \
  V(kAllReduce, "all-reduce", kOther)                 \
  V(kDynamicSlice, "dynamic-slice", kOther)           \
  V(kDynamicUpdateSlice, "dynamic-update-slice", kOther) \
  V(kGather, "gather", kOther)                        \
  V(kScatter, "scatter", kOther)                      \
  V(kWhile, "while", kOther)                          \
  V(kConditional, "conditional", kOther)              \
  V(kOptimizationBarrier, "opt-barrier", kOther)      \
  V(kAllGather, "all-gather", kOther)                 \
  V(kReduceScatter, "reduce-scatter", kOther)         \
  V(kAllToAll, "all-to-all", kOther)                  \
  V(kCollectivePermute, "collective-permute", kOther) \
  V(kReplicaId, "replica-id", kOther)                 \
  V(kPartitionId, "partition-id", kOther)             \
  V(kSort, "sort", kOther)                            \
  V(kTopK, "topk", kOther)                            \
  V(kMap, "map", kOther)                              \
  V(kAfterAll, "after-all", kOther)                   \
  V(kRngBitGenerator, "rng-bit-generator", kOther)    \
  V(kAddDependency, "add-dependency", kOther)      \
  V(kCustomCall, "custom-call", kOther)

enum class Opcode {
#define XTUNE_DECLARE_OPCODE(enum_name, text, kind) enum_name,
  XTUNE_OPCODE_LIST(XTUNE_DECLARE_OPCODE)
#undef XTUNE_DECLARE_OPCODE
};

// The HLO spelling, e.g. "exponential-minus-one".
absl::string_view OpcodeName(Opcode op);

// Parses an HLO spelling; nullopt for opcodes outside the subset.
std::optional<Opcode> OpcodeFromName(absl::string_view name);

// Elementwise with one operand (including convert) / with two operands.
bool IsUnaryElementwise(Opcode op);
bool IsBinaryElementwise(Opcode op);
// Unary, binary, select, clamp, compare: ops that map elements one to one.
bool IsElementwise(Opcode op);

}  // namespace xtune

#endif  // XTUNE_IR_OPCODE_H_
