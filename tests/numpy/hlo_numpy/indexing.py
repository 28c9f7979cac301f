"""dynamic-slice, dynamic-update-slice, gather and scatter, written from
XLA's operation semantics (openxla.org/xla/operation_semantics), element by
element: slow and plain on purpose, an independent reference for xtune's
evaluator. Start indices clamp so the slice fits; a scatter window that does
not fit is skipped; scatter updates apply in row-major order of the
updates."""

import itertools

import numpy as np


def _clamp(start, dim, size):
    return min(max(int(start), 0), dim - size)


def dynamic_slice(x, starts, sizes):
    s = [_clamp(st, d, z) for st, d, z in zip(starts, x.shape, sizes)]
    return np.ascontiguousarray(
        x[tuple(slice(a, a + z) for a, z in zip(s, sizes))])


def dynamic_update_slice(x, update, starts):
    r = x.copy()
    s = [_clamp(st, d, z) for st, d, z in zip(starts, x.shape, update.shape)]
    r[tuple(slice(a, a + z) for a, z in zip(s, update.shape))] = update
    return r


def _index_vector(indices, batch_index, ivd):
    """The start-index vector at the batch position (indices' dimensions
    without index_vector_dim)."""
    if ivd == indices.ndim:
        return [indices[tuple(batch_index)]]
    pos = list(batch_index)
    pos.insert(ivd, slice(None))
    return list(indices[tuple(pos)])


def _batch_coordinate(batch_index, ivd, dim):
    """Coordinate of indices dimension `dim` in a batch index that skips
    index_vector_dim."""
    return batch_index[dim if dim < ivd else dim - 1]


def gather(x, indices, out_shape, offset_dims, collapsed, start_index_map,
           operand_batching, indices_batching, ivd, slice_sizes):
    out = np.zeros(out_shape, dtype=x.dtype)
    batch_dims = [d for d in range(len(out_shape)) if d not in offset_dims]
    window_operand_dims = [d for d in range(x.ndim)
                           if d not in collapsed and d not in operand_batching]
    for o in itertools.product(*[range(n) for n in out_shape]):
        b = [o[d] for d in batch_dims]
        vec = _index_vector(indices, b, ivd)
        pos = [0] * x.ndim
        for k, d in enumerate(start_index_map):
            pos[d] = _clamp(vec[k], x.shape[d], slice_sizes[d])
        for od, idim in zip(operand_batching, indices_batching):
            pos[od] = _batch_coordinate(b, ivd, idim)
        for k, d in enumerate(window_operand_dims):
            pos[d] += o[offset_dims[k]]
        out[o] = x[tuple(pos)]
    return out


def scatter(operands, indices, updates, window_dims, inserted, to_operand,
            input_batching, indices_batching, ivd, combine):
    results = [x.copy() for x in operands]
    u_shape = updates[0].shape
    scatter_dims = [d for d in range(len(u_shape)) if d not in window_dims]
    window_operand_dims = [d for d in range(operands[0].ndim)
                           if d not in inserted and d not in input_batching]
    size = [1] * operands[0].ndim
    for k, d in enumerate(window_operand_dims):
        size[d] = u_shape[window_dims[k]]
    for u in itertools.product(*[range(n) for n in u_shape]):
        b = [u[d] for d in scatter_dims]
        vec = _index_vector(indices, b, ivd)
        start = [0] * operands[0].ndim
        for k, d in enumerate(to_operand):
            start[d] = int(vec[k])
        for od, idim in zip(input_batching, indices_batching):
            start[od] = _batch_coordinate(b, ivd, idim)
        if any(s < 0 or s + z > n for s, z, n in
               zip(start, size, operands[0].shape)):
            continue
        pos = list(start)
        for k, d in enumerate(window_operand_dims):
            pos[d] += u[window_dims[k]]
        pos = tuple(pos)
        new = combine([r[pos] for r in results], [up[u] for up in updates])
        for r, v in zip(results, new):
            r[pos] = v
    return results
