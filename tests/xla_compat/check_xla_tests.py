#!/usr/bin/python3
"""Runs XLA's own GPU test modules (copies of xla/service/gpu/tests/*.hlo
under tests/xla_compat/gpu_tests/) through xtune as a new user would: each
file is split at XLA's '// -----' lines into modules, and each module is
run on the CPU backend against the evaluator (`xtune run --backend=cpu
--verify`, default kernels: `--xla_gpu_autotune_level=0`) and compiled deviceless for an H100 (`xtune compile
--backend=cuda --xtune_gpu_target=h100`).

usage: check_xla_tests.py XTUNE WORKDIR [--table]

Prints one line a module (PASS, REFUSED as expected, or FAIL with the first
error line); with --table, a Markdown table for docs/persistent_autotuning.md.
Exit status 1 when a module fails or a module of REFUSED does not fail; the deviceless compile is skipped (saying so) when
NVRTC is missing."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Modules xtune refuses today, each with the words its error must contain.
# One that starts to pass fails the check until it leaves this list.
REFUSED = {
    "reduce_large_row_to_scalar.hlo": "unsupported element type 'c128'",
    # XLA's convolution tests (xla_conv_tests/, run_modules.py).
    "convolution_test_ConvolveC64Forward.hlo": "unsupported element type 'c64'",
    "convolution_test_PackedNibbleConvolve.hlo": "PACKED_NIBBLE",
    "convolution_test_TestBooleanInput.hlo": "pred operands",
    "hlo_parser_test_ConvolutionDynamic.hlo": "'DynamicConvolutionForward' is not one xtune runs",
    "swap_conv_operands_test_DoesNotLower.hlo": "constant value is elided",
}


def split_modules(text):
    # Only the separator line itself: XLA's files also hold `// ------...`
    # comment rules.
    parts = re.split(r"^// -----\s*$", text, flags=re.M)
    return [p for p in parts if "HloModule" in p or "ENTRY" in p]


def first_error(output):
    """The first line that says something (not a source line or caret)."""
    for line in output.splitlines():
        if line and not line[0].isspace() and ": " in line and \
                not line.startswith("xtune: warning"):
            return line.split(".hlo:", 1)[-1].strip()[:160]
    return "?"


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    xtune, work = sys.argv[1], sys.argv[2]
    table = "--table" in sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    src = os.path.join(HERE, "gpu_tests")
    rows, failures, nvrtc_missing = [], 0, False
    for name in sorted(os.listdir(src)):
        if not name.endswith(".hlo"):
            continue
        with open(os.path.join(src, name)) as f:
            modules = split_modules(f.read())
        for k, text in enumerate(modules):
            label = name if len(modules) == 1 else "%s#%d" % (name, k + 1)
            path = os.path.join(work, label.replace("#", "_") + ".hlo")
            with open(path, "w") as f:
                f.write(text)
            run = subprocess.run([xtune, "run", path, "--backend=cpu",
                                  "--verify", "--xla_gpu_autotune_level=0"],
                                 capture_output=True, text=True)
            cpu = "ok" if run.returncode == 0 else first_error(run.stderr +
                                                               run.stdout)
            compile_ = "skipped (no NVRTC)"
            if not nvrtc_missing:
                c = subprocess.run([xtune, "compile", path, "--backend=cuda",
                                    "--xtune_gpu_target=h100"],
                                   capture_output=True, text=True)
                if c.returncode == 0:
                    compile_ = "ok"
                elif re.search(r"(?i)nvrtc", c.stderr) and re.search(
                        r"(?i)not found|unavailable|cannot (open|load)",
                        c.stderr):
                    nvrtc_missing = True
                else:
                    compile_ = first_error(c.stderr + c.stdout)
            ok = cpu == "ok" and compile_ in ("ok", "skipped (no NVRTC)")
            refused = REFUSED.get(label)
            if refused is not None:
                expected = not ok and refused in cpu
                print("REFUSED as expected" if expected else
                      "FAIL (expected a refusal: %s)" % refused, label)
                failures += not expected
            else:
                failures += not ok
                print("PASS" if ok else "FAIL", label, "" if ok else
                      "| cpu: %s | h100: %s" % (cpu, compile_))
            rows.append((label, cpu, compile_))
    if table:
        print("\n| Module | `run --backend=cpu --verify` | deviceless h100 |")
        print("|---|---|---|")
        for label, cpu, comp in rows:
            print("| `%s` | %s | %s |" % (label, cpu, comp))
    print("%d modules, %d failed" % (len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
