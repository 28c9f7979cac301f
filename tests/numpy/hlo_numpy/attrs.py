"""Decoding of raw attribute text: integer lists, slice specs, padding
configs, computation references."""

import re

from .errors import HloParseError


def _int_list(v):
    v = v.strip()
    if v.startswith("{") and v.endswith("}"):
        v = v[1:-1]
    return [int(x) for x in v.split(",") if x.strip()]


def _slice_attr(v):
    out = []
    for m in re.finditer(r"\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]",
                         v):
        out.append((int(m.group(1)), int(m.group(2)),
                    int(m.group(3)) if m.group(3) else 1))
    return out


def _padding_attr(v):
    out = []
    for part in v.strip().split("x"):
        nums = [int(x) for x in part.split("_")]
        if len(nums) == 2:
            nums.append(0)
        if len(nums) != 3:
            raise HloParseError("bad padding %r" % v)
        out.append(tuple(nums))
    return out


def _comp_name(v):
    return v.strip().lstrip("%")
