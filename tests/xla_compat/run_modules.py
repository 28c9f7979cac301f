#!/usr/bin/env python3
"""Runs HLO files through `xtune run --verify` on one backend, one line a
module: each file is split at XLA's '// -----' lines (as
check_xla_tests.py does), and each module runs against the evaluator with
a time limit. scripts/gpu_check.sh uses it to run the library-call, FP8
and XLA test modules on the GPU.

usage: run_modules.py XTUNE WORKDIR BACKEND [--level=N] [--timeout=S] [--jobs=N]
                      [--deviceless=TARGET] FILE...

--jobs runs that many modules at once (default 1). --deviceless=h200 (with
BACKEND cuda) compiles each module for that shipped GPU target instead of
running it (`xtune compile --xtune_gpu_target=TARGET`: NVRTC and ptxas, no
GPU).

Prints "PASS name (seconds)" or "FAIL name: first error line", then a count;
exit status 1 when a module fails. Modules that check_xla_tests.py lists as
refused are reported as REFUSED and do not count as failures when they fail
with the listed words."""
import concurrent.futures
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_xla_tests import REFUSED, first_error, split_modules  # noqa: E402



def nvrtc_required():
    """As codegen/cuda/nvrtc_or_skip.h: with $XTUNE_REQUIRE_NVRTC (not 0),
    a missing NVRTC fails instead of skipping."""
    return os.environ.get("XTUNE_REQUIRE_NVRTC", "0") not in ("", "0")

def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    if len(args) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    xtune, work, backend, files = args[0], args[1], args[2], args[3:]
    level = opts.get("level", "0")
    limit = float(opts.get("timeout", "60"))
    jobs = int(opts.get("jobs", "1"))
    os.makedirs(work, exist_ok=True)
    todo = []
    for f in files:
        name = os.path.basename(f)
        with open(f) as fh:
            modules = split_modules(fh.read())
        for k, text in enumerate(modules):
            label = name if len(modules) == 1 else "%s#%d" % (name, k + 1)
            path = os.path.join(work, label.replace(".hlo", "").replace("#", "_") + ".hlo")
            with open(path, "w") as fh:
                fh.write(text)
            todo.append((label, path))

    def run(item):
        label, path = item
        start = time.perf_counter()
        try:
            command = [xtune, "run", path, "--backend=" + backend, "--verify",
                       "--xla_gpu_autotune_level=" + level]
            if "deviceless" in opts:
                command = [xtune, "compile", path, "--backend=" + backend,
                           "--xtune_gpu_target=" + opts["deviceless"],
                           "--xla_gpu_autotune_level=" + level]
            r = subprocess.run(command, capture_output=True, text=True, timeout=limit)
            rc, output = r.returncode, r.stderr + r.stdout
        except subprocess.TimeoutExpired:
            rc, output = -1, "timed out after %g s: %s" % (limit, label)
        return label, rc, output, time.perf_counter() - start

    count, failures = len(todo), 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for label, rc, output, seconds in pool.map(run, todo):
            refused = REFUSED.get(label)
            if rc != 0 and "deviceless" in opts and not nvrtc_required() and \
                    re.search(r"(?i)nvrtc", output) and \
                    re.search(r"(?i)not found|unavailable|cannot (open|load)", output):
                print("SKIP %s: no NVRTC on this machine" % label, flush=True)
                continue
            if rc == 0:
                print("PASS %s (%.1f s)" % (label, seconds), flush=True)
            elif refused is not None and refused in output:
                print("REFUSED %s: %s" % (label, refused), flush=True)
            else:
                failures += 1
                errors = [l for l in output.splitlines()
                          if l.startswith(("xtune run:", "xtune compile:"))]
                print("FAIL %s (exit %d, %.1f s): %s" % (
                    label, rc, seconds, errors[0][:400] if errors else first_error(output)),
                      flush=True)
                for line in output.splitlines()[-6:]:
                    print("    " + line)
    print("%d modules, %d failed" % (count, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
