#!/usr/bin/env python3
"""Hostile inputs for every command: each must end in exit 0 or 1 with a
message naming the problem, within bounded time and memory; never a signal,
never exit 2 (an internal error).

usage: hostile_test.py XTUNE WORK_DIR [--big]
  --big: the million-instruction module (default: 200,000 instructions).
Prints one line per case; exits 1 listing the cases that failed.
"""

import os
import resource
import shutil
import subprocess
import sys
import time

XTUNE, WORK = sys.argv[1], sys.argv[2]
BIG = "--big" in sys.argv
MEMORY_LIMIT = 4 << 30   # address space of each run
TIME_LIMIT = 120         # seconds of each run

failures = []


memory_limit = MEMORY_LIMIT


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def case(name, args, expect, exit_codes=(1,), env=None):
    """Runs xtune ARGS; `expect`: a substring (or tuple of alternatives) the
    output must hold."""
    start = time.monotonic()
    full_env = dict(os.environ, **(env or {}))
    try:
        r = subprocess.run([XTUNE] + args, capture_output=True, timeout=TIME_LIMIT,
                           preexec_fn=limit, env=full_env)
        code, out = r.returncode, (r.stdout + r.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        code, out = "timeout", ""
    seconds = time.monotonic() - start
    alternatives = expect if isinstance(expect, tuple) else (expect,)
    ok = code in exit_codes and any(a in out for a in alternatives)
    tail = out.strip().splitlines()[-1][:160] if out.strip() else ""
    print("%s %-44s exit %s in %.1fs: %s" % ("ok  " if ok else "FAIL", name, code, seconds, tail))
    if not ok:
        failures.append("%s (exit %s; expected %s in %s): %s" % (
            name, code, list(exit_codes), alternatives, out[-2000:]))


def module(body, name="m"):
    return "HloModule %s\n\n%s\n" % (name, body)


def entry(*lines):
    return "ENTRY e {\n" + "\n".join("  " + l for l in lines) + "\n}\n"


def wide_module(count):
    """COUNT instructions, each an add of the one before: one fusion."""
    lines = ["p0 = f32[4] parameter(0)"]
    for i in range(1, count):
        lines.append("p%d = f32[4] add(p%d, p0)" % (i, i - 1))
    lines.append("ROOT r = f32[4] negate(p%d)" % (count - 1))
    return module(entry(*lines))


def fuse_cost(name):
    """(user CPU seconds, peak resident KB) of `xtune fuse` on WORK/NAME."""
    p = subprocess.Popen([XTUNE, "fuse", os.path.join(WORK, name),
                          "--output=" + os.path.join(WORK, name + ".fused")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0, "fuse %s: exit %d" % (name, p.returncode)
    return usage.ru_utime, usage.ru_maxrss


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    modules = {
        # Element counts that overflow, and huge declared tensors (refused
        # before allocating anything).
        "count_overflow": (entry("ROOT p = f32[9223372036854775807,4] parameter(0)"),
                           ("overflow", "too large", "elements")),
        "dim_overflow": (entry("ROOT p = f32[99999999999999999999] parameter(0)"),
                         ("dimension", "integer", "out of range")),
        "huge_parameter": (entry("ROOT p = f32[100000,100000,100000] parameter(0)"),
                           ("too many elements",)),
        "huge_broadcast": (entry("c = f32[] constant(1)",
                                 "ROOT b = f32[1000000,1000000] broadcast(c), dimensions={}"),
                           ("too large", "bytes", "memory")),
        "huge_iota": (entry("ROOT i = s32[4000000000] iota(), iota_dimension=0"),
                      ("too large", "bytes", "memory")),
        "negative_dim": (entry("ROOT p = f32[-4] parameter(0)"), ("dimension", "negative")),
        # Cycles and recursion.
        "self_reference": (entry("a = f32[4] parameter(0)", "ROOT b = f32[4] add(a, b)"),
                           ("b", "cycle", "defined")),
        "mutual_reference": (entry("a = f32[4] parameter(0)", "b = f32[4] add(a, c)",
                                   "ROOT c = f32[4] add(a, b)"), ("cycle", "defined", "'c'")),
        "recursive_call": ("r {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                           "  ROOT z = f32[] call(x, y), to_apply=r\n}\n" +
                           entry("a = f32[4] parameter(0)", "z = f32[] constant(0)",
                                 "ROOT s = f32[] reduce(a, z), dimensions={0}, to_apply=r"),
                           ("recurs", "cycle", "calls itself", "defined")),
        # Malformed attributes and literals.
        "bad_dimensions_attr": (entry("a = f32[2,3] parameter(0)",
                                      "ROOT t = f32[3,2] transpose(a), dimensions={x}"),
                                ("dimensions",)),
        "literal_count": (entry("ROOT c = f32[2] constant({1, 2, 3})"), ("constant", "element")),
        "literal_syntax": (entry("ROOT c = f32[3] constant({1, 2,, 3})"), ("constant", "expected")),
        "zero_stride": (entry("a = f32[8] parameter(0)",
                              "ROOT s = f32[4] slice(a), slice={[0:8:0]}"), ("stride",)),
        # Out-of-range indices and dimensions.
        "reduce_dim": (entry("a = f32[2,3] parameter(0)", "z = f32[] constant(0)",
                             "ROOT r = f32[2] reduce(a, z), dimensions={7}, to_apply=add")
                       .replace("ENTRY", "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                                "  ROOT s = f32[] add(x, y)\n}\nENTRY"), ("dimension",)),
        "tuple_index": (entry("a = f32[2] parameter(0)", "t = (f32[2]) tuple(a)",
                              "ROOT g = f32[2] get-tuple-element(t), index=5"), ("index",)),
        "parameter_number": (entry("ROOT a = f32[2] parameter(99)"), ("parameter",)),
        "slice_bounds": (entry("a = f32[8] parameter(0)",
                               "ROOT s = f32[4] slice(a), slice={[6:10]}"), ("slice",)),
        "dot_dims": (entry("a = f32[2,3] parameter(0)", "b = f32[3,4] parameter(1)",
                           "ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={5}, "
                           "rhs_contracting_dims={0}"), ("contracting", "dimension")),
        "transpose_perm": (entry("a = f32[2,3] parameter(0)",
                                 "ROOT t = f32[3,2] transpose(a), dimensions={0,0}"),
                           ("permutation", "dimensions")),
    }
    # Fusing allocates no tensor: a huge but valid module fuses.
    fuse_ok = {"huge_broadcast", "huge_iota"}
    for name, (text, expect) in modules.items():
        path = write(name + ".hlo", module(text, name))
        for command in ("run", "compile", "fuse"):
            if command == "fuse" and name in fuse_ok:
                case("%s %s" % (command, name), [command, path], ("",), (0,))
            else:
                case("%s %s" % (command, name), [command, path], expect)

    # Pathological nesting: tuples, literals and a long dependency chain.
    depth = 100000
    write("nested_tuple.hlo", module(entry("ROOT p = " + "(" * depth + "f32[]" + ")" * depth +
                                           " parameter(0)")))
    case("run nested_tuple", ["run", os.path.join(WORK, "nested_tuple.hlo")],
         ("nest", "deep"))
    write("nested_literal.hlo", module(entry("ROOT c = f32[1] constant(" + "{" * depth + "1" +
                                             "}" * depth + ")")))
    case("run nested_literal", ["run", os.path.join(WORK, "nested_literal.hlo")],
         ("nest", "deep", "constant"))
    chain = ["a0 = f32[16] parameter(0)"]
    n = 100000
    for i in range(1, n):
        chain.append("a%d = f32[16] negate(a%d)" % (i, i - 1))
    chain.append("ROOT r = f32[16] negate(a%d)" % (n - 1))
    write("chain.hlo", module(entry(*chain)))
    case("fuse chain_100k", ["fuse", os.path.join(WORK, "chain.hlo"),
                             "--output=" + os.path.join(WORK, "chain.fused")], ("",), (0, 1))
    case("run chain_100k", ["run", os.path.join(WORK, "chain.hlo"), "--backend=interpreter"],
         ("",), (0, 1))

    # NUL and non-UTF-8 bytes.
    write("nul.hlo", b"HloModule m\x00\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n")
    case("run nul_byte", ["run", os.path.join(WORK, "nul.hlo")], ("nul.hlo",))
    write("latin1.hlo", b"HloModule m\xe9\xff\nENTRY e {\n  ROOT p\xfe = f32[2] parameter(0)\n}\n")
    case("run non_utf8", ["run", os.path.join(WORK, "latin1.hlo")], ("latin1.hlo",), (0, 1))
    write("binary_garbage.hlo.pb", os.urandom(4096))
    case("run garbage_proto", ["run", os.path.join(WORK, "binary_garbage.hlo.pb")],
         ("binary_garbage",))
    # A varint length claiming far more than the file holds.
    write("huge_length.pb", b"\x0a\xff\xff\xff\xff\x0f" + b"x" * 64)
    case("run huge_length_proto", ["run", os.path.join(WORK, "huge_length.pb")], ("huge_length",))

    # Million-instruction modules: linear time, bounded memory.
    count = 1000000 if BIG else 200000
    write("wide.hlo", wide_module(count))
    case("fuse %d instructions" % count, ["fuse", os.path.join(WORK, "wide.hlo"),
                                          "--output=" + os.path.join(WORK, "wide.fused")],
         ("",), (0,))
    # Linear: four times the instructions cost about four times the CPU time
    # and memory (a quadratic pass would cost 16 times). User CPU time, not
    # wall time: the kernel's page faults on this VM cost more per page as a
    # process grows (a program that only touches 300 MB or 3 GB shows it).
    write("wide_quarter.hlo", wide_module(count // 4))
    small_cost = fuse_cost("wide_quarter.hlo")
    big_cost = fuse_cost("wide.hlo")
    cpu_ratio, memory_ratio = big_cost[0] / small_cost[0], big_cost[1] / small_cost[1]
    ok = cpu_ratio < 8 and memory_ratio < 5.5
    print("%s %-44s %.2fs/%.2fs user CPU (x%.1f), %d/%d MB (x%.1f)" % (
        "ok  " if ok else "FAIL", "fuse %d vs %d instructions" % (count, count // 4),
        big_cost[0], small_cost[0], cpu_ratio, big_cost[1] >> 10, small_cost[1] >> 10,
        memory_ratio))
    if not ok:
        failures.append("fuse is not linear: x%.1f CPU time, x%.1f memory for x4 instructions"
                        % (cpu_ratio, memory_ratio))

    # The same module where memory runs out: a clean error, not an abort.
    global memory_limit
    memory_limit = 400 << 20
    case("fuse %d instructions in 400 MiB" % count, ["fuse", os.path.join(WORK, "wide.hlo"),
                                                   "--output=" + os.path.join(WORK, "wide.fused")],
         ("out of memory",), (1,) if count >= 1000000 else (0, 1))
    case("run %d instructions in 400 MiB" % count,
         ["run", os.path.join(WORK, "wide.hlo"), "--backend=interpreter"],
         ("out of memory", ""), (0, 1))
    memory_limit = MEMORY_LIMIT

    # Absurd values in cached configs and overrides.
    small = write("small.hlo", module(entry(
        "x = f32[16,32] parameter(0)", "w = f32[32,24] parameter(1)",
        "ROOT d = f32[16,24] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}")))
    r = subprocess.run([XTUNE, "compile", small, "--xla_gpu_autotune_level=1",
                        "--xla_gpu_dump_autotune_results_to=" + os.path.join(WORK, "c.textproto")],
                       capture_output=True, timeout=TIME_LIMIT)
    assert r.returncode == 0, r.stderr
    text = open(os.path.join(WORK, "c.textproto")).read()
    import re
    for name, value in (("zero", "0"), ("huge", "4611686018427387904"), ("negative", "-5")):
        absurd = re.sub(r"(\b(?:mc|nc|kc|mr|nr|threads|split_k|unroll|per_task|vector_width)): -?\d+",
                        r"\1: " + value, text)
        path = write("absurd_%s.textproto" % name, absurd)
        case("load absurd config (%s)" % name,
             ["run", small, "--verify", "--xla_gpu_load_autotune_results_from=" + path],
             ("",), (0, 1))
    for override in ("mc=0", "mc=4611686018427387904", "threads=-3", "nr=99999999",
                     "mc=" + "9" * 40, "x" * 100000):
        case("--config %s" % override[:24],
             ["run", small, "--verify", "--config=gemm_fusion:" + override]
             if not override.startswith("x") else ["run", small, "--config=" + override],
             ("config", "gemm_fusion", "mc", "threads", "nr"), (0, 1))
    for gemm in ("mr:0 nr:0", "mr:4611686018427387904", "block_m:-1"):
        case("override gemm %s" % gemm,
             ["run", small, "--verify", "--xla_gpu_override_gemm_autotuner=" + gemm], ("",), (0, 1))

    # Oversized flags and environment values.
    # (Linux caps one argument or variable at 128 KiB.)
    case("XLA_FLAGS 120 KiB", ["run", small], ("",), (0, 1),
         env={"XLA_FLAGS": "--xla_gpu_autotune_level=1 " * 4400})
    case("flag value 120 KiB",
         ["run", small, "--xla_gpu_dump_autotune_results_to=" + "a" * (120 << 10)],
         ("File name too long", "a" * 64), (1,))
    case("level out of range", ["run", small, "--xla_gpu_autotune_level=99999999999999999999"],
         ("xla_gpu_autotune_level",))
    case("cache dir env 120 KiB", ["run", small], ("",), (0, 1),
         env={"XTUNE_CACHE_DIR": "/" + "d" * (120 << 10)})

    if failures:
        print("\n%d hostile cases failed:" % len(failures))
        for f in failures:
            print("----\n" + f)
        return 1
    print("hostile inputs: every case ended cleanly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
