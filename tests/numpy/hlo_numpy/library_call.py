"""XLA's cuBLAS gemm custom-calls (`__cublas$gemm`, `__cublas$lt$matmul`),
from XLA's GemmBackendConfig and cuBLASLt's epilogues:

    D = act(alpha * dot(A, B) + beta * C + bias)

C is the third operand when beta != 0; the bias (epilogues with BIAS) is
the next one, a vector along D's last dimension; act is RELU, GELU (the tanh
approximation) or nothing; *_AUX epilogues return the pre-activation value
too; the last tuple element is the s8 workspace (zeros here). Computed in
float64, rounded once to each output's type."""

import json

import numpy as np

from .dot import dot
from .dtypes import round_float, storage_dtype
from .shape import Shape

_TARGETS = ("__cublas$gemm", "__cublas$lt$matmul")


def _ints(v):
    return [int(x) for x in (v or [])]


def library_call(ins, ops, operand_dtypes):
    target = ins.attrs["custom_call_target"].strip().strip('"')
    if target not in _TARGETS:
        raise NotImplementedError("custom-call target " + target)
    config = json.loads(ins.attrs["backend_config"])
    config = config.get("gemm_backend_config", config)
    dnums = config["dot_dimension_numbers"]
    alpha = float(config.get("alpha_real", 1))
    beta = float(config.get("beta", 0))
    epilogue = config.get("epilogue", "DEFAULT")
    shape = ins.shape
    outs = shape.elements if shape.dtype == "tuple" else [shape]
    d_shape = outs[0]
    product = dot(ops[0], ops[1], operand_dtypes[0], operand_dtypes[1],
                  Shape("f64", d_shape.dims),
                  _ints(dnums.get("lhs_batch_dimensions")),
                  _ints(dnums.get("lhs_contracting_dimensions")),
                  _ints(dnums.get("rhs_batch_dimensions")),
                  _ints(dnums.get("rhs_contracting_dimensions")))
    v = alpha * np.asarray(product, np.float64)
    k = 2
    if beta != 0:
        v = v + beta * np.asarray(ops[k], np.float64)
        k += 1
    if "BIAS" in epilogue:
        v = v + np.asarray(ops[k], np.float64)  # broadcasts along the last dim
    aux = v
    if "RELU" in epilogue:
        v = np.maximum(v, 0.0)
    if "GELU" in epilogue:
        v = 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))
    results = [round_float(v, d_shape.dtype)]
    if epilogue.endswith("_AUX"):
        results.append(round_float(aux, outs[1].dtype))
    if len(outs) > len(results):
        w = outs[-1]
        results.append(np.zeros(w.dims, storage_dtype(w.dtype)))
    return results if shape.dtype == "tuple" else results[0]

