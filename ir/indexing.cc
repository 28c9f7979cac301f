#include "ir/indexing.h"

#include <algorithm>

namespace xtune {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t PositionOf(const std::vector<int64_t>& v, int64_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : it - v.begin();
}

// Dimensions of [0, rank) not in `excluded`, in order.
std::vector<int64_t> Complement(int64_t rank,
                                const std::vector<int64_t>& excluded) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(excluded, d)) out.push_back(d);
  }
  return out;
}

// indices_dim_source: the k-th indices dimension other than
// index_vector_dim takes its coordinate from batch_dims[k].
std::vector<int64_t> IndicesSources(int64_t indices_rank, int64_t ivd,
                                    const std::vector<int64_t>& batch_dims) {
  std::vector<int64_t> sources(indices_rank, -1);
  size_t k = 0;
  for (int64_t t = 0; t < indices_rank; ++t) {
    if (t == ivd) continue;
    sources[t] = k < batch_dims.size() ? batch_dims[k] : -1;
    ++k;
  }
  return sources;
}

}  // namespace

IndexingPlan MakeGatherPlan(const Instruction& gather) {
  const GatherDimensions& g = gather.attrs().gather;
  const Shape& operand = gather.operand(0)->shape();
  const Shape& indices = gather.operand(1)->shape();
  IndexingPlan plan;
  plan.index_vector_dim = g.index_vector_dim;
  plan.indices_dim_source =
      IndicesSources(indices.rank(), g.index_vector_dim,
                     Complement(gather.shape().rank(), g.offset_dims));
  plan.operand.resize(operand.rank());
  size_t window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    OperandDimSource& s = plan.operand[d];
    s.start_component = PositionOf(g.start_index_map, d);
    int64_t m = PositionOf(g.operand_batching_dims, d);
    if (m >= 0) s.batch_indices_dim = g.start_indices_batching_dims[m];
    if (!Contains(g.collapsed_slice_dims, d) && m < 0 &&
        window < g.offset_dims.size()) {
      s.window_dim = g.offset_dims[window++];
    }
    s.size = gather.attrs().slice_sizes[d];
  }
  return plan;
}

IndexingPlan MakeScatterPlan(const Instruction& scatter) {
  const ScatterDimensions& sd = scatter.attrs().scatter;
  const int64_t n = scatter.operand_count() / 2;  // N operands, N updates
  const Shape& operand = scatter.operand(0)->shape();
  const Shape& indices = scatter.operand(n)->shape();
  const Shape& updates = scatter.operand(n + 1)->shape();
  IndexingPlan plan;
  plan.index_vector_dim = sd.index_vector_dim;
  plan.indices_dim_source =
      IndicesSources(indices.rank(), sd.index_vector_dim,
                     Complement(updates.rank(), sd.update_window_dims));
  plan.operand.resize(operand.rank());
  size_t window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    OperandDimSource& s = plan.operand[d];
    s.start_component = PositionOf(sd.scatter_dims_to_operand_dims, d);
    int64_t m = PositionOf(sd.input_batching_dims, d);
    if (m >= 0) s.batch_indices_dim = sd.scatter_indices_batching_dims[m];
    if (!Contains(sd.inserted_window_dims, d) && m < 0 &&
        window < sd.update_window_dims.size()) {
      s.window_dim = sd.update_window_dims[window++];
      s.size = updates.dim(s.window_dim);
    }
  }
  return plan;
}

void IndicesPosition(const IndexingPlan& plan,
                     const std::vector<int64_t>& index,
                     std::vector<int64_t>* indices_position) {
  indices_position->assign(plan.indices_dim_source.size(), 0);
  for (size_t t = 0; t < plan.indices_dim_source.size(); ++t) {
    int64_t src = plan.indices_dim_source[t];
    if (src >= 0) (*indices_position)[t] = index[src];
  }
}

}  // namespace xtune
