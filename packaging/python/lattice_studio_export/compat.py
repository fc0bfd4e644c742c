"""Work-arounds for torch.fx 1.13 on Python 3.11 (Debian 12's python3-torch), used only while
the exporter traces and only when a probe shows the installed torch has the problem:

* ``_patch_function`` builds a ``CodeType`` with the pre-3.11 argument list, so a forward with
  keyword-only or variadic parameters cannot be traced (``TypeError: code() argument 13 must
  be str, not int``). The replacement makes the same code object with ``CodeType.replace``.
* ``Proxy.__iter__`` finds the calling instruction as ``f_lasti // 2``, which is wrong since
  3.11's inline caches, so ``a, b = self.child(x)`` fails with ``IndexError``. The replacement
  looks the instruction up by its byte offset.

Both replacements do what newer torch does; with a torch that works, nothing is changed.
"""

import contextlib
import dis
import functools
import inspect
import types

import torch.fx
import torch.fx._symbolic_trace as _fx_trace
from torch.fx.proxy import Proxy


def _patch_function(fn, nargs):
    code = fn.__code__
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    patched = code.replace(co_argcount=nargs, co_posonlyargcount=0, co_kwonlyargcount=0, co_flags=flags)
    return types.FunctionType(patched, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _proxy_iter(self):
    frame = inspect.currentframe().f_back
    for instruction in dis.get_instructions(frame.f_code):
        if instruction.offset == frame.f_lasti:
            if instruction.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(instruction.argval))
            break
    return self.tracer.iter(self)


@functools.lru_cache(maxsize=None)
def patch_function_is_broken():
    def probe(self, x, *, y=1):
        return x
    original = getattr(_fx_trace, "_patch_function", None)
    if original is None:
        return False
    try:
        original(probe, 3)
        return False
    except TypeError:
        return True


@functools.lru_cache(maxsize=None)
def proxy_iter_is_broken():
    def probe(x):
        # Attribute loads and calls before the unpack put 3.11 inline caches in front of it,
        # so an f_lasti // 2 lookup misses it.
        y = x.a.b.c(1, 2).d(3).e(4).f(5).g(6).h(7)
        first, second = y
        return first
    try:
        torch.fx.symbolic_trace(probe)
        return False
    except Exception:  # noqa: BLE001 - IndexError or TraceError, depending on the code layout
        return True


@contextlib.contextmanager
def torch_fx_compat():
    """Applies the replacements the installed torch needs, restoring the originals after."""
    restore = []
    if patch_function_is_broken():
        restore.append((_fx_trace, "_patch_function", _fx_trace._patch_function))
        _fx_trace._patch_function = _patch_function
    if proxy_iter_is_broken():
        restore.append((Proxy, "__iter__", Proxy.__dict__["__iter__"]))
        Proxy.__iter__ = _proxy_iter
    try:
        yield
    finally:
        for owner, name, original in restore:
            setattr(owner, name, original)
