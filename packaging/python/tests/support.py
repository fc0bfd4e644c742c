"""Shared set-up of the exporter tests: torch check, package path, lattice-cli runner.

Each test script imports this first. Without torch the script prints why and exits with 77,
which CTest (SKIP_RETURN_CODE 77) reports as skipped, not passed. The lattice-cli executable
comes from ``--lattice-cli PATH`` (CTest passes it) or the ``LATTICE_CLI`` environment variable;
a test that needs it fails when neither is given.
"""

import importlib
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

SKIP_EXIT_CODE = 77

try:
    import torch  # noqa: F401
    import torch.fx  # noqa: F401
except ImportError as _error:
    print("skipped: {} cannot import torch ({}); install python3-torch".format(sys.executable, _error))
    sys.exit(SKIP_EXIT_CODE)

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)


def _take_cli_argument():
    """Removes `--lattice-cli PATH` from sys.argv (unittest must not see it)."""
    if "--lattice-cli" in sys.argv:
        index = sys.argv.index("--lattice-cli")
        path = sys.argv[index + 1]
        del sys.argv[index:index + 2]
        return path
    return os.environ.get("LATTICE_CLI", "")


LATTICE_CLI = _take_cli_argument()


def install_modules(files):
    """Writes `files` ({relative path: source text}) into a temporary directory put first on
    sys.path, so tests can import stub packages (torch_lattice) and user models from it; returns
    the directory (a TemporaryDirectory) for remove_modules."""
    tmp = tempfile.TemporaryDirectory()
    for relative, text in files.items():
        path = os.path.join(tmp.name, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))
    sys.path.insert(0, tmp.name)
    importlib.invalidate_caches()
    return tmp


def remove_modules(tmp, packages):
    """Undoes install_modules: the directory leaves sys.path, the modules of `packages` (and their
    submodules) leave sys.modules, and the directory is removed."""
    sys.path.remove(tmp.name)
    for name in [n for n in sys.modules if any(n == p or n.startswith(p + ".") for p in packages)]:
        del sys.modules[name]
    tmp.cleanup()


def run_cli(*args):
    """Runs lattice-cli with `args`; returns the CompletedProcess (text mode)."""
    if not LATTICE_CLI or not os.access(LATTICE_CLI, os.X_OK):
        raise AssertionError("lattice-cli not found (pass --lattice-cli PATH or set LATTICE_CLI); got '{}'"
                             .format(LATTICE_CLI))
    return subprocess.run([LATTICE_CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=300)


def run_exporter(*args, cwd=None):
    """Runs `python3 -m lattice_studio_export` with this interpreter."""
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "lattice_studio_export"] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


def torch_fx_text(graph):
    """torch.fx's printed graph in the form lattice-cli prints. The one normalisation: torch 1.13
    prints the user count as `[#users=N]`, newer torch and lattice-cli as `[num_users=N]`."""
    text = re.sub(r"\[#users=(\d+)\]", r"[num_users=\1]", str(graph))
    return text.rstrip("\n") + "\n"


def main():
    unittest.main(verbosity=2)
