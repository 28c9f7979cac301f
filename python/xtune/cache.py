"""The autotune cache tools (`xtune cache ...`) as functions. Each returns
the command's text output, or raises xtune.Error with its message (exit
code 1 or 2). Paths may be cache files or redis:// URLs, as in the CLI
(docs/persistent_autotuning.md)."""
from . import _xtune


def _tool(*argv, differ_ok=False):
    code, out, err = _xtune.cache_tool([str(a) for a in argv])
    if code != 0 and not (differ_ok and code == 1 and not err):
        raise _xtune.Error((err or out).strip())
    return out


def stats(*paths):
    """Entries per device, version and key type."""
    return _tool("stats", *paths)


def show(path, *flags):
    """Every entry, readable (flags: "--limit=N", ...)."""
    return _tool("show", path, *flags)


def diff(a, b):
    """Entries added, removed and changed between two caches (caches that
    differ are no error here, unlike the CLI's exit code 1)."""
    return _tool("diff", a, b, differ_ok=True)


def convert(src, dst):
    """Text <-> binary (by the destination's extension), sorted."""
    return _tool("convert", src, dst)


def merge(*inputs, out, on_conflict=None):
    """Merges caches into `out` (on_conflict: "error", "faster", "newer")."""
    flags = [f"--out={out}"] + ([f"--on_conflict={on_conflict}"] if on_conflict else [])
    return _tool("merge", *inputs, *flags)


def prune(path, *flags):
    """Removes entries (flags as `xtune cache prune --help` lists)."""
    return _tool("prune", path, *flags)


def explain(module, cache, *flags):
    """Per fusion of `module`: whether `cache` hits, and what differs if not."""
    return _tool("explain", module, f"--cache={cache}", *flags)
