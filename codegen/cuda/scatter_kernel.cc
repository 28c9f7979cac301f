// Scatter fusions on CUDA (config "cuda_scatter" {block_size}), one launch
// and no atomics, deterministic like every other backend (ir/indexing.h:
// scatter indices in row-major order, window elements inner).
//
// The output is split by its "owned" dimensions: those a window dimension
// covers and no start index moves (the embedding's feature dimension in a
// scatter-add gradient). Every update a thread applies lands on its own
// coordinates along them, so each thread copies its slice of the operand
// and then applies, in order, every update that reaches it: no barrier and
// no race. When a scattered dimension has a window wider than one, updates
// of different window positions can meet, there is no owned dimension, and
// one thread does all the work (correct, not fast).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cuda/kernel_frame.h"
#include "codegen/cuda/scatter_kernel.h"
#include "ir/indexing.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

// Row-major decode of `var` into `prefix<d>` over the (d, size) pairs.
void Decode(const std::string& var,
            const std::vector<std::pair<int64_t, int64_t>>& dims,
            const std::string& prefix, CodeBuffer* out) {
  int64_t stride = 1;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    out->Linef("const int64_t ", prefix, it->first, " = (", var, " / ",
               stride, ") % ", it->second, ";");
    stride *= it->second;
  }
}

int64_t Product(const std::vector<std::pair<int64_t, int64_t>>& dims) {
  int64_t n = 1;
  for (const auto& d : dims) n *= d.second;
  return n;
}

}  // namespace

int64_t ScatterOwners(const Instruction& scatter) {
  if (!cpu::ScatterWindowsAreDisjoint(scatter)) return 1;
  const IndexingPlan plan = MakeScatterPlan(scatter);
  int64_t owners = 1;
  for (size_t d = 0; d < plan.operand.size(); ++d) {
    const OperandDimSource& s = plan.operand[d];
    if (s.window_dim >= 0 && s.start_component < 0 && s.batch_indices_dim < 0) {
      owners *= scatter.shape().dim(d);
    }
  }
  return owners;
}

absl::StatusOr<CudaKernelSource> ScatterKernel(const Computation& fused,
                                               const KernelConfig& config,
                                               const CudaKernelOptions& options) {
  const Instruction* s = fused.root();
  if (s->opcode() != Opcode::kScatter) {
    return absl::InvalidArgumentError("cuda_scatter needs a scatter root");
  }
  if (s->shape().IsTuple()) {
    return absl::UnimplementedError("scatters of several operands");
  }
  const int64_t block = config.Get("block_size", 128);
  if (block < 32 || block > 1024 || block % 32 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block_size=", block, ": must be a multiple of 32 from 32 to 1024"));
  }
  const Shape& shape = s->shape();
  const DType t = shape.dtype();
  const Instruction* indices = s->operand(1);
  const Instruction* updates = s->operand(2);
  const std::vector<int64_t>& u_dims = updates->shape().dims();
  const IndexingPlan plan = MakeScatterPlan(*s);
  const bool disjoint = cpu::ScatterWindowsAreDisjoint(*s);
  // Owned operand dimensions (and their window dimension), the free ones,
  // the window dimensions the owner does not fix, the scatter dimensions.
  std::vector<std::pair<int64_t, int64_t>> owned, free, rest, scattered;
  std::vector<int64_t> owner_of_window(u_dims.size(), -1);
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const OperandDimSource& src = plan.operand[d];
    if (disjoint && src.window_dim >= 0 && src.start_component < 0 &&
        src.batch_indices_dim < 0) {
      owned.push_back({d, shape.dim(d)});
      owner_of_window[src.window_dim] = d;
    } else {
      free.push_back({d, shape.dim(d)});
    }
  }
  const std::vector<int64_t>& window_dims = s->attrs().scatter.update_window_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(u_dims.size()); ++d) {
    bool window = std::find(window_dims.begin(), window_dims.end(), d) !=
                  window_dims.end();
    if (!window) {
      scattered.push_back({d, u_dims[d]});
    } else if (owner_of_window[d] < 0) {
      rest.push_back({d, u_dims[d]});
    }
  }
  const int64_t owners = Product(owned);
  std::vector<DType> inputs;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    inputs.push_back(fused.parameter(i)->shape().dtype());
  }
  Frame frame = MakeKernelFrame(inputs, t, static_cast<int>(block));
  ElementalEmitter emitter = MakeEmitter("xt_const");
  CodeBuffer body;
  body.Open(frame.signature);
  body.Linef("const int64_t xt_t = (int64_t)xt_bid() * ", block,
             " + xt_tid();");
  body.Open(absl::StrCat("if (xt_t < ", owners, ")"));
  Decode("xt_t", owned, "xt_o", &body);
  std::vector<IndexExpr> out_index(shape.rank());
  for (int64_t d = 0; d < shape.rank(); ++d) {
    out_index[d] = {absl::StrCat("xt_o", d), 0};
  }
  // The operand's values, this thread's slice.
  body.Open(absl::StrCat("for (int64_t xt_f = 0; xt_f < ", Product(free),
                         "; ++xt_f)"));
  Decode("xt_f", free, "xt_o", &body);
  {
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           emitter.Emit(s->operand(0), out_index, &body));
    IndexExpr off = PhysicalOffset(shape, out_index);
    body.Linef("XT_G(xt_out)[", off.base, "] = ",
               ElementalEmitter::ToStorage(v, t), ";");
  }
  body.Close();
  // The updates that reach it, in order.
  std::vector<std::string> in_window;
  for (const auto& [d, size] : owned) {
    in_window.push_back(absl::StrCat("xt_o", d, " < ",
                                     u_dims[plan.operand[d].window_dim]));
  }
  if (!in_window.empty()) {
    body.Linef("if (!(", absl::StrJoin(in_window, " && "), ")) return;");
  }
  body.Open(absl::StrCat("for (int64_t xt_i = 0; xt_i < ", Product(scattered),
                         "; ++xt_i)"));
  Decode("xt_i", scattered, "xt_u", &body);
  std::vector<IndexExpr> position;
  for (int64_t src : plan.indices_dim_source) {
    position.push_back(src >= 0 ? IndexExpr{absl::StrCat("xt_u", src), 0}
                                : IndexExpr{"0", 0});
  }
  std::vector<std::string> starts, fits;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const OperandDimSource& src = plan.operand[d];
    std::string start = "0";
    if (src.start_component >= 0) {
      std::vector<IndexExpr> at = position;
      if (plan.index_vector_dim < static_cast<int64_t>(at.size())) {
        at[plan.index_vector_dim] = {absl::StrCat(src.start_component), 0};
      }
      XTUNE_ASSIGN_OR_RETURN(std::string v, emitter.Emit(indices, at, &body));
      start = body.Fresh("start");
      body.Linef("const int64_t ", start, " = (int64_t)", v, ";");
      fits.push_back(absl::StrCat("xt_window_fits(", start, ", ", shape.dim(d),
                                  ", ", src.size, ")"));
    } else if (src.batch_indices_dim >= 0) {
      start = position[src.batch_indices_dim].base;
    }
    starts.push_back(start);
  }
  if (!fits.empty()) {
    body.Linef("if (!(", absl::StrJoin(fits, " && "), ")) continue;");
  }
  body.Open(absl::StrCat("for (int64_t xt_r = 0; xt_r < ", Product(rest),
                         "; ++xt_r)"));
  Decode("xt_r", rest, "xt_u", &body);
  for (int64_t wd = 0; wd < static_cast<int64_t>(u_dims.size()); ++wd) {
    if (owner_of_window[wd] >= 0) {
      body.Linef("const int64_t xt_u", wd, " = xt_o", owner_of_window[wd], ";");
    }
  }
  std::vector<IndexExpr> u_index, o_index;
  for (size_t d = 0; d < u_dims.size(); ++d) {
    u_index.push_back({absl::StrCat("xt_u", d), 0});
  }
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const OperandDimSource& src = plan.operand[d];
    o_index.push_back(
        {src.window_dim >= 0
             ? absl::StrCat("(", starts[d], " + xt_u", src.window_dim, ")")
             : starts[d],
         0});
  }
  IndexExpr off = PhysicalOffset(shape, o_index);
  XTUNE_ASSIGN_OR_RETURN(std::string u, emitter.Emit(updates, u_index, &body));
  std::string cur = body.Fresh("cur");
  body.Linef("const ", ElementalEmitter::ScalarType(t), " ", cur, " = ",
             ElementalEmitter::FromStorage("XT_G(xt_out)", off.base, t), ";");
  XTUNE_ASSIGN_OR_RETURN(
      std::string combined,
      emitter.EmitCombine(*s->called_computations()[0], cur, u, &body));
  body.Linef("XT_G(xt_out)[", off.base, "] = ",
             ElementalEmitter::ToStorage(combined, t), ";");
  body.Close();  // window rest
  body.Close();  // scatter indices
  body.Close();  // if owner
  body.Close();  // kernel
  return Assemble(options, frame, emitter, body, CeilDiv(owners, block), block);
}

}  // namespace xtune::cuda
