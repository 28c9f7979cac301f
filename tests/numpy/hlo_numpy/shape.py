"""HLO shapes: an array shape (element type, dims, layout) or a tuple."""


class Shape(object):
    """An array shape (dtype, dims, minor_to_major or None for the default)
    or a tuple shape (dtype 'tuple', elements)."""

    def __init__(self, dtype, dims=(), layout=None, elements=None):
        self.dtype = dtype
        self.dims = tuple(dims)
        self.layout = None if layout is None else tuple(layout)
        self.elements = list(elements or [])

    @property
    def is_tuple(self):
        return self.dtype == "tuple"

    @property
    def rank(self):
        return len(self.dims)

    def minor_to_major(self):
        if self.layout is None or len(self.layout) != len(self.dims):
            return tuple(range(len(self.dims) - 1, -1, -1))
        return self.layout

    def leaves(self):
        if not self.is_tuple:
            return [self]
        out = []
        for e in self.elements:
            out.extend(e.leaves())
        return out

    def __repr__(self):
        if self.is_tuple:
            return "(" + ", ".join(repr(e) for e in self.elements) + ")"
        s = "%s[%s]" % (self.dtype, ",".join(str(d) for d in self.dims))
        if self.layout is not None:
            s += "{%s}" % ",".join(str(d) for d in self.layout)
        return s
