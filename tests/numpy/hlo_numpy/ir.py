"""The parsed form of an HLO module: instructions, computations, module."""

from .errors import HloParseError


class Instruction(object):
    def __init__(self, name, shape, opcode, operands, attrs, is_root, raw):
        self.name = name
        self.shape = shape
        self.opcode = opcode
        self.operands = operands     # operand names
        self.attrs = attrs           # name -> raw value text
        self.is_root = is_root
        self.raw = raw               # constant literal text / parameter number

    def __repr__(self):
        return "%s = %r %s(%s)" % (self.name, self.shape, self.opcode,
                                   ", ".join(self.operands))


class Computation(object):
    def __init__(self, name, is_entry, instructions):
        self.name = name
        self.is_entry = is_entry
        self.instructions = instructions
        self.by_name = {}
        for ins in instructions:
            if ins.name in self.by_name:
                raise HloParseError("duplicate instruction %r in %r" %
                                    (ins.name, name))
            self.by_name[ins.name] = ins
        roots = [i for i in instructions if i.is_root]
        if len(roots) > 1:
            raise HloParseError("computation %r has several ROOTs" % name)
        if not instructions:
            raise HloParseError("computation %r is empty" % name)
        self.root = roots[0] if roots else instructions[-1]
        self.parameters = {}
        for ins in instructions:
            if ins.opcode == "parameter":
                self.parameters[int(ins.raw)] = ins

    def parameter_shapes(self):
        return [self.parameters[k].shape for k in sorted(self.parameters)]


class Module(object):
    def __init__(self, name, attrs, computations):
        self.name = name
        self.attrs = attrs
        self.computations = {}
        for c in computations:
            if c.name in self.computations:
                raise HloParseError("duplicate computation %r" % c.name)
            self.computations[c.name] = c
        entries = [c for c in computations if c.is_entry]
        if len(entries) > 1:
            raise HloParseError("several ENTRY computations")
        if not computations:
            raise HloParseError("module has no computations")
        self.entry = entries[0] if entries else computations[-1]
