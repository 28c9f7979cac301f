"""The HLO text parser: comments, names, attributes, shapes, instructions,
computations and modules.  Attribute values are kept as raw text (see
attrs.py); constant literals too (see literal.py)."""

import re

from .errors import HloParseError
from .ir import Computation, Instruction, Module
from .shape import Shape

_NAME_RE = re.compile(r"%?([A-Za-z0-9_.\-$]+)")
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_DTYPE_RE = re.compile(r"(pred|s4|s8|s16|s32|s64|u4|u8|u16|u32|u64|f16|bf16|"
                       r"f32|f64|c64|c128|token|f8[a-z0-9]*)(?=\[)")
_LAYOUT_RE = re.compile(r"\{\s*([0-9,\s]*)(:[^{}]*)?\}")


def strip_comments(text):
    """Replaces // and /* */ comments with spaces (keeping newlines),
    leaving string literals alone."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise HloParseError("unterminated /* comment")
            out.append("".join(ch if ch == "\n" else " "
                               for ch in text[i:j + 2]))
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Parser(object):
    def __init__(self, text):
        self.t = strip_comments(text)
        self.p = 0

    # -- low level --------------------------------------------------------
    def error(self, msg):
        line = self.t.count("\n", 0, self.p) + 1
        col = self.p - (self.t.rfind("\n", 0, self.p) + 1) + 1
        snippet = self.t[self.p:self.p + 40].split("\n")[0]
        raise HloParseError("%d:%d: %s (at %r)" % (line, col, msg, snippet))

    def ws(self):
        n = len(self.t)
        while self.p < n and self.t[self.p].isspace():
            self.p += 1

    def at_end(self):
        self.ws()
        return self.p >= len(self.t)

    def peek(self, s):
        return self.t.startswith(s, self.p)

    def expect(self, s):
        self.ws()
        if not self.peek(s):
            self.error("expected %r" % s)
        self.p += len(s)

    def match(self, regex):
        m = regex.match(self.t, self.p)
        if not m:
            return None
        self.p = m.end()
        return m

    def keyword(self, word):
        """Consumes `word` if it is the next whole word."""
        self.ws()
        if self.peek(word):
            end = self.p + len(word)
            if end >= len(self.t) or not (self.t[end].isalnum() or
                                          self.t[end] in "_.-%"):
                self.p = end
                return True
        return False

    def name(self):
        self.ws()
        m = self.match(_NAME_RE)
        if not m:
            self.error("expected a name")
        return m.group(1)

    def balanced(self, open_ch, close_ch):
        """Returns the text between the bracket at the cursor and its match
        (strings skipped) and moves past the closing bracket."""
        if not self.peek(open_ch):
            self.error("expected %r" % open_ch)
        depth = 0
        start = self.p
        n = len(self.t)
        i = self.p
        while i < n:
            c = self.t[i]
            if c == '"':
                i += 1
                while i < n and self.t[i] != '"':
                    i += 2 if self.t[i] == "\\" else 1
            elif c in "({[":
                depth += 1
            elif c in ")}]":
                depth -= 1
                if depth == 0:
                    if c != close_ch:
                        self.error("mismatched brackets")
                    self.p = i + 1
                    return self.t[start + 1:i]
            i += 1
        self.error("unbalanced %r" % open_ch)

    def raw_value(self):
        """An attribute value: everything up to a top-level ',', whitespace
        or unmatched closing bracket."""
        self.ws()
        start = self.p
        depth = 0
        n = len(self.t)
        i = self.p
        while i < n:
            c = self.t[i]
            if c == '"':
                i += 1
                while i < n and self.t[i] != '"':
                    i += 2 if self.t[i] == "\\" else 1
            elif c in "({[":
                depth += 1
            elif c in ")}]":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (c == "," or c.isspace()):
                break
            i += 1
        self.p = i
        return self.t[start:i]

    def attributes(self):
        attrs = {}
        while True:
            self.ws()
            if not self.peek(","):
                return attrs
            self.p += 1
            self.ws()
            m = self.match(_WORD_RE)
            if not m:
                self.error("expected an attribute name")
            self.expect("=")
            attrs[m.group(0)] = self.raw_value()

    # -- shapes -----------------------------------------------------------
    def shape(self):
        self.ws()
        if self.peek("("):
            self.p += 1
            elements = []
            self.ws()
            if self.peek(")"):
                self.p += 1
                return Shape("tuple", elements=[])
            while True:
                elements.append(self.shape())
                self.ws()
                if self.peek(","):
                    self.p += 1
                    continue
                self.expect(")")
                return Shape("tuple", elements=elements)
        m = self.match(_DTYPE_RE)
        if not m:
            self.error("expected a shape")
        dtype = m.group(1)
        body = self.balanced("[", "]")
        dims = []
        for d in body.split(","):
            d = d.strip()
            if not d:
                continue
            d = d.lstrip("<=").strip()
            if d == "?":
                self.error("unbounded dynamic dimensions are not supported")
            dims.append(int(d))
        layout = None
        if self.peek("{"):
            lm = _LAYOUT_RE.match(self.t, self.p)
            if lm:
                self.p = lm.end()
                layout = [int(x) for x in lm.group(1).replace(" ", "")
                          .split(",") if x.strip()]
                if len(layout) != len(dims):
                    layout = None
        return Shape(dtype, dims, layout)

    def operand_list(self):
        self.expect("(")
        names = []
        self.ws()
        if self.peek(")"):
            self.p += 1
            return names
        while True:
            self.ws()
            if self.peek("(") or _DTYPE_RE.match(self.t, self.p):
                self.shape()
            names.append(self.name())
            self.ws()
            if self.peek(","):
                self.p += 1
                continue
            self.expect(")")
            return names

    # -- structure --------------------------------------------------------
    def instruction(self):
        start = self.p
        is_root = self.keyword("ROOT")
        name = self.name()
        self.expect("=")
        shape = self.shape()
        self.ws()
        m = self.match(re.compile(r"[a-z][a-z0-9\-]*"))
        if not m:
            self.error("expected an opcode")
        opcode = m.group(0)
        self.ws()
        raw = None
        operands = []
        if opcode == "constant":
            raw = self.balanced("(", ")")
        elif opcode == "parameter":
            raw = self.balanced("(", ")").strip()
            if not re.match(r"^\d+$", raw):
                self.p = start
                self.error("bad parameter number")
        else:
            operands = self.operand_list()
        attrs = self.attributes()
        return Instruction(name, shape, opcode, operands, attrs, is_root, raw)

    def computation(self):
        is_entry = self.keyword("ENTRY")
        name = self.name()
        self.ws()
        if self.peek("("):
            self.balanced("(", ")")
            self.ws()
        if self.peek("->"):
            self.p += 2
            self.shape()
            self.ws()
        # Computation attributes such as execution_thread=... are skipped.
        self.attributes()
        self.expect("{")
        instructions = []
        while True:
            self.ws()
            if self.peek("}"):
                self.p += 1
                break
            if self.p >= len(self.t):
                self.error("unterminated computation %r" % name)
            instructions.append(self.instruction())
        # As XLA prints them: `}, execution_thread="..."` after the body.
        self.attributes()
        return Computation(name, is_entry, instructions)

    def module(self):
        if not self.keyword("HloModule"):
            self.error("expected HloModule")
        name = self.name()
        attrs = self.attributes()
        comps = []
        while not self.at_end():
            comps.append(self.computation())
        return Module(name, attrs, comps)


def parse_module(text):
    return _Parser(text).module()


def parse_module_file(path):
    with open(path) as f:
        return parse_module(f.read())
