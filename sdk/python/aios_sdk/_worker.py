"""The worker process that serves one provider file for aios-host.

Started by the host's python runtime as

    python3 -I -B -c "<bootstrap>" SDK_DIR TOOL_FILE [GATE_FD [SPIN_US [BROKER_FD [MSGPACK]]]]

It speaks the abi framing on its original stdin/stdout: each message is a
4-byte big-endian length followed by one encoded Envelope
({"v":1,"kind":...}). The worker first waits for the gate fd to close (the
host applies resource limits meanwhile), then says which wire formats it
speaks in a JSON hello, {"v":1,"kind":"hello","formats":["msgpack","json"]}
("msgpack" only when the msgpack module with its C extension imports:
MSGPACK is "" for none, "import" to import it from sys.path, or the
package's folder to import it from there alone). The host answers, in
JSON, {"v":1,"kind":"hello","format":F}; every later frame either way is
in F. The worker then loads the tool file, sends "register" and serves
"call" envelopes one at a time, answering each with "result". While a call runs it may send "host_call" envelopes (space
reads and writes, nested tool calls, inference) and "log" envelopes; the
host answers each host_call with a "host_result" of the same id.

A load failure is reported as a "log" envelope of level "error" naming
the file and line, and the worker exits with status 3. print() output of
tools goes to stderr (which the host logs): the protocol channel is a
private duplicate of the original stdout.

After answering a call the worker may poll its input for the next one
(non-blocking reads) before it sleeps in poll(2): waking a sleeping process
on another (virtual) CPU costs more than the rest of a warm call. The host
decides, per call, with the call envelope's "spin" key (microseconds; absent
or 0: sleep at once), because a spin only pays when the host spins for the
answer too; the host adapts it (runtimes/python/pipe.go). SPIN_US is the
configured window: "spin" is capped at PROBE_SPIN times it, and 0 keeps
the input blocking. A spin stops early when the worker finds it was
descheduled mid-spin (another task wants the CPU).

BROKER_FD (>= 0) is given to a provider that holds Network(host pattern)
capabilities but not the whole network: the worker cannot open sockets
itself; socket.create_connection asks the host ("net_connect" host call),
which checks the pattern, connects, and passes the connected socket over
this unix socket (SCM_RIGHTS). See runtimes/python/netbroker.go.
BROKER_FD -2 (NO_NETWORK) says the sandbox gives the worker no network at
all: where a tool connects it is told so, and what to ask for
(_explain_sockets).
"""

import builtins
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import re
import select
import sys
import threading
import time
import types
import weakref

from . import _core
from ._core import AGENT_ATTR, TOOL_ATTR, Context, HostOp, ToolError

# The SDK's own exits (the host gone, a load failed, the end) use the real
# os._exit: install_exit_note replaces os._exit for tools, and would say a
# tool called it when the worker ends during a call.
_real_exit = os._exit

FORMAT = 1
RUNTIME = "python"
EXIT_LOAD_FAILED = 3
EXIT_PROTOCOL = 2
# BROKER_FD of a worker whose sandbox has no network at all (the provider
# holds no Network capability; runtimes/python/worker.go noNetworkArg).
NO_NETWORK = -2

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_loads = json.loads


def _dumps_bytes(v):
    return _dumps(v).encode("utf-8")

_mono = time.monotonic_ns
# The host's longest spin window is PROBE_SPIN configured windows
# (runtimes/python/pipe.go probeSpin).
PROBE_SPIN = 2
# A gap longer than this between two spin iterations (one takes a
# microsecond or two) means the worker was descheduled: another task wants
# the CPU, and a spinner is time-sliced with it instead of preempting it on
# wake-up as a sleeper would. The spin stops at once.
PREEMPT_GAP_NS = 25000
_RESULT = '{"v":%d,"kind":"result","id":%%s,"result":{"call_id":%%s,"value":%%s}}' % FORMAT
# The host reads frames of at most 64 MiB (abi.DefaultMaxFrame); a larger
# one would make it kill the worker. Results and host calls above it are
# refused here instead (TooLarge), and the worker lives on.
MAX_FRAME = 64 << 20
# Integers must fit int64 or uint64 (the host's integer types, -2**63 ..
# 2**64-1; a larger one would silently become a float). Only a result with
# a run of 19 digits somewhere can hold one outside, so the walk that finds
# it runs only then.
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1
_maybe_big_int = re.compile(r"[0-9]{19}").search
_maybe_big_int_bytes = re.compile(rb"[0-9]{19}").search
_INT_RANGE = "integers must be within -2**63 .. 2**64-1 (the host's int64 and uint64; a larger one would lose precision); return str(x) (or float(x))"
# The host refuses a value nested deeper than this (abi.Normalize and the
# MessagePack decoder: the result itself is level 0, a value inside it
# level 1, ...). The SDK refuses it first, with the same InvalidResult in
# both wire formats and the worker living on (the JSON encoder would carry
# it up to the interpreter's recursion limit, the MessagePack packer stops
# a few levels earlier: it counts the envelope's levels too).
MAX_DEPTH = 512
_TOO_DEEP = "tool %%s returned a value nested deeper than %d levels (the host's limit); return it flatter or as a string" % MAX_DEPTH
_TOO_DEEP_ARGS = "%%s arguments nested deeper than %d levels (the host's limit); pass them flatter or as a string" % MAX_DEPTH


class LoadError(Exception):
    pass


# What Landlock lets a worker touch, added to a PermissionError a tool
# fails with (it said only "[Errno 13] Permission denied: '/etc/passwd'",
# not that the sandbox refused it); set when the host says Landlock is on.
_SANDBOX_FILES = ""
_SANDBOX_FILES_TEXT = ("; the sandbox lets a tool read (and run) only files of its own folder (a tool file alone at the top of a "
                       "plugin folder: only itself), the Python installation and the SDK, and write no file "
                       "(docs/python.md \"Sandbox\")")


_MAX_TASKS = 0  # the control group's pids.max, from the start gate
_SANDBOX_MULTIPROCESSING = (
    "; multiprocessing's locks, queues and pools need POSIX semaphores in /dev/shm, which the sandbox lets "
    "no tool create: use threads (concurrent.futures.ThreadPoolExecutor) or os.fork (docs/python.md \"Sandbox\")")


def _raised_in_multiprocessing(e):
    """Whether e was raised in the multiprocessing package (its innermost
    frame)."""
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    f = tb.tb_frame.f_code.co_filename.replace("\\", "/")
    return "/multiprocessing/" in f


def _sandbox_note(e):
    """_SANDBOX_FILES for a PermissionError on a file (errno EACCES with a
    file name) or tempfile's "No usable temporary directory", else ""."""
    if _SANDBOX_FILES and isinstance(e, PermissionError) and e.errno == 13 and e.filename is not None:
        return _SANDBOX_FILES
    if (_SANDBOX_FILES and type(e).__name__ == "OperationalError" and type(e).__module__ == "sqlite3" and
            str(e) in ("unable to open database file", "attempt to write a readonly database")):
        # A database file SQLite could not create or write: it read as a
        # broken path or a file mode (TestSQLiteFileSaysSandbox).
        return _SANDBOX_FILES + "; keep the database in memory, sqlite3.connect(\":memory:\")"
    if _SANDBOX_FILES and isinstance(e, PermissionError) and e.errno == 13 and _raised_in_multiprocessing(e):
        # A SemLock (sem_open, a file in /dev/shm) refused: it named no
        # file and no reason (TestMultiprocessingSaysSandbox).
        return _SANDBOX_MULTIPROCESSING
    # A thread whose stack the address space (RLIMIT_AS, memory_mb) has no
    # room for: it was said as the task limit, a dozen threads in
    # (TestThreadStartPastMemoryNamesMemoryLimit).
    if type(e) is RuntimeError and str(e).startswith("can't start new thread"):
        note = getattr(e, "_aios_thread_note", None)
        if note is None:
            note = _no_room_for_thread()
        if note:
            return note
    # A fork or thread the control group's pids.max refused: it said only
    # "Resource temporarily unavailable" or "can't start new thread"
    # (TestTaskLimitErrorsNameTheLimit). EAGAIN has other causes (a
    # non-blocking socket), hence "if".
    if _MAX_TASKS and ((isinstance(e, BlockingIOError) and e.errno == 11 and e.filename is None) or
                       (type(e) is RuntimeError and str(e).startswith("can't start new thread"))):
        return ("; %sthe worker's processes and threads together may number at most %d "
                "(runtimes.python.max_processes; docs/python.md \"Sandbox\")" % (
                    "if it came from starting a process: " if isinstance(e, BlockingIOError) else "", _MAX_TASKS))
    # tempfile, which found no folder it may write in: it read as a
    # machine without /tmp (TestTempfileErrorSaysSandbox).
    if (_SANDBOX_FILES and isinstance(e, FileNotFoundError) and e.filename is None and
            str(e.strerror).startswith("No usable temporary directory")):
        return _SANDBOX_FILES
    return ""


def _no_room_for_thread():
    """The note for "can't start new thread" when the worker's address space
    (RLIMIT_AS) has no room for another thread's stack, else ""."""
    try:
        import mmap
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return ""
        size = threading.stack_size()
        if not size:
            size, _ = resource.getrlimit(resource.RLIMIT_STACK)
            if size == resource.RLIM_INFINITY or size <= 0:
                size = 8 << 20
        try:
            mmap.mmap(-1, size).close()
            return ""
        except OSError as e:
            if e.errno != 12:  # ENOMEM
                return ""
        return ("; the worker's memory limit (%d MiB, runtimes.python.memory_mb) has no room for another "
                "thread: each reserves %d MiB of address space for its stack; raise memory_mb or start "
                "fewer threads" % (soft >> 20, max(size >> 20, 1)))
    except Exception:
        return ""


def _watch_thread_starts():
    """Wraps threading's start of a thread so that a "can't start new
    thread" records at once whether the address space had room for a
    stack: by the time the tool's exception is reported, its other threads
    may have ended and freed theirs."""
    name = "_start_joinable_thread" if hasattr(threading, "_start_joinable_thread") else "_start_new_thread"
    start = getattr(threading, name, None)
    if start is None:
        return

    def watched(*args, **kwargs):
        try:
            return start(*args, **kwargs)
        except RuntimeError as e:
            if str(e).startswith("can't start new thread"):
                try:
                    e._aios_thread_note = _no_room_for_thread()
                except Exception:
                    pass
            raise
    setattr(threading, name, watched)


_watch_thread_starts()


class Handler:
    __slots__ = ("fn", "wants_ctx", "name", "where", "at")

    def __init__(self, name, fn, where=""):
        self.name = name
        self.fn = fn
        self.wants_ctx = _wants_ctx(fn)
        # Where it is defined, for a load error naming both definitions
        # of a name: the function (or Class.method) and its line.
        self.where, self.at = where or name, _def_line(fn)


def _def_line(fn):
    """(file, line) where handler fn is defined (its first decorator's
    line), or ("", 0) (a callable without code: a partial of a builtin)."""
    f = getattr(fn, "__func__", fn)
    for _ in range(16):
        if isinstance(f, types.FunctionType):
            break
        if type(f).__name__ == "partial" and callable(getattr(f, "func", None)):
            f = f.func
        elif callable(getattr(f, "__wrapped__", None)):
            f = f.__wrapped__
        else:
            break
    code = getattr(f, "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else ("", 0)


def _arity_problem(fn, tname):
    """A load error for a handler that cannot take (params) or (params,
    ctx) — def a(params, ctx, extra), def a() — named at its definition,
    or None. Without it every call failed with a TypeError naming no
    line."""
    bound = hasattr(fn, "__self__") and hasattr(fn, "__func__")
    f = getattr(fn, "__func__", fn)
    code = getattr(f, "__code__", None)
    if not isinstance(f, types.FunctionType) or code is None:
        return None
    # A keyword-only parameter without a default (def a(params, *, ctx))
    # is never given: every call failed "missing 1 required keyword-only
    # argument", naming no line.
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    kw_required = [k for k in kwonly if k not in (f.__kwdefaults__ or {})]
    if _wants_ctx(fn) == KW_CTX:
        kw_required = [k for k in kw_required if k != "ctx"]  # given by keyword
    skip = 1 if bound else 0
    names = code.co_varnames[skip:code.co_argcount]
    required = len(names) - len(f.__defaults__ or ())
    if not kw_required and (code.co_flags & 0x04 or (1 <= len(names) and required <= 2)):
        return None
    return "%s:%d: tool %r: handler %s(%s) has the wrong parameters: a tool handler takes (params) or (params, ctx)%s%s" % (
        code.co_filename, code.co_firstlineno, tname, f.__name__, _signature(code),
        "" if not kw_required else ("; its keyword-only parameter %s has no default and is never given" % kw_required[0]
                                    if len(kw_required) == 1 else
                                    "; its keyword-only parameters %s have no default and are never given" % ", ".join(kw_required)),
        "" if skip or not names or names[0] != "self" else " (a method needs an @Agent class)")


# What a handler's params can never be: it is a dict (the call's
# arguments), and ctx a Context. Names as an annotation may be written
# (strings under "from __future__ import annotations").
_NOT_A_DICT = {int: "int", float: "float", str: "str", bool: "bool", bytes: "bytes", bytearray: "bytearray",
               list: "list", tuple: "tuple", set: "set", frozenset: "frozenset", complex: "complex"}
_NOT_A_DICT_NAME = re.compile(r"^(?:typing\.)?(int|float|str|bool|bytes|bytearray|list|tuple|set|frozenset|complex"
                              r"|List|Tuple|Set|FrozenSet)(?:\[.*\])?$")


_LITERAL_NAME = re.compile(r"^(?:typing\.|typing_extensions\.)?Literal\[.*\]$")
_ANNOTATED_NAME = re.compile(r"^(?:typing\.|typing_extensions\.)?Annotated\[(.*)\]$")


def _first_arg(text):
    """The first of the comma-separated arguments in text ("int, 'x'" →
    "int"), commas inside brackets or quotes not counting."""
    depth, quote = 0, ""
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return text[:i].strip()
    return text.strip()


def _not_a_dict(a, first):
    """The name of annotation a when a dict (first: params) or a Context
    (else: ctx) can never be one, else None: a scalar or sequence type,
    a generic alias of one (list[int]), or for params any class a dict is
    never an instance of (a dataclass, an enum, a NamedTuple, a model
    class), or a Union of only such types and None (int | None); not Any,
    object, a dict or a subclass of it, a TypedDict, a Mapping, a Protocol
    or a Union with one of them."""
    if isinstance(a, str):
        a = a.strip()
        # A Literal's values are never a dict nor a Context; Annotated[T,
        # ...] is T (TestLiteralAndAnnotatedHintsSayHintsAreNotRead).
        if _LITERAL_NAME.match(a):
            return a
        m = _ANNOTATED_NAME.match(a)
        if m:
            inner = _first_arg(m.group(1))
            return a if inner and _not_a_dict(inner, first) else None
        # "int | None" under `from __future__ import annotations`.
        parts = [x.strip() for x in a.split("|")] if "[" not in a else [a]
        if all(x == "None" or _NOT_A_DICT_NAME.match(x) for x in parts) and any(x != "None" for x in parts):
            return a
        return None
    origin = getattr(a, "__origin__", None)
    if getattr(origin, "_name", None) == "Literal":
        # Literal['a', 'b']: values, none of them a dict or a Context (it
        # loaded, and the handler was given the params dict as 'a').
        return repr(a).replace("typing.", "")
    if getattr(origin, "_name", None) == "Union" or type(a).__name__ == "UnionType":
        # Union[int, str], Optional[int], int | None: a dict can match
        # it only if one of its members can.
        names = []
        for x in getattr(a, "__args__", ()):
            if x is type(None):
                names.append("None")
                continue
            n = _not_a_dict(x, first)
            if n is None:
                return None
            names.append(n)
        return " | ".join(names) if any(n != "None" for n in names) else None
    if isinstance(origin, type) and origin in _NOT_A_DICT:
        return repr(a).replace("typing.", "")
    if not isinstance(a, type):
        return None
    if a in _NOT_A_DICT:
        return _NOT_A_DICT[a]
    if first and not issubclass(a, dict) and (hasattr(a, "__dataclass_fields__") or
                                              any(b.__name__ == "Enum" for b in a.__mro__[1:])):
        return a.__name__
    if first:
        # Any other class a dict is never an instance of (a NamedTuple, a
        # model class, socket.socket) loaded, and every call failed inside
        # the tool; a dict subclass, a Mapping, object, and a Protocol
        # (which refuses the check) load as before.
        try:
            if not issubclass(a, dict) and not issubclass(dict, a):
                return a.__name__
        except TypeError:
            return None
    return None


def _annotation_problem(fn, tname):
    """A load error for a handler whose type hints show it expects the
    call's arguments as its parameters (def add(a: int, b: int)), or None:
    it is given (params, ctx) and the SDK does not read type hints, so
    every call failed inside the tool ("unsupported operand type(s) for +:
    'dict' and 'Context'") and its schema took any object."""
    bound = hasattr(fn, "__self__") and hasattr(fn, "__func__")
    f = getattr(fn, "__func__", fn)
    code = getattr(f, "__code__", None)
    if not isinstance(f, types.FunctionType) or code is None:
        return None
    try:
        ann = f.__annotations__ or {}
    except Exception:  # annotations evaluated lazily (3.14) may fail
        return None
    names = code.co_varnames[1 if bound else 0:code.co_argcount][:2]
    for i, n in enumerate(names):
        a = ann.get(n)
        shown = _not_a_dict(a, i == 0) if a is not None else None
        if shown is None:
            continue
        return ("%s:%d: tool %r: handler %s(%s) annotates its parameter %s as %s, but it is given %s; "
                "aios_sdk does not read type hints: a handler takes (params, ctx), params being the dict "
                "of the call's arguments; declare them with @tool(parameters={...}) and read params[%r]" % (
                    code.co_filename, code.co_firstlineno, tname, f.__name__, _signature(code), n, shown,
                    "params (a dict of the call's arguments)" if i == 0 else "ctx (the call's Context)",
                    names[0] if i == 0 else n))
    return None


def _signature(code):
    """The parameters of code as written: a, b, *args, k, **kw (defaults
    left out)."""
    n = code.co_argcount
    parts = list(code.co_varnames[:n])
    kwonly = list(code.co_varnames[n:n + code.co_kwonlyargcount])
    i = n + code.co_kwonlyargcount
    if code.co_flags & 0x04:
        parts.append("*" + code.co_varnames[i])
        i += 1
    elif kwonly:
        parts.append("*")
    parts += kwonly
    if code.co_flags & 0x08:
        parts.append("**" + code.co_varnames[i])
    return ", ".join(parts)


def _wants_ctx(fn):
    """Whether fn takes (params, ctx) rather than (params). Uses the code
    object, not inspect (which costs ~10 ms of worker start-up)."""
    bound = hasattr(fn, "__self__") and hasattr(fn, "__func__")
    f = getattr(fn, "__func__", fn)
    skip = 1 if bound else 0
    # A callable that is not a function: look through a partial (its
    # bound arguments), a functools.wraps wrapper (__wrapped__) or a
    # callable instance (__call__ takes self).
    for _ in range(16):
        if isinstance(f, types.FunctionType):
            # A decorator's wrapper(*args, **kwargs) (functools.wraps)
            # takes anything: what it passes on to is what counts (it was
            # given ctx, and a (params) handler behind it failed "takes 1
            # positional argument but 2 were given":
            # TestFunctionWrapperToolGetsCtxAsWrapped).
            # One that names ctx itself (wrapper(params, ctx, *a)) says so.
            w, c = getattr(f, "__wrapped__", None), f.__code__
            if (c.co_flags & 0x04 and callable(w) and c.co_argcount - skip < 2
                    and "ctx" not in c.co_varnames[c.co_argcount:c.co_argcount + c.co_kwonlyargcount]):
                f = w
                continue
            break
        if type(f).__name__ == "partial" and callable(getattr(f, "func", None)):
            skip += len(f.args) + len(f.keywords or ())
            f = f.func
        elif callable(getattr(f, "__wrapped__", None)):
            f = f.__wrapped__
        elif isinstance(getattr(type(f), "__call__", None), types.FunctionType):
            skip += 1
            f = type(f).__call__
            break
        else:
            break
    code = getattr(f, "__code__", None)
    if code is None:
        return True
    if code.co_flags & 0x04:  # *args
        return True
    if code.co_argcount - skip >= 2:
        return True
    # def t(params, *, ctx=None): ctx keyword-only, given by keyword (it
    # was left None, and the tool failed on its first ctx.log).
    if "ctx" in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
        return KW_CTX
    return False


# KW_CTX is _wants_ctx's answer for a handler whose ctx is keyword-only.
KW_CTX = "kw"


def _module_tool(v, name, folder):
    """Whether module-level value v of the tool module name is one of its
    @tool functions: a function, or another callable @tool marked (a
    functools.partial, a decorator's wrapper object), defined there or
    imported into it from a module of its folder (from helpers import
    fetch: it was left out without a word, though docs/python.md says
    module-level functions decorated with @tool are tools). One imported
    from elsewhere (a library's, imported to be called) is not."""
    if isinstance(v, types.FunctionType):
        return hasattr(v, TOOL_ATTR) and (v.__module__ == name or _def_line(v)[0].startswith(folder))
    try:
        if isinstance(v, type) or not callable(v):
            return False
        d = object.__getattribute__(v, "__dict__")
    except Exception:
        return False
    return (isinstance(d, dict) and isinstance(d.get(TOOL_ATTR), dict)
            and (d.get("__module__", name) == name or _def_line(v)[0].startswith(folder)))


def _folder_module(cls, folder):
    """Whether class cls comes from a module of the tool's folder."""
    f = getattr(sys.modules.get(getattr(cls, "__module__", None)), "__file__", None)
    return isinstance(f, str) and os.path.abspath(f).startswith(folder)


# _START, as the first thing a coroutine yielded, has Worker._run_asyncio
# start it on the loop.
_START = object()


def _is_awaitable(r):
    return isinstance(r, types.CoroutineType) or hasattr(type(r), "__await__")


class Worker:
    def __init__(self, in_fd, out_fd, path, spin_us=0):
        self.unawaited = []  # (call id, op) of HostOps dropped unrun
        self.in_fd = in_fd
        # With spinning the input is non-blocking and waits are poll(2).
        self.max_spin_ns = max(0, spin_us) * 1000 * PROBE_SPIN
        self.poller = None
        if self.max_spin_ns:
            os.set_blocking(in_fd, False)
            self.poller = select.poll()
            self.poller.register(in_fd, select.POLLIN)
        self.out_fd = out_fd
        self.path = path
        self.buf = bytearray()
        self.wlock = threading.Lock()
        # Reading the input is one thread's at a time: the serve loop's,
        # or a .wait() of a tool's thread (a ThreadPoolExecutor of a plain
        # def tool). A "call" frame such a reader meets (a thread that
        # outlived its call) waits in backlog for the serve loop.
        self.rlock = threading.Lock()
        self.backlog = []
        self.main_ident = threading.get_ident()
        # A child a tool forks without exec (os.fork) that returns from the
        # handler ends there: it must not answer the call or read the
        # worker's next ones.
        self.forked = False
        self.driving = False
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)
        self.handlers = {}
        self.in_asyncio = False
        self.loop = None
        self.loop_stopped_at = None  # where a tool called loop.stop() during the call (_watch_loop_stop)
        self.pending = {}
        self.next_id = 0
        self.current_call = ""
        self.current_tool = ""  # the tool of current_call (install_exit_note)
        self.serving = False  # registered, serving calls (send_log)
        # The asyncio tasks calls left running, by the tool that left them
        # (_left_task_raised).
        self.left_tasks = weakref.WeakKeyDictionary()
        self.loading = False  # importing the tool file (install_exit_note)
        self.logging_hooked = False  # hook_logging ran
        self.home = None  # the working directory calls start in (keep_cwd)
        self.cwd_moved = False  # a call changed it (os.chdir, os.fchdir)
        # The wire format: JSON until the hello exchange picks MessagePack.
        self.mp = None
        self.loads = _loads
        self.dumps = _dumps_bytes

    # ---- framing -------------------------------------------------------

    def write(self, env):
        self._write_frame(self.dumps(env))

    def use_msgpack(self, mp):
        """Switch every later frame to MessagePack (mp: the module)."""
        self.mp = mp
        self.loads = mp.unpackb
        packb = mp.packb

        def dumps(env):
            # What json.dumps refuses (bytes, NaN) is refused here too:
            # the packer would carry it.
            try:
                data = packb(env)
            except TypeError:
                _dumps(env)  # json.dumps's words for an object neither format carries
                raise
            _refuse_not_json(env, data)
            return data
        self.dumps = dumps
        self.pack_result = mp.Packer(use_bin_type=True).pack  # results: the main thread only

    def negotiate(self, formats):
        """The hello exchange (see the module docstring). Returns the
        format the host chose; a bad answer ends the worker."""
        self._write_frame(_dumps({"v": FORMAT, "kind": "hello", "formats": formats}).encode("utf-8"))
        try:
            frame = self.read_raw()
            h = _loads(frame)
        except (EOFError, ValueError):
            h = None
            frame = b""
        if not isinstance(h, dict) or h.get("v") != FORMAT or h.get("kind") != "hello" or h.get("format") not in formats:
            sys.stderr.write("aios python worker: the host answered the hello (offering %s) with %r\n" % (formats, frame[:200]))
            sys.stderr.flush()
            _real_exit(EXIT_PROTOCOL)
        return h["format"]

    def _write_frame(self, data):
        """One frame, in one write(2) unless the pipe takes less (a large
        frame is written after its header without copying it)."""
        if len(data) > MAX_FRAME:
            raise ToolError("TooLarge", "a message of %d bytes, above the frame limit of %d bytes (64 MiB) between the python worker and the host" % (len(data), MAX_FRAME))
        hdr = len(data).to_bytes(4, "big")
        big = len(data) > 65536
        frame = hdr if big else hdr + data
        with self.wlock:
            try:
                for buf in ((frame, data) if big else (frame,)):
                    n = os.write(self.out_fd, buf)
                    if n < len(buf):
                        view = memoryview(buf)[n:]
                        while view:
                            n = os.write(self.out_fd, view)
                            view = view[n:]
            except OSError as e:
                self._pipe_closed(e, "to", self.out_fd)
                raise

    def _pipe_closed(self, e, way, fd):
        """End the worker, saying so on stderr, when e is EBADF on its pipe
        way ("to" or "from") the host: the tool closed it (os.closerange(3,
        ...), as daemon-style code does). The crash was the SDK's own
        traceback, "OSError: [Errno 9] Bad file descriptor" in _write_frame,
        naming neither the tool nor what it did
        (TestToolClosingWorkerPipeSaysSo)."""
        if getattr(e, "errno", None) != 9:  # EBADF
            return
        name = self.current_tool
        where, f = "", sys._getframe(1)
        while f is not None:
            if self._in_folder(f.f_code.co_filename):
                where = " (at %s:%d)" % (os.path.basename(f.f_code.co_filename), f.f_lineno)
                break
            f = f.f_back
        who = ("tool %s" % name) if name else ("the tool file, while loading," if self.loading else "a tool")
        line = ("%s closed the python worker's pipe %s the host (fd %d)%s, so the worker cannot go on: a tool "
                "must close only the files it opened (os.closerange(3, ...) closes the worker's own too)\n" % (
                    who, way, fd, where))
        try:
            sys.stderr.flush()
        except Exception:
            pass
        try:
            os.write(2, line.encode("utf-8", "backslashreplace"))
        except OSError:
            pass
        _real_exit(EXIT_PROTOCOL)

    def _take_frame(self):
        buf = self.buf
        if len(buf) < 4:
            return None
        n = int.from_bytes(buf[:4], "big")
        if len(buf) < 4 + n:
            return None
        try:
            frame = bytes(buf[4:4 + n])
        except MemoryError:
            # Dropped, so that the frames after it are read: whoever
            # waited for it is told by the MemoryError.
            del buf[:4 + n]
            raise
        del buf[:4 + n]
        return frame

    def read_frame(self, spin_ns=0):
        return self.loads(self.read_raw(spin_ns))

    def read_raw(self, spin_ns=0):
        while True:
            f = self._take_frame()
            if f is not None:
                return f
            chunk = self._read(spin_ns)
            if not chunk:
                raise EOFError
            self.buf += chunk

    def _read(self, spin_ns):
        """One read of the input; with spin_ns, poll it for up to that long
        first instead of sleeping at once."""
        try:
            return self._read1(spin_ns)
        except OSError as e:
            self._pipe_closed(e, "from", self.in_fd)
            raise

    def _read1(self, spin_ns):
        fd = self.in_fd
        if self.poller is None:
            return os.read(fd, 65536)
        if spin_ns:
            read = os.read
            last = _mono()
            end = last + spin_ns
            while True:
                try:
                    return read(fd, 65536)
                except BlockingIOError:
                    now = _mono()
                    if now >= end or now - last > PREEMPT_GAP_NS:
                        break
                    last = now
        while True:
            try:
                return os.read(fd, 65536)
            except BlockingIOError:
                self.poller.poll()

    # ---- host services -------------------------------------------------

    def send_log(self, level, message, call_id=""):
        if self.serving and not self.current_call and not self.forked:
            # Between calls (a tool's thread or task logging after its
            # call ended) the host reads no frame until the next call: a
            # log frame waited there, however long that took, and was lost
            # with a worker stopped meanwhile; 64 KiB of them blocked the
            # thread. Stderr is read at all times
            # (TestLogBetweenCallsReachesHost).
            try:
                sys.stderr.flush()
            except Exception:
                pass
            try:
                os.write(2, ("%s %s\n" % (level.upper(), message)).encode("utf-8", "backslashreplace"))
            except OSError:
                pass
            return
        rec = {"level": level, "message": message}
        if call_id:
            rec["call_id"] = call_id
        try:
            self.write({"v": FORMAT, "kind": "log", "log": rec})
        except UnicodeEncodeError:
            # Lone surrogates (text decoded with surrogateescape): logged
            # with backslash escapes, as the logging module would.
            rec["message"] = _error_text(message)
            self.write({"v": FORMAT, "kind": "log", "log": rec})

    def _encode_host_call(self, env, op):
        try:
            data = self.dumps(env)
        except UnicodeEncodeError as e:
            raise ValueError("%s arguments: %s" % (op.op, _surrogate_text(op.args, e))) from None
        except ValueError as e:
            if "Circular reference" in str(e) or (self.mp is not None and "recursion" in str(e)):
                cyc = _cycle_path(op.args, "$")
                if cyc is not None:
                    raise ValueError("%s arguments: %s" % (op.op, _CYCLE % cyc)) from None
            if self.mp is None or "recursion" not in str(e):
                _refuse_args(op)
                raise
            if _args_too_deep(op.args):
                raise ValueError(_TOO_DEEP_ARGS % op.op) from None
            _refuse_args(op)
            data = _pack_iter(self.mp, env)
        except (TypeError, OverflowError) as e:
            _refuse_args(op, objects=True)
            if self.mp is None or not isinstance(e, OverflowError):
                raise
            # A dict key that is an integer beyond 64 bits, which
            # json.dumps writes in decimal (and the JSON format sends):
            # packed as that string, as a result's is (_pack_deep).
            data = _pack_iter(self.mp, env, keys=True)
        else:
            if self.mp is None and data.count(b"[") + data.count(b"{") > MAX_DEPTH and _args_too_deep(op.args):
                raise ValueError(_TOO_DEEP_ARGS % op.op)
            if self.mp is None and _maybe_big_int_bytes(data) is not None:
                # json.dumps writes any int; the host would read one
                # outside int64 and uint64 as a float, another number.
                _refuse_args(op)
        return data

    def _send_host_call(self, op):
        self.next_id += 1
        hid = "h%d" % self.next_id
        env = {"v": FORMAT, "kind": "host_call", "id": hid,
               "host": {"call_id": op.call_id, "op": op.op, "args": op.args}}
        # The host takes arguments nested up to MAX_DEPTH levels (each
        # argument, call_tool's params say, is level 0, as in-process) and
        # ends a worker whose frame holds deeper ones; the
        # MessagePack packer stops short of that (it counts the envelope's
        # levels too). Deeper arguments are the tool's ValueError in both
        # formats; arguments within the limit that the packer refused are
        # packed without its recursion (_pack_iter).
        try:
            data = self._encode_host_call(env, op)
        except (TypeError, ValueError) as e:
            e._aios_unsent = True  # nothing was written: the tool's error (drive)
            raise
        try:
            self._write_frame(data)
        except ToolError as e:
            # Over the frame limit: say which operation (ctx.spaces.write
            # of 50 MiB said only "a message of 69905162 bytes").
            raise ToolError(e.code, "%s: %s" % (_host_op_what(op), e.message), e.data) from None
        return hid

    @staticmethod
    def _unwrap(env):
        res = env.get("result") or {}
        err = res.get("error")
        if err:
            raise ToolError(err.get("code") or "ProviderError", err.get("message") or "", err.get("data"))
        return res.get("value")

    def host_roundtrip(self, op):
        """Send op and block until its host_result arrives. Any thread
        may call it: while the call runs on the asyncio loop, another
        thread's op goes through the loop; else the round trips of
        threads take turns."""
        op.started = True
        main = threading.get_ident() == self.main_ident
        if self.in_asyncio and not main:
            import asyncio

            async def via_loop():
                return await self.host_future(op)
            return asyncio.run_coroutine_threadsafe(via_loop(), self.loop).result()
        with self.rlock:
            hid = self._send_host_call(op)
            while True:
                try:
                    env = self.read_frame()
                except EOFError:
                    # The host closed the input: it closed this provider
                    # (removed, replaced by a reload, or shutting down), or
                    # it is gone. The answer cannot come; a bare EOFError
                    # would read as the tool's own failure.
                    raise ToolError("Unavailable", "the host closed this provider during the call (removed, replaced by a reload, or the host shutting down): the answer of its host call cannot arrive") from None
                kind = env.get("kind")
                if kind != "host_result":
                    if kind == "call":
                        self.backlog.append(env)
                    continue
                rid = env.get("id")
                if rid == hid:
                    try:
                        return self._unwrap(env)
                    except ToolError as e:
                        self.refused_by_host(op, e)
                        raise
                if main or self.loop is None:
                    self._resolve(rid, env)
                else:
                    self.loop.call_soon_threadsafe(self._resolve, rid, env)

    @staticmethod
    def refused_by_host(op, e):
        """Raise, for ToolError e answering host call op, the exception the
        tool gets for arguments JSON does not carry, when the host refused
        op's arguments as such: a dict key json.dumps refuses but the
        MessagePack packer writes (a tuple, as an array), which reached the
        tool as InvalidParams over MessagePack and as json.dumps's
        TypeError over JSON. Return when e is another error."""
        if e.code != "InvalidParams" or not str(e.message).startswith("%s: the arguments are not JSON values: " % op.op):
            return
        try:
            _refuse_args(op, objects=True)
        except (TypeError, ValueError) as err:
            err._aios_unsent = True  # the tool's error to catch (drive)
            raise err from None

    def host_future(self, op):
        fut = self.loop.create_future()
        self.pending[self._send_host_call(op)] = fut
        return fut

    def _resolve(self, rid, env):
        fut = self.pending.pop(rid, None)
        if fut is None or fut.done():
            return
        try:
            fut.set_result(self._unwrap(env))
        except ToolError as e:
            fut.set_exception(e)

    def _on_readable(self):
        if not self.rlock.acquire(blocking=False):
            return  # a thread's .wait() reads (and passes our answers on)
        envs = []
        lost = []  # (first bytes, size) of answers too large to decode
        try:
            try:
                chunk = os.read(self.in_fd, 65536)
            except BlockingIOError:
                return
            if not chunk:
                _real_exit(0)  # the host is gone
            self.buf += chunk
            while True:
                buf = self.buf
                if len(buf) < 4:
                    break
                n = int.from_bytes(buf[:4], "big")
                if len(buf) < 4 + n:
                    break
                head, f = bytes(buf[4:4 + min(n, 256)]), None
                try:
                    f = self._take_frame()  # drops the frame on MemoryError
                    envs.append(self.loads(f))
                except MemoryError:
                    # An answer larger than the worker's memory (a
                    # big object's ctx.spaces.read): raised here, in
                    # the event loop's callback, asyncio only logged it
                    # and the read waited for the call's deadline. The
                    # frame is dropped and its read fails below.
                    f = None
                    lost.append((head, n))
        finally:
            self.rlock.release()
        for env in envs:
            if env.get("kind") == "host_result":
                self._resolve(env.get("id"), env)
        for head, n in lost:
            hid = _frame_id(head)
            futs = [self.pending.pop(hid, None)] if hid is not None else [self.pending.pop(k) for k in list(self.pending)]
            for fut in futs:
                if fut is not None and not fut.done():
                    fut.set_exception(MemoryError("the host's answer of %d bytes to host call %s does not fit in the worker's memory (%s)" % (n, hid, _memory_limit())))

    # ---- driving handlers ----------------------------------------------

    def _get_loop(self):
        # asyncio is imported on first use only: it costs ~25 ms of worker
        # start-up, and tools that never touch it should not pay for it.
        if self.loop is None:
            import asyncio
            self.loop = asyncio.new_event_loop()
            self._watch_loop_stop(self.loop)
        return self.loop

    def _watch_loop_stop(self, loop):
        """Wraps loop.stop so that a tool stopping the loop its call runs on
        is told where: run_until_complete said only "Event loop stopped
        before Future completed.", naming no line and not that the tool
        stopped it (TestToolStoppingEventLoopNamed). The loop's own stop
        (run_until_complete's done callback) has no frame of the tool's
        folder and is not noted."""
        stop = loop.stop

        def watched():
            f, n = sys._getframe(1), 0
            while f is not None and n < 64:
                fn = f.f_code.co_filename
                if isinstance(fn, str) and self._in_folder(fn):
                    self.loop_stopped_at = "%s:%d" % (os.path.basename(fn), f.f_lineno)
                    break
                f, n = f.f_back, n + 1
            return stop()
        loop.stop = watched

    def drive(self, aw):
        """Run an awaitable to completion.

        Host operations are served inline (no event loop); the first time
        the coroutine awaits anything else (asyncio.sleep, a task, gather)
        the rest of it runs on an asyncio loop."""
        coro = aw if isinstance(aw, types.CoroutineType) else aw.__await__()
        aio = sys.modules.get("asyncio")
        if aio is not None:
            # The tool uses asyncio: the call runs as a task from its
            # start. Driven inline, it had no task until its first await
            # of something else, and asyncio.timeout(), TaskGroup() and
            # current_task() failed or were None there
            # (TestAsyncioTaskFromTheStart).
            return self._run_asyncio(coro, _START)
        # Else a tool importing asyncio now gets our loop running as well
        # (_AsyncioImportHook).
        self.driving = True
        value, exc = None, None
        try:
            while True:
                try:
                    y = coro.throw(exc) if exc is not None else coro.send(value)
                except StopIteration as stop:
                    return stop.value
                value, exc = None, None
                if isinstance(y, HostOp):
                    try:
                        value = self.host_roundtrip(y)
                    except ToolError as e:
                        exc = e
                    except MemoryError as e:
                        # An answer too large for the worker's memory
                        # (a big object's ctx.spaces.read): raised at
                        # the tool's await, whose line the call names.
                        exc = e
                    except (TypeError, ValueError) as e:
                        # Arguments that could not be sent (nothing was
                        # written): the tool's error to catch, as when
                        # it awaits on asyncio's loop or calls .wait().
                        if not getattr(e, "_aios_unsent", False):
                            raise
                        exc = e
                elif y is None:
                    continue
                else:
                    break
        finally:
            self.driving = False
            aio = sys.modules.get("asyncio")
            if aio is not None:
                aio.events._set_running_loop(None)
        return self._run_asyncio(coro, y)

    def _run_asyncio(self, coro, first):
        loop = self._get_loop()

        @types.coroutine
        def bridge(y):
            while True:
                value, exc = None, None
                if y is not _START:
                    try:
                        value = yield y
                    except BaseException as e:  # delivered by the task (cancel, errors)
                        exc = e
                try:
                    y = coro.throw(exc) if exc is not None else coro.send(value)
                except StopIteration as stop:
                    return stop.value

        async def runner():
            return await bridge(first)

        self.in_asyncio = True
        self.loop_stopped_at = None
        loop.add_reader(self.in_fd, self._on_readable)
        tool, task = self.current_tool, None
        try:
            if self.buf:
                loop.call_soon(self._drain_buffered)
            try:
                task = loop.create_task(runner())
                while True:
                    try:
                        return loop.run_until_complete(task)
                    except (KeyboardInterrupt, SystemExit) as e:
                        # Raised by a task, not by the call's own
                        # coroutine: asyncio lets these out of the loop.
                        if task.done():
                            raise
                        if not self._left_task_raised(e, tool):
                            task.cancel()  # not to run on in a later call
                            raise
            except RuntimeError as e:
                at = self.loop_stopped_at
                if at is None or str(e) != "Event loop stopped before Future completed.":
                    raise
                raise RuntimeError("the tool stopped the worker's asyncio event loop (loop.stop() at %s) before its "
                                   "coroutine finished; a tool must not stop the loop it runs on: return instead" % at) from None
        finally:
            loop.remove_reader(self.in_fd)
            self.in_asyncio = False
            for fut in self.pending.values():
                fut.cancel()
            self.pending.clear()
            self._note_left_tasks(loop, task, tool)

    def _note_left_tasks(self, loop, task, tool):
        """Remember the asyncio tasks still pending as call task of tool
        ends, as left by tool (tasks left by an earlier call keep theirs)."""
        import asyncio
        try:
            pending = asyncio.all_tasks(loop)
        except RuntimeError:
            return  # (the set changed size meanwhile, a thread's task)
        for t in pending:
            if t is not task and t not in self.left_tasks:
                self.left_tasks[t] = tool

    def _left_task_raised(self, e, tool):
        """When KeyboardInterrupt or SystemExit e, out of the event loop
        while tool's call ran, was raised by a task an earlier call left
        running (created, not awaited), log it naming that call's tool, and
        return True: it ends that task only, as it would end a thread. It
        failed the call that happened to run the loop, or ended its worker
        blaming it for a sys.exit, and left that call's coroutine on the
        loop to run on in a later call
        (TestLeftTaskBaseExceptionSparesLaterCall)."""
        for t, by in list(self.left_tasks.items()):
            if t.done() and not t.cancelled() and t.exception() is e:
                break
        else:
            return False
        where = self._where(e.__traceback__)
        coro = t.get_coro()
        self.send_log("error", "tool %s left an asyncio task running after its call ended (%s), which raised %s%s; "
                      "it ended that task only, not the worker: the call of tool %s goes on"
                      % (by, getattr(coro, "__qualname__", None) or t.get_name(), _exc_text(e),
                         " (at %s)" % where if where else "", tool))
        return True

    def _drain_buffered(self):
        while True:
            with self.rlock:
                f = self._take_frame()
            if f is None:
                return
            env = self.loads(f)
            if env.get("kind") == "host_result":
                self._resolve(env.get("id"), env)

    # ---- calls ---------------------------------------------------------

    def _after_fork(self):
        self.forked = True

    def _exit_if_forked(self, exc=None):
        """End a child a tool forked as it leaves the tool, as Python would
        end it: exc is what it leaves with, a SystemExit's status or 1
        with the traceback on stderr for another exception. It exited 0
        whatever it left with, so the tool's waitpid saw success
        (TestForkedChildExitStatusKept)."""
        if self.forked:
            status = 0
            try:
                if isinstance(exc, SystemExit):
                    code = exc.code
                    if code is None:
                        status = 0
                    elif isinstance(code, int):
                        status = code & 0xff
                    else:
                        status = 1
                        print(code, file=sys.stderr)
                elif exc is not None:
                    status = 1
                    import traceback
                    traceback.print_exception(type(exc), exc, exc.__traceback__)
                sys.stderr.flush()
            finally:
                _real_exit(status)

    def _error(self, cid, code, message, data=None):
        """Answer call cid with an error. A failing tool must not end the
        worker: a code or message that is not a string is str()'d, one
        with lone surrogates (text decoded with surrogateescape) gets them
        as backslash escapes, a message is cut at 64 KiB (as JS cuts
        one), and data that cannot be sent (not JSON, too deep, too large)
        is left out with a note in the message."""
        code = _error_text(code)
        message = _error_text(message)
        message = _cut(message, _MAX_ERROR_CHARS)
        err = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        env = {"v": FORMAT, "kind": "result", "id": cid, "result": {"call_id": cid, "error": err}}
        if data is None:
            self.write(env)
            return
        try:
            if self.mp is None and _too_deep(data):
                raise ValueError("nested deeper than %d levels" % MAX_DEPTH)
            frame = self.dumps(env)
            if self.mp is None and _maybe_big_int_bytes(frame) is not None:
                # json.dumps writes any int; the host would read one
                # outside int64 and uint64 as a float, another number.
                note = _not_json_note(data)
                if note is not None:
                    raise ValueError(note)
            self._write_frame(frame)
        except Exception as e:  # also the data's own methods raising (TestResultEncodingRaises)
            # Named with its path in the data, alike in both formats (the
            # packer's and json.dumps's own words named the frame's path,
            # $.result.error.data…, or none).
            note = None if isinstance(e, ToolError) or "nested deeper" in str(e) else _not_json_note(data)
            if note is None and isinstance(e, TypeError):
                note = _object_note(data, e)
            if note is None and isinstance(e, OverflowError) and self.mp is not None:
                # A dict key that is an integer beyond 64 bits: packed as
                # json.dumps's decimal string for it, as in a result.
                try:
                    self._write_frame(_pack_iter(self.mp, env, keys=True))
                    return
                except Exception:
                    pass
            del err["data"]
            err["message"] = "%s (its data was left out: %s)" % (message, note or _error_text(e)[:500])
            self.write(env)

    def _in_folder(self, filename):
        """Whether filename is in the tool's folder: beneath it, not merely
        a path that begins with its name (/srv/tools-lib/x.py is not in
        /srv/tools)."""
        folder = os.path.dirname(self.path)
        return filename.startswith(folder if folder.endswith(os.sep) else folder + os.sep)

    def _tool_frames(self, tb, keep):
        """(the innermost keep frames of traceback tb in the tool's folder,
        as (function, base name, line), innermost first; how many such
        frames there are). It walks tb itself: traceback.extract_tb made a
        FrameSummary (and read the source line) of every frame, and for
        the million frames of a recursion under a raised recursion limit
        its MemoryError ended the worker (TestHugeTracebackKeepsWorker)."""
        import collections
        last = collections.deque(maxlen=keep)
        folder = os.path.dirname(self.path)
        prefix = folder if folder.endswith(os.sep) else folder + os.sep
        seen, n = {}, 0
        while tb is not None:
            code = tb.tb_frame.f_code
            fn = code.co_filename
            ours = seen.get(fn)
            if ours is None:
                ours = seen[fn] = isinstance(fn, str) and fn.startswith(prefix)
            if ours:
                n += 1
                last.append((code, tb.tb_lineno))
            tb = tb.tb_next
        return [(c.co_name, os.path.basename(c.co_filename), line or 0) for c, line in reversed(last)], n

    def _tool_tb(self, e):
        """The traceback that locates e: its own, or when that has no frame
        of the tool's folder, that of the first exception of its chain
        (cause, else context) that has one. A StopIteration leaving an
        async def tool becomes "RuntimeError: coroutine raised
        StopIteration", whose traceback holds only the SDK's frames; the
        tool's are in its cause (TestStopIterationInAsyncToolNamesLine)."""
        x, seen = e, set()
        while x is not None and id(x) not in seen and len(seen) < 16:
            seen.add(id(x))
            if self._tool_frames(x.__traceback__, 1)[1]:
                return x.__traceback__
            x = x.__cause__ or x.__context__
        return e.__traceback__

    def _where(self, tb):
        """file:line of the innermost frame in the tool's folder."""
        frames, _ = self._tool_frames(tb, 1)
        return "%s:%d" % frames[0][1:] if frames else ""

    def _cause_text(self, e):
        """For an exception raised from another (raise X from Y), its
        causes as " (caused by Type: message at file.py:LINE; caused by
        ...)", at most three; "" for another. The message named e alone,
        so a tool wrapping a KeyError into its own error lost what the
        KeyError said (found by p168). An exception raised while another
        was handled (its __context__, not its cause) is not named: it may
        be unrelated, and Python says so only in the traceback."""
        parts, x, seen = [], e.__cause__, {id(e)}
        if isinstance(e, RuntimeError) and isinstance(x, (StopIteration, StopAsyncIteration)):
            # Python's own conversion (PEP 479), which the message says:
            # "coroutine raised StopIteration".
            x = None
        while x is not None and id(x) not in seen and len(parts) < 3:
            seen.add(id(x))
            where = self._where(x.__traceback__)
            parts.append("caused by " + _exc_text(x) + (" at " + where if where else ""))
            x = x.__cause__
        return " (" + "; ".join(parts) + ")" if parts else ""

    def _group_text(self, e, depth=0):
        """For an exception group (an asyncio.TaskGroup's), its exceptions
        as ": Type: message (at file.py:LINE); ...", at most
        _MAX_GROUP_SHOWN and then how many more; "" for another exception.
        The message was the group's alone, "unhandled errors in a TaskGroup
        (1 sub-exception)", naming none (TestExceptionGroupNamesItsExceptions)."""
        subs = getattr(e, "exceptions", None)
        if not isinstance(e, _EXC_GROUP) or not isinstance(subs, tuple) or not subs:
            return ""
        parts = []
        for x in subs[:_MAX_GROUP_SHOWN]:
            where = self._where(self._tool_tb(x))
            parts.append(_exc_text(x) + (self._group_text(x, depth + 1) if depth < 2 else "") +
                         (" (at %s)" % where if where else ""))
        if len(subs) > _MAX_GROUP_SHOWN:
            parts.append("\u2026 %d more" % (len(subs) - _MAX_GROUP_SHOWN))
        return ": " + "; ".join(parts) if depth == 0 else " [" + "; ".join(parts) + "]"

    def _stack(self, tb):
        """The frames of tb in the tool's folder as JS prints a stack,
        innermost first: "\n\tat func (file.py:LINE)" each, by base name (no
        host folders, no SDK frames), at most 12 and then how many more."""
        frames, n = self._tool_frames(tb, 12)
        out = ["\n\tat %s (%s:%d)" % f for f in frames]
        if n > 12:
            out.append("\n\t... %d more frames" % (n - 12))
        return "".join(out)

    def _say_exit(self, name, e):
        """Write on stderr that tool name called sys.exit, and where."""
        where = self._where(e.__traceback__)
        try:
            code = repr(e.code)
        except Exception:
            code = type(e.code).__name__
        line = "tool %s called sys.exit(%s)%s: a tool that exits ends its worker; raise an exception or ToolError to fail the call\n" % (
            name, code[:200], " at " + where if where else "")
        try:
            sys.stderr.flush()
        except Exception:
            pass
        try:
            os.write(2, line.encode("utf-8", "backslashreplace"))
        except OSError:
            pass

    def install_exit_note(self):
        """os._exit from a tool mid-call (it skips every handler, so the
        SystemExit note of _say_exit cannot catch it) writes on stderr
        which tool called it and where before exiting; the crash said only
        "exit status 7". Not in a forked child (its exit is its own)."""
        real, real_abort = os._exit, os.abort

        def note(call, extra=""):
            try:
                name = self.current_tool
                if (name or self.loading) and not self.forked:
                    # The innermost frame of the tool's folder, walked
                    # frame by frame: extract_stack would build (and read
                    # the source line of) every frame of a deep recursion.
                    where, f = "", sys._getframe(2)
                    while f is not None:
                        if self._in_folder(f.f_code.co_filename):
                            where = "%s:%d" % (os.path.basename(f.f_code.co_filename), f.f_lineno)
                            break
                        f = f.f_back
                    if name:
                        line = "tool %s called %s%s: a tool that exits ends its worker; raise an exception or ToolError to fail the call%s\n" % (
                            name, call, " at " + where if where else "", extra)
                    else:
                        # At import: it said only "exited before
                        # registering (exit status 0)" (TestOsExitAtImportNamesLine).
                        line = "the tool file called %s%s while loading: a tool file must not exit (raise an exception to fail the load)%s\n" % (
                            call, " at " + where if where else "", extra)
                    try:
                        sys.stderr.flush()
                    except Exception:
                        pass
                    os.write(2, line.encode("utf-8", "backslashreplace"))
            except Exception:
                pass

        def _exit(status):
            note("os._exit(%r)" % (status,))
            real(status)

        def abort():
            # As its PID namespace's init the worker ignores the SIGABRT
            # abort(3) raises, which then ends it with SIGSEGV: the crash
            # said "signal: segmentation fault".
            note("os.abort()", " (in its PID namespace the abort ends the worker with SIGSEGV)" if os.getpid() == 1 else "")
            real_abort()
        _exit.__doc__, abort.__doc__ = real.__doc__, real_abort.__doc__
        os._exit, os.abort = _exit, abort

    def warn_unawaited(self, name):
        """Warn of the host operations this call made and dropped without
        awaiting them (HostOp.__del__): they never ran."""
        if not self.unawaited:
            return
        ops, self.unawaited = self.unawaited, []
        ours = sorted({_core.OP_NAMES.get(op, op) for call_id, op in ops if call_id == self.current_call})
        if ours:
            self.send_log("warning", "tool %s dropped %s without awaiting it: it never ran (missing await? in a plain def tool, call .wait() on it)"
                          % (name, ", ".join("ctx.%s(...)" % o for o in ours)), self.current_call)

    def hook_logging(self):
        """Once a tool's code has imported logging (not imported here: it
        takes tens of milliseconds), a record no handler takes, the
        logging module's "last resort" (warnings and errors of loggers
        nobody configured), goes to the host log at its own level,
        tagged with the call it was logged in. Written on stderr, as
        the last resort does, it was logged at info whatever its level.
        Handlers a tool configures (logging.basicConfig: stderr) are
        its own: their lines are stderr lines, logged at info."""
        logging = sys.modules.get("logging")
        if logging is None or self.logging_hooked:
            return
        self.logging_hooked = True
        worker = self

        class HostLogHandler(logging.Handler):
            def emit(self, record):
                try:
                    msg = self.format(record)
                    if worker.forked:
                        # A child the tool forked has no pipe of its own
                        # to the host: stderr, as the last resort writes.
                        sys.stderr.write(msg + "\n")
                        return
                    lv = record.levelno
                    level = "debug" if lv < logging.INFO else "info" if lv < logging.WARNING else "warn" if lv < logging.ERROR else "error"
                    worker.send_log(level, _core.cut_text(msg, _core._MAX_LOG_CHARS), worker.current_call)
                except Exception:
                    self.handleError(record)

        h = HostLogHandler(logging.WARNING)
        h.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logging.lastResort = h

    def handle_call(self, env):
        if not self.logging_hooked and "logging" in sys.modules:
            self.hook_logging()
        call = env.get("call") or {}
        cid = env.get("id") or call.get("id") or ""
        self.current_call = call.get("id") or cid
        self.current_tool = call.get("tool", "")
        try:
            self._handle_call(env, call, cid)
        finally:
            self.current_call = self.current_tool = ""
            if self.cwd_moved:
                self.cwd_moved = False
                try:
                    _real_chdir(self.home)
                except (OSError, TypeError):
                    pass

    def _handle_call(self, env, call, cid):
        name = call.get("tool", "")
        h = self.handlers.get(name)
        if h is None:
            self._error(cid, "NotFound", "the python provider has no tool %r" % name)
            return
        params = call.get("params")
        if params is None:
            params = {}
        try:
            try:
                if h.wants_ctx is True:
                    r = h.fn(params, Context(self, call))
                elif h.wants_ctx == KW_CTX:
                    r = h.fn(params, ctx=Context(self, call))
                else:
                    r = h.fn(params)
                if _is_awaitable(r):
                    r = self.drive(r)
                self.warn_unawaited(name)
            except BaseException as e:
                self._exit_if_forked(e)
                raise
            finally:
                self._exit_if_forked()
        except ToolError as e:
            # A subclass may not have called ToolError.__init__: no code
            # is ProviderError. A code given, even None or "" (a table
            # that lacked it), goes as it is, for the host to name as not
            # one of the ABI's (it was a silent ProviderError).
            code = getattr(e, "code", "ProviderError")
            message = getattr(e, "message", None)
            if message is None:
                message = e.args[0] if len(e.args) == 1 else ", ".join(map(str, e.args))
            self._error(cid, code, message, getattr(e, "data", None))
            return
        except MemoryError as e:
            # Where, as for any other exception (it named no line).
            try:
                where = self._where(e.__traceback__)
            except MemoryError:
                where = ""
            # The tool's frames, which the traceback keeps, hold what it
            # allocated (a list grown to the limit): freed before the
            # answer is packed, which failed for want of memory and ended
            # the worker (TestMemoryErrorOfGrowingListNamesLine).
            _clear_frames(e.__traceback__)
            e = None
            self._error(cid, "ProviderError", "MemoryError in tool %s%s: out of memory (%s)" % (
                name, " at " + where if where else "", _memory_limit()))
            return
        except SystemExit as e:
            # The tool ends its worker (ProviderCrashed, docs/python.md):
            # stderr, whose tail the host reports, says which tool and
            # where; the crash said only "exit status N".
            self._say_exit(name, e)
            raise
        except BaseException as e:  # Exception, asyncio.CancelledError, KeyboardInterrupt
            tb = self._tool_tb(e)
            where = self._where(tb)
            text = _error_text(_exc_text(e) + self._group_text(e) + self._cause_text(e))
            head = _cut(text, _MAX_ERROR_CHARS)
            # The text is cut before the location is added: cut after, a
            # long message lost its "(at file.py:LINE)".
            tail = (" (at %s)" % where if where else "") + _sandbox_note(e)
            msg = _cut(text, _MAX_ERROR_CHARS - len(_error_text(tail).encode("utf-8"))) + tail
            # data {"name", "stack"} as a JS tool's error has.
            data = {"name": type(e).__name__, "stack": head + self._stack(tb)}
            self._error(cid, "ProviderError", msg, data)
            return
        try:
            if self.mp is not None:
                data = self._encode_result_msgpack(cid, name, r)
            else:
                data = self._encode_result(cid, name, r)
        except Exception as e:
            # The value's own methods raised while it was encoded (a dict
            # or list subclass whose items() or __iter__ fails): the
            # call's InvalidResult; it ended the worker
            # (TestResultEncodingRaises).
            if self.mp is not None:
                self.pack_result = self.mp.Packer(use_bin_type=True).pack
            try:
                what = "%s: %s" % (type(e).__name__, e)
            except Exception:
                what = type(e).__name__
            self._error(cid, "InvalidResult", "tool %s returned a value that could not be encoded: %s" % (name, what))
            return
        if data is not None:
            self._write_frame(data)

    def _encode_result(self, cid, name, r):
        """The result frame of r, or None after answering with an error:
        InvalidResult for a value that is not JSON (NaN, bytes, objects, an
        integer outside int64 and uint64, nested deeper than MAX_DEPTH, out of memory
        while encoding), TooLarge above the frame limit. The worker lives
        on. Dict keys that are not strings are json.dumps's."""
        err = None
        try:
            # The host's fast path reads exactly this shape (keys in this
            # order, compact): runtimes/python/decode.go.
            q = _dumps(cid)
            body = _dumps(r)
            # Nesting deeper than MAX_DEPTH needs more brackets than that.
            if body.count("[") + body.count("{") > MAX_DEPTH and _too_deep(r):
                self._error(cid, "InvalidResult", _TOO_DEEP % name)
                return None
            if len(body) > MAX_FRAME:
                err = ("TooLarge", len(body))
            else:
                if _maybe_big_int(body) is not None:
                    where = _big_int_path(r)
                    if where is not None:
                        path, v = where
                        self._error(cid, "InvalidResult", "tool %s returned %s at %s: %s" % (name, _describe_int(v), path, _INT_RANGE))
                        return None
                data = (_RESULT % (q, q, body)).encode("utf-8")
                del body
                if len(data) > MAX_FRAME:
                    err = ("TooLarge", len(data))
                else:
                    return data
        except RecursionError as e:
            if _too_deep(r):
                self._error(cid, "InvalidResult", _TOO_DEEP % name)
            else:  # the tool lowered the recursion limit
                self._error(cid, "InvalidResult", "tool %s returned a value nested too deeply to encode as JSON (RecursionError: %s)" % (name, e))
            return None
        except MemoryError:
            self._error(cid, "InvalidResult", "tool %s returned a value too large to encode as JSON: out of memory (%s); a result is at most 64 MiB, and limits.max_result_bytes of the host (16 MiB by default): store bulk data with ctx.spaces.write and return its ObjectId" % (name, _memory_limit()))
            return None
        except (TypeError, ValueError) as e:
            cyc = _cycle_path(r) if "Circular reference" in str(e) else None
            if cyc is not None:
                self._error(cid, "InvalidResult", "tool %s returned a value that is not JSON: %s" % (name, _CYCLE % cyc))
                return None
            if (isinstance(e, ValueError) and "Out of range float" in str(e)) or (isinstance(e, TypeError) and str(e).startswith("keys must be")):
                # NaN or an infinity: named with its path, as MessagePack's
                # walk names it (json.dumps's words named neither:
                # TestNaNResultNamedAlike); a key json.dumps refuses (a
                # tuple, NaN) keeps its words and names its dict's path
                # (TestRefusedKeyNamesItsDict).
                bad = _not_json(r)
                if bad is not None:
                    self._refuse(cid, name, bad)
                    return None
            self._error(cid, "InvalidResult", _not_json_text(name, r, e))
            return None
        self._error(cid, err[0], "tool %s returned %d bytes of JSON, above the frame limit of %d bytes (64 MiB) between the python worker and the host; a result must also fit limits.max_result_bytes of the host (16 MiB by default): store bulk data with ctx.spaces.write and return its ObjectId" % (name, err[1], MAX_FRAME))
        return None

    def _encode_result_msgpack(self, cid, name, r):
        """_encode_result in MessagePack. The packer takes some values JSON
        does not carry (bytes, NaN); when the
        frame holds a type byte that may be one of them (rare), a walk
        finds it and the call gets the JSON side's InvalidResult. A dict
        key that is not a string is packed as it is (None, a bool, an int,
        a float) and the host turns it into the string json.dumps makes of
        it (runtimes/python/msgpack.go, pyKey), so both formats give the
        same value; a key json.dumps refuses gets its error. The packer's
        nesting limit (511 levels counting the envelope's two) is below
        MAX_DEPTH: a value it refuses is looked at again (_repack_result)."""
        try:
            data = self.pack_result({"v": FORMAT, "kind": "result", "id": cid, "result": {"call_id": cid, "value": r}})
        except MemoryError:
            self.pack_result = self.mp.Packer(use_bin_type=True).pack
            n = _approx_size(r)
            if n > MAX_FRAME:
                self._error(cid, "TooLarge", "tool %s returned a value of about %d bytes, above the frame limit of %d bytes (64 MiB) between the python worker and the host; a result must also fit limits.max_result_bytes of the host (16 MiB by default): store bulk data with ctx.spaces.write and return its ObjectId" % (name, n, MAX_FRAME))
            else:
                self._error(cid, "InvalidResult", "tool %s returned a value too large to encode: out of memory (%s); a result is at most 64 MiB, and limits.max_result_bytes of the host (16 MiB by default): store bulk data with ctx.spaces.write and return its ObjectId" % (name, _memory_limit()))
            return None
        except (TypeError, ValueError, OverflowError, RecursionError) as e:
            # A packer that failed half-way keeps its buffer: a fresh one.
            self.pack_result = self.mp.Packer(use_bin_type=True).pack
            data = self._repack_result(cid, name, r, e)
            if data is None:
                return None
        if len(data) > MAX_FRAME:
            self._error(cid, "TooLarge", "tool %s returned %d bytes of MessagePack, above the frame limit of %d bytes (64 MiB) between the python worker and the host; a result must also fit limits.max_result_bytes of the host (16 MiB by default): store bulk data with ctx.spaces.write and return its ObjectId" % (name, len(data), MAX_FRAME))
            return None
        if _maybe_not_json(data) is not None:
            bad = _not_json(r)
            if bad is not None:
                self._refuse(cid, name, bad)
                return None
        return data

    def _refuse(self, cid, name, bad):
        """Answer call cid with the InvalidResult of _not_json's finding."""
        path, what = bad
        if isinstance(what, Exception):  # a dict key json.dumps refuses: its words, and the dict's path
            self._error(cid, "InvalidResult", "tool %s returned a value that is not JSON: %s" % (name, _KEY_AT % (what, path)))
        elif _is_int_note(what):
            self._error(cid, "InvalidResult", "tool %s returned %s at %s: %s" % (name, what, path, _INT_RANGE))
        elif what.startswith("bytes ("):
            # In json.dumps's words, as the JSON format refuses them (and a
            # set or a Decimal in both): it read "bytes (bytes) at $.b" over
            # MessagePack alone (TestBytesResultAlike).
            self._error(cid, "InvalidResult", "tool %s returned a value that is not JSON: Object of type %s is not JSON serializable (at %s)%s" % (name, what[len("bytes ("):-1], path, _BYTES_HINT))
        else:
            self._error(cid, "InvalidResult", "tool %s returned a value that is not JSON: %s at %s" % (name, what, path))

    def _repack_result(self, cid, name, r, e):
        """The result frame of r after the packer refused it with e, or
        None after answering with an error. The packer refuses more than
        JSON does: nesting within MAX_DEPTH but past its own limit, and a
        dict key that is an integer beyond 64 bits (json.dumps writes it in
        decimal); those are packed again by _pack_deep."""
        if isinstance(e, RecursionError) or (isinstance(e, ValueError) and "recursion" in str(e)):
            if _too_deep(r):
                cyc = _cycle_path(r)
                if cyc is not None:
                    self._error(cid, "InvalidResult", "tool %s returned a value that is not JSON: %s" % (name, _CYCLE % cyc))
                else:
                    self._error(cid, "InvalidResult", _TOO_DEEP % name)
                return None
        bad = _not_json(r)
        if bad is not None:
            self._refuse(cid, name, bad)
            return None
        try:
            return self._pack_deep(cid, r)
        except (TypeError, ValueError, OverflowError, RecursionError):
            pass
        try:
            _dumps(r)  # json.dumps's words, as in the JSON format
        except (TypeError, ValueError) as je:
            e = je
        except Exception:
            pass
        self._error(cid, "InvalidResult", _not_json_text(name, r, e))
        return None

    def _pack_deep(self, cid, r):
        """The result frame of r packed without the packer's nesting
        limit (one value at a time from a stack), with every dict key that
        is not a string turned into json.dumps's string for it."""
        p = self.mp.Packer(use_bin_type=True, autoreset=False)
        pack = p.pack
        p.pack_map_header(4)
        for x in ("v", FORMAT, "kind", "result", "id", cid, "result"):
            pack(x)
        p.pack_map_header(2)
        for x in ("call_id", cid, "value"):
            pack(x)
        stack = [r]
        while stack:
            x = stack.pop()
            if isinstance(x, dict):
                p.pack_map_header(len(x))
                for k, y in reversed(x.items()):
                    stack.append(y)
                    stack.append(k if isinstance(k, str) else _json_key(k))
            elif isinstance(x, (list, tuple)):
                p.pack_array_header(len(x))
                stack.extend(reversed(x))
            else:
                pack(x)
        return p.bytes()

    def serve(self):
        spin_ns = 0
        self.serving = True
        while True:
            try:
                with self.rlock:
                    env = self.backlog.pop(0) if self.backlog else self.read_frame(spin_ns)
            except EOFError:
                return
            if env.get("kind") == "call":
                spin_ns = 0
                if self.max_spin_ns:
                    s = env.get("spin")
                    if type(s) is int and s > 0:
                        spin_ns = min(s * 1000, self.max_spin_ns)
                self.handle_call(env)


def _install_net_broker(w, fd):
    """Route socket.create_connection through the host (see the module
    docstring): it is the one way out for a worker without network."""
    import array
    import socket

    broker = socket.socket(fileno=fd)
    default_timeout = socket._GLOBAL_DEFAULT_TIMEOUT
    lock = threading.Lock()

    class BrokeredSocket(socket.socket):
        """The host keeps a copy of each brokered socket until the call
        ends (to end it then), so closing this one alone would not end the
        connection: its last close (files made by makefile closed too)
        shuts it down first."""

        def _real_close(self, *args, **kwargs):
            try:
                self.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            super()._real_close(*args, **kwargs)

    def create_connection(address, timeout=default_timeout, source_address=None, *args, **kwargs):
        host, port = address[0], address[1]
        if not w.current_call:
            raise PermissionError(13, "network access of this provider goes through aios-host and is only available while a tool call runs")
        if isinstance(port, str) and port.isdigit():
            port = int(port)
        # As socket.getaddrinfo takes them: bytes, and a name with
        # non-ASCII letters in its IDNA (xn--) form, which is what
        # Network(host) patterns are matched against.
        if isinstance(host, (bytes, bytearray)):
            host = bytes(host).decode("ascii", "backslashreplace")
        host = str(host)
        if not host.isascii():
            try:
                host = host.encode("idna").decode("ascii")
            except UnicodeError:
                pass  # the host says what is wrong with it
        args = {"host": host, "port": port}
        if timeout is not default_timeout and timeout is not None:
            # The connect's own bound (the host dials; else only the
            # call's deadline bounds it).
            args["timeout"] = float(timeout)
        with lock:
            try:
                w.host_roundtrip(HostOp(w, w.current_call, "net_connect", args))
            except ToolError as e:
                if e.code == "CapabilityDenied":
                    raise PermissionError(13, e.message) from None
                if e.code == "Timeout":
                    raise socket.timeout("timed out: " + e.message) from None
                d = e.data if isinstance(e.data, dict) else {}
                if d.get("dns") in ("notfound", "again"):
                    # A name that did not resolve: socket.gaierror, as
                    # Python's resolver raises it (it was a bare OSError).
                    raise socket.gaierror(socket.EAI_NONAME if d["dns"] == "notfound" else socket.EAI_AGAIN,
                                          e.message) from None
                en = d.get("errno")
                if type(en) is int and en > 0:
                    # OSError(errno, ...) is its subclass, as Python's own
                    # connect raises it: ConnectionRefusedError for
                    # ECONNREFUSED (it was a bare OSError without errno).
                    raise OSError(en, e.message) from None
                raise OSError(e.message) from None
            fds = array.array("i")
            _, anc, _, _ = broker.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        if not fds:
            raise OSError("net_connect: the host passed no socket")
        s = BrokeredSocket(fileno=fds[0])
        if timeout is not default_timeout:
            s.settimeout(timeout)
        return s

    socket.create_connection = create_connection


_NO_NETWORK = ("this provider holds no Network capability, so its sandbox has no network: ask for one, "
               "@Agent(capabilities=[Capability.Network(%r)]) or provider(capabilities=[...]) (its trust level "
               "must allow it, and its caller must hold it too; docs/python.md \"Sandbox\")")
_BROKERED = ("this provider reaches its Network(host) hosts through aios-host only: use "
             "socket.create_connection (urllib and http.client do), which the host connects; "
             "a socket the tool opens or a name it resolves itself is refused by the sandbox")


def _explain_sockets(socket, brokered):
    """Where the sandbox refuses the network, say so (and what to ask for)
    instead of "[Errno -3] Temporary failure in name resolution" (no
    resolver: the network namespace is empty, /etc is not readable) or a
    bare "[Errno 13] Permission denied" (the seccomp rule refuses
    socket(2)). brokered: the provider holds Network(host) patterns and
    socket.create_connection is the host's (_install_net_broker);
    else it holds no Network at all and create_connection is refused."""
    import errno

    def host_of(args):
        a = args[0] if args else None
        return str(a[0]) if isinstance(a, tuple) and a else "<host>"

    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(*args, **kwargs):
        try:
            return real_getaddrinfo(*args, **kwargs)
        except socket.gaierror as e:
            why = _BROKERED if brokered else _NO_NETWORK % (str(args[0]) if args else "<host>",)
            raise socket.gaierror(e.errno, "%s (%s)" % (e.strerror, why)) from None

    socket.getaddrinfo = getaddrinfo
    real_init = socket.socket.__init__

    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        try:
            real_init(self, family, type, proto, fileno)
        except PermissionError as e:
            if fileno is not None or e.errno != errno.EACCES:
                raise
            raise PermissionError(e.errno, "%s: socket.socket(): %s" % (
                e.strerror, _BROKERED if brokered else _NO_NETWORK % ("<host>",))) from None

    socket.socket.__init__ = __init__
    if not brokered:
        def create_connection(address, *args, **kwargs):
            raise PermissionError(errno.EACCES, "socket.create_connection(%r): %s" % (
                address, _NO_NETWORK % (host_of((address,)),)))
        socket.create_connection = create_connection


_SOCKETPAIR = ("the sandbox makes unix socket pairs of type SOCK_STREAM or SOCK_SEQPACKET only: a datagram "
               "socket could send to any unix socket of the machine by its path (docs/python.md \"Sandbox\")")


def _explain_socketpair(socket):
    """socket.socketpair of a datagram pair (SOCK_DGRAM, or AF_UNIX's
    SOCK_RAW), or of another family, fails with EACCES, which socketpair(2)
    itself never returns (the seccomp rule, internal/seccomp): say why
    instead of a bare "[Errno 13] Permission denied"."""
    import errno
    real = socket.socketpair

    def socketpair(*args, **kwargs):
        try:
            return real(*args, **kwargs)
        except PermissionError as e:
            if e.errno != errno.EACCES:
                raise
            raise PermissionError(e.errno, "%s: socket.socketpair(): %s" % (e.strerror, _SOCKETPAIR)) from None

    socketpair.__doc__ = real.__doc__
    socket.socketpair = socketpair


def _explain_socket_module(socket, no_network):
    _explain_socketpair(socket)
    if no_network:
        _explain_sockets(socket, False)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs fn(module) right after the module name is first imported
    (the worker's asyncio hook, _asyncio_hook; the socket explanations).
    One-shot."""

    def __init__(self, name, fn):
        self.name, self.fn = name, fn

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        real, fn = spec.loader.exec_module, self.fn

        def exec_module(module):
            real(module)
            fn(module)
        spec.loader.exec_module = exec_module
        return spec


def _big_int_path(v):
    """(JSON path, value) of an integer in v outside -2**63 .. 2**64-1, or
    None. Iterative: v may be nested deeply."""
    stack = [(v, "$")]
    while stack:
        x, path = stack.pop()
        if isinstance(x, dict):
            items = x.items()
            key = lambda k: "%s.%s" % (path, k)
        elif isinstance(x, (list, tuple)):
            items = enumerate(x)
            key = lambda i: "%s[%d]" % (path, i)
        else:
            if isinstance(x, int) and not isinstance(x, bool) and not _INT_MIN <= x <= _INT_MAX:
                return path, x
            continue
        for k, y in items:
            if isinstance(y, (dict, list, tuple)):
                stack.append((y, key(k)))
            elif isinstance(y, int) and not isinstance(y, bool) and not _INT_MIN <= y <= _INT_MAX:
                return key(k), y
    return None


# MessagePack type bytes that may hold what JSON cannot: bin (c4-c6),
# extensions (c7-c9, d4-d8), a float64 NaN or infinity (cb followed by an all-ones exponent). A match
# may also be inside a string or a number: then the walk finds nothing.
_maybe_not_json = re.compile(rb"[\xc4-\xc9\xd4-\xd8]|\xcb[\x7f\xff][\xf0-\xff]").search


def _not_json_text(name, r, e):
    """The InvalidResult message for result r that json.dumps refused with
    e. An awaitable in it (ctx.call_tool(...) or a coroutine returned
    without await) is named with its path, as the JS SDK names a Promise."""
    if isinstance(e, UnicodeEncodeError):
        return "tool %s returned a value that is not JSON: %s" % (name, _surrogate_text(r, e))
    found = _object_in(r)
    if found is not None and found[2]:
        return "tool %s returned %s at %s, which is not a JSON value (missing await?)" % (name, found[1], found[0])
    if found is not None:
        hint = _BYTES_HINT if re.search(r"of type (bytes|bytearray|memoryview) ", str(e)) else ""
        if found[1] in ("generator", "async_generator"):
            hint = _GENERATOR_HINT % ("its handler yields, but a tool returns one value, not a stream" if found[0] == "$"
                                      else "a generator is not a value",
                                      "list(...)" if found[1] == "generator" else "[x async for x in ...]")
        elif found[1] in _LAZY_SEQUENCES:
            hint = "; make it a list: list(...)"
        elif not hint and len(found) > 3:
            hint = _value_hint(found[3])
        return "tool %s returned a value that is not JSON: %s (at %s)%s" % (name, e, found[0], hint)
    return "tool %s returned a value that is not JSON: %s" % (name, e)


# A handler that yields, or a lazy sequence in a result: a tool returns
# one JSON value (the type's name alone did not say what to do).
_GENERATOR_HINT = "; %s: collect the items in a list, %s"
_LAZY_SEQUENCES = ("map", "filter", "zip", "range", "reversed", "enumerate", "dict_keys", "dict_values", "dict_items")
def _value_hint(x):
    """What to return instead of x, a value JSON does not carry, for the
    common ones (the message named the type alone): "" for others."""
    mro = [c.__name__ for c in type(x).__mro__]
    if "Enum" in mro:
        return "; return its value, x.value"
    if hasattr(type(x), "__dataclass_fields__"):
        return "; return a dict of it, dataclasses.asdict(x)"
    for names, hint in _VALUE_HINTS:
        if any(n in mro for n in names):
            return hint
    return ""


_VALUE_HINTS = (
    (("datetime", "date", "time"), "; return it as text, x.isoformat()"),
    (("timedelta",), "; return its seconds, x.total_seconds()"),
    (("Decimal", "Fraction"), "; return str(x) (exact) or float(x)"),
    (("set", "frozenset"), "; return a list, sorted(x) or list(x)"),
    (("UUID", "PurePath"), "; return its text, str(x)"),
    (("complex",), "; return its parts, [x.real, x.imag]"),
)
# What to do with bytes in a result, said as the JS SDK says it.
_FRAME_ID_JSON = re.compile(rb'"id"\s*:\s*"([^"\\]{1,64})"')


def _frame_id(head):
    """The id of the envelope whose first bytes are head (JSON or
    MessagePack; the host writes v, kind, id first), or None."""
    m = _FRAME_ID_JSON.search(head)
    if m:
        return m.group(1).decode("utf-8", "replace")
    i = head.find(b"\xa2id")
    if i >= 0 and i + 3 < len(head) and 0xa0 <= head[i + 3] <= 0xbf:
        return head[i + 4:i + 4 + head[i + 3] - 0xa0].decode("utf-8", "replace")
    return None


def _host_op_what(op):
    """Host operation op as the tool wrote it, with the space and the
    size of a space_write, the object of a space_read."""
    args = op.args if isinstance(op.args, dict) else {}
    if op.op == "space_write":
        b64 = args.get("data") or ""
        n = len(b64) // 4 * 3 - (len(b64) - len(b64.rstrip("=")))
        return "ctx.spaces.write of %d bytes to space %r" % (n, args.get("space"))
    if op.op == "space_read":
        return "ctx.spaces.read of %s" % args.get("id")
    return {"call_tool": "ctx.call_tool", "ai_complete": "ctx.ai.complete"}.get(op.op, op.op)


_BYTES_HINT = "; store it with ctx.spaces.write and return the ObjectId, or encode it as base64"


_JSON_TYPES = (str, int, float, bool, type(None))


# The ctx method of each host operation, for messages.


def _object_in(v):
    """(path, description, awaitable) of the first value in v that is
    none of JSON's types (a set, a datetime, an awaitable: a HostOp, a
    coroutine, a Future), or None; for one not awaitable, the value too,
    fourth. Iterative, like _not_json."""
    stack = [(v, "$")]
    seen = 0
    while stack and seen < 100000:
        seen += 1
        x, path = stack.pop()
        if isinstance(x, dict):
            for k, y in reversed(list(x.items())):
                stack.append((y, "%s.%s" % (path, k)))
        elif isinstance(x, (list, tuple)):
            for i in range(len(x) - 1, -1, -1):
                stack.append((x[i], "%s[%d]" % (path, i)))
        elif isinstance(x, _JSON_TYPES):
            continue
        elif isinstance(x, HostOp):
            return path, "an un-awaited ctx.%s(...)" % _core.OP_NAMES.get(x.op, x.op), True
        elif hasattr(type(x), "__await__"):
            return path, "an un-awaited %s" % type(x).__name__, True
        else:
            return path, type(x).__name__, False, x
    return None


# A dict key json.dumps refuses, in its words, and the path of the dict
# holding it (the words alone named no place: TestRefusedKeyNamesItsDict);
# runtimes/python/msgpack.go (withKeyPath) words a tuple key over MessagePack alike.
_KEY_AT = "%s (a key of the dict at %s)"


def _not_json(v):
    """(path, description) of the first value in v that JSON does not
    carry (bytes, NaN, an infinity, an integer outside int64 and uint64), or None.
    For a dict key that json.dumps refuses (a tuple, NaN, ...) the
    description is json.dumps's exception. Iterative: v may be nested
    deeply."""
    stack = [(v, "$")]
    while stack:
        x, path = stack.pop()
        if isinstance(x, dict):
            for k, y in x.items():
                if not isinstance(k, str):
                    try:
                        k = _json_key(k)
                    except (TypeError, ValueError) as e:
                        return path, e
                stack.append((y, "%s.%s" % (path, k)))
        elif isinstance(x, (list, tuple)):
            for i, y in enumerate(x):
                stack.append((y, "%s[%d]" % (path, i)))
        elif isinstance(x, (bytes, bytearray, memoryview)):
            return path, "bytes (%s)" % type(x).__name__
        elif isinstance(x, float):
            if x != x or x in (float("inf"), float("-inf")):
                return path, "the float %r" % x
        elif isinstance(x, int) and not isinstance(x, bool) and not _INT_MIN <= x <= _INT_MAX:
            return path, _describe_int(x)
    return None


# An error message is cut to this many bytes of UTF-8 (JS: 64 KiB,
# runtimes/js/errors.go maxErrorText; the host keeps as many, host.boundError);
# it reaches callers and the audit log.
_MAX_ERROR_CHARS = 64 << 10


def _surrogate_text(v, e):
    """What is wrong with value v, whose encoding as UTF-8 failed with
    UnicodeEncodeError e: the path of the first string or key holding a
    lone surrogate, and that code point (the same words in both wire
    formats; e's position is in the frame, not the string)."""
    stack = [(v, "$")]
    seen = 0
    while stack and seen < 1000000:
        seen += 1
        x, path = stack.pop()
        if isinstance(x, str):
            bad = _first_surrogate(x)
            if bad is not None:
                return "the string at %s holds a lone surrogate, %s at index %d (text decoded with surrogateescape, or half of a UTF-16 pair): it has no UTF-8 form; decode bytes with errors=\"replace\", or send them as base64" % (path, _error_text(x[bad]), bad)
        elif isinstance(x, dict):
            for k, y in reversed(list(x.items())):
                kp = "%s.%s" % (path, _error_text(k))
                if isinstance(k, str) and _first_surrogate(k) is not None:
                    return "the key %s holds a lone surrogate, %s (text decoded with surrogateescape, or half of a UTF-16 pair): it has no UTF-8 form" % (kp, _error_text(k[_first_surrogate(k)]))
                stack.append((y, kp))
        elif isinstance(x, (list, tuple)):
            for i in range(len(x) - 1, -1, -1):
                stack.append((x[i], "%s[%d]" % (path, i)))
    return _error_text(e)


def _first_surrogate(s):
    """The index of the first lone surrogate in s, or None."""
    try:
        s.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        return e.start


# _cut(s, n): s, or its head and how many characters were cut, in at most
# n bytes of UTF-8 (_core.cut_text).
_cut = _core.cut_text


# Exception groups (Python 3.11+), and how many of a group's exceptions an
# error names.
_EXC_GROUP = getattr(builtins, "BaseExceptionGroup", ())
_MAX_GROUP_SHOWN = 5


def _exc_text(e):
    """"Type: message" of exception e; without a message (raise MyError(),
    KeyboardInterrupt) the name alone, as Python's traceback prints it: it
    was "MyError:  (at file.py:3)"."""
    try:
        text = str(e)
        return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__
    except Exception as e2:
        return "%s (str() of it failed: %s: %s)" % (type(e).__name__, type(e2).__name__, e2)


def _error_text(s):
    """s as a str that encodes as UTF-8: lone surrogates become
    backslash escapes."""
    if not isinstance(s, str):
        try:
            s = str(s)
        except Exception:
            s = object.__repr__(s)
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        s = s.encode("utf-8", "backslashreplace").decode("utf-8")
    return s


def _is_int_note(what):
    return what.startswith("the integer") or what.startswith("an integer")


def _json_key(k):
    """The string json.dumps writes for dict key k (None "null", True
    "true", an int in decimal, a float as repr), or json.dumps's own
    TypeError/ValueError for a key it refuses (a tuple, NaN, ...)."""
    if isinstance(k, str):
        return k
    return next(iter(_loads(_dumps({k: 0}))))


_INT_RANGE_ARGS = "integers must be within -2**63 .. 2**64-1 (the host's int64 and uint64; a larger one would lose precision); pass str(x) (or float(x))"


def _not_json_note(v):
    """The first value in v that JSON does not carry (bytes, NaN, an
    infinity, an integer outside int64 and uint64) in words, with its path
    from v ($.a[1].b), or None."""
    try:
        bad = _not_json(v)
    except Exception:  # the value's own methods raising
        return None
    if bad is None or isinstance(bad[1], Exception):
        return None
    path, what = bad
    if _is_int_note(what):
        return "%s at %s: %s" % (what, path, _INT_RANGE_ARGS)
    return "%s at %s is not JSON serializable" % (what, path)


def _object_note(v, e):
    """json.dumps's TypeError e for v with the path of the first object in
    v that JSON does not carry (a set, a datetime) and what to send
    instead, as a result's InvalidResult says it, or None: a ToolError's
    data so left out was noted "Object of type set is not JSON
    serializable", naming no path (TestErrorDataObjectNamedWithPath)."""
    try:
        found = _object_in(v)
    except Exception:  # the value's own methods raising
        return None
    if found is None:
        return None
    if found[2]:
        return "%s at %s, which is not a JSON value (missing await?)" % (found[1], found[0])
    return "%s (at %s)%s" % (_error_text(e)[:500], found[0], _value_hint(found[3]))


def _refuse_args(op, objects=False):
    """Raise the error naming the first value in host call op's arguments
    that JSON does not carry (bytes, NaN, an infinity, an integer outside
    int64 and uint64), with its path in the arguments ($.params.value…),
    alike in both formats; return when there is none. The frame's own
    errors named the envelope's path ($.host.args.params…) over
    MessagePack, none over JSON, and an integer beyond 64 bits was a bare
    OverflowError over MessagePack and a float over JSON."""
    bad = _not_json(op.args)
    if bad is None:
        # An object neither format carries (a set, a datetime, an
        # un-awaited host call), when the encoder refused one: json.dumps
        # named its type alone.
        found = _object_in(op.args) if objects else None
        if found is None:
            return
        if found[2]:
            raise TypeError("%s arguments: %s at %s is not a JSON value (missing await?)" % (op.op, found[1], found[0])) from None
        raise TypeError("%s arguments: Object of type %s is not JSON serializable (at %s)" % (op.op, found[1], found[0])) from None
    path, what = bad
    if isinstance(what, Exception):  # a dict key json.dumps refuses: its words, where
        raise type(what)("%s arguments: " % op.op + _KEY_AT % (what, path)) from None
    if _is_int_note(what):
        raise ValueError("%s arguments: %s at %s: %s" % (op.op, what, path, _INT_RANGE_ARGS)) from None
    err = ValueError if what.startswith("the float") else TypeError
    raise err("%s arguments: %s at %s is not JSON serializable" % (op.op, what, path)) from None


def _refuse_not_json(env, data):
    """Raise json.dumps's error for what MessagePack carries and JSON does
    not (bytes, NaN) in env, packed as data."""
    if _maybe_not_json(data) is not None:
        bad = _not_json(env)
        if bad is not None:
            if isinstance(bad[1], Exception):
                raise bad[1]  # a dict key json.dumps refuses: its error
            err = ValueError if bad[1].startswith("the float") else TypeError
            raise err("%s at %s is not JSON serializable" % (bad[1], bad[0]))


def _pack_iter(mp, v, keys=False):
    """v packed one value at a time from a stack, without the packer's
    nesting limit (the caller has checked the depth); with keys, every
    dict key that is not a string as json.dumps's string for it."""
    p = mp.Packer(use_bin_type=True, autoreset=False)
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            p.pack_map_header(len(x))
            for k, y in reversed(list(x.items())):
                stack.append(y)
                stack.append(_json_key(k) if keys and not isinstance(k, str) else k)
        elif isinstance(x, (list, tuple)):
            p.pack_array_header(len(x))
            stack.extend(reversed(x))
        else:
            p.pack(x)
    return p.bytes()


def _args_too_deep(args):
    """Whether a host call's arguments hold one nested deeper than
    MAX_DEPTH levels (each argument is level 0, as the host counts)."""
    if isinstance(args, dict):
        return any(_too_deep(v) for v in args.values())
    return _too_deep(args)


def _cycle_path(v, root="$"):
    """The path of the first list or dict in v that holds itself (directly
    or deeper), or None. json.dumps says only "Circular reference
    detected", and the MessagePack packer counts a cycle as nesting past
    its limit: both formats now name the cycle and where it is. Each
    container is walked once (a value shared in many places is not walked
    again), and a path is spelt out only for the cycle found (v may be
    nested 100 000 levels deep). Iterative."""
    on_path, done = set(), set()
    stack = [(v, None, False)]  # (value, (parent's node, key), leaving)
    while stack:
        x, node, leaving = stack.pop()
        if leaving:
            on_path.discard(id(x))
            done.add(id(x))
            continue
        if isinstance(x, dict):
            items = [(".%s" % (k,), y) for k, y in x.items()]
        elif isinstance(x, (list, tuple)):
            items = enumerate(x)
        else:
            continue
        if id(x) in on_path:
            parts = []
            while node is not None:
                node, k = node
                parts.append(k if isinstance(k, str) else "[%d]" % k)
            return root + "".join(reversed(parts))
        if id(x) in done:
            continue
        on_path.add(id(x))
        stack.append((x, node, True))
        for k, y in reversed(list(items)):
            if isinstance(y, (dict, list, tuple)):
                stack.append((y, (node, k), False))
    return None


_CYCLE = "Circular reference detected (at %s: the value contains itself; JSON cannot carry cycles)"


def _too_deep(v):
    """Whether v holds a value nested deeper than MAX_DEPTH levels (v is
    level 0), as the host counts. Iterative."""
    stack = [(v, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            items = x.values()
        elif isinstance(x, (list, tuple)):
            items = x
        else:
            continue
        if not items:
            continue
        if d >= MAX_DEPTH:
            return True
        d += 1
        for y in items:
            if isinstance(y, (dict, list, tuple)):
                stack.append((y, d))
    return False


def _approx_size(v):
    """About how many bytes v takes encoded (strings and bytes by their
    length, other values a few bytes), without encoding it."""
    n = 0
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, (str, bytes, bytearray)):
            n += len(x) + 5
        elif isinstance(x, dict):
            n += 5
            for k, y in x.items():
                stack.append(k)
                stack.append(y)
        elif isinstance(x, (list, tuple)):
            n += 5
            stack.extend(x)
        else:
            n += 9
    return n


def _import_msgpack(where):
    """The msgpack module with its C extension, or None (see the module
    docstring for where). A pure-Python msgpack is not used: it is slower
    than the json module."""
    if not where:
        return None
    try:
        if where == "import":
            import msgpack
        else:
            spec = importlib.util.spec_from_file_location(
                "msgpack", os.path.join(where, "__init__.py"), submodule_search_locations=[where])
            msgpack = importlib.util.module_from_spec(spec)
            sys.modules["msgpack"] = msgpack
            spec.loader.exec_module(msgpack)
        if msgpack.Packer.__module__ != "msgpack._cmsgpack":
            return None
        return msgpack
    except Exception as e:
        for k in [k for k in sys.modules if k == "msgpack" or k.startswith("msgpack.")]:
            del sys.modules[k]
        sys.stderr.write("aios python worker: msgpack from %s does not import (%s: %s); speaking json\n" % (where, type(e).__name__, e))
        return None


def _describe_int(v):
    if v.bit_length() <= 256:
        return "the integer %d" % v
    return "an integer of %d bits" % v.bit_length()


def _clear_frames(tb):
    """Clear the locals of the frames of traceback tb (traceback.clear_frames,
    without importing traceback); a frame still running is left as it is."""
    while tb is not None:
        try:
            tb.tb_frame.clear()
        except RuntimeError:
            pass
        tb = tb.tb_next


def _memory_limit():
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            return "the worker's memory limit is %d MiB" % (soft >> 20)
    except Exception:
        pass
    return "no memory limit is set"


def _module_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return "aios_tool_" + re.sub(r"\W", "_", stem)


def _asyncio_hook(w):
    """When a tool imports asyncio for the first time inside a coroutine
    the worker drives (Worker.drive), the worker's loop becomes the
    running one right after the import, as drive makes it when asyncio was
    loaded before: asyncio.gather and asyncio.sleep then use it instead of
    another loop ("attached to a different loop", "no running event
    loop"). One-shot: it leaves sys.meta_path at asyncio's import."""

    def fn(module):
        if w.driving and threading.get_ident() == w.main_ident:
            module.events._set_running_loop(w._get_loop())
    return _AfterImport("asyncio", fn)


class Pins:
    """The code this worker may run (sent by the host through the start
    gate): files by absolute path with their hex SHA-256. Strict (a signed
    provider): no other file of the tool's folder may be imported. Only
    bytes that were checked are compiled."""

    def __init__(self, strict=False, files=None, sources=None):
        self.strict = strict
        self.files = files or {}
        # The bytes the host loaded (and checked): a later edit of the file
        # on disk does not reach this worker.
        self.sources = sources or {}

    def read(self, path):
        src = self.sources.get(path)
        if src is not None:
            import base64
            return base64.b64decode(src)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except PermissionError:
            raise ImportError("%s cannot be read: a tool file at the top of a plugin folder may read only itself; "
                              "put the tool and its modules in a folder of their own to import local modules" % path)
        want = self.files.get(path)
        if want is None:
            if self.strict:
                raise ImportError("%s is not pinned by the provider's signed Adapter Card: a signed provider imports "
                                  "only the files its card pins (sign the card again with `aios-host sign`, which "
                                  "pins every file of its folder)" % path)
            return data
        got = hashlib.sha256(data).hexdigest()
        if got != want:
            raise ImportError("%s has sha256 %s, not %s: it changed after the provider was loaded or verified "
                              "(the host reloads a changed provider; a signed one must be signed again)" % (path, got, want))
        return data


class _PinnedLoader(importlib.abc.SourceLoader):
    """Loads a module of the tool's folder from bytes checked by Pins."""

    def __init__(self, fullname, path, pins):
        self.name, self.path, self.pins = fullname, path, pins

    def get_filename(self, fullname):
        return self.path

    def get_data(self, path):
        return self.pins.read(path)


class _FolderFinder(importlib.abc.MetaPathFinder):
    """Finds the tool folder's own modules (the folder is not on sys.path):
    name.py or name/__init__.py, loaded through Pins."""

    def __init__(self, folder, pins):
        self.folder, self.pins = folder, pins

    def _inside(self, p):
        p = os.path.abspath(p)
        return p == self.folder or p.startswith(self.folder + os.sep)

    def _exists(self, path):
        # A file the host shipped counts even when it was deleted since.
        return path in self.pins.sources or os.path.isfile(path)

    def _refuse_compiled(self, stem):
        # Bytecode or native code of the folder was never checked: a
        # signed provider imports only its pinned sources.
        if not self.pins.strict:
            return
        for suffix in importlib.machinery.EXTENSION_SUFFIXES + importlib.machinery.BYTECODE_SUFFIXES:
            if os.path.isfile(stem + suffix):
                raise ImportError("%s: a signed provider imports only Python source files of its folder" % (stem + suffix))

    def find_spec(self, fullname, path=None, target=None):
        last = fullname.rpartition(".")[2]
        bases = [self.folder] if path is None else [p for p in path if self._inside(p)]
        for base in bases:
            pkg = os.path.join(base, last)
            init = os.path.join(pkg, "__init__.py")
            if self._exists(init):
                return importlib.util.spec_from_file_location(
                    fullname, init, loader=_PinnedLoader(fullname, init, self.pins), submodule_search_locations=[pkg])
            mod = pkg + ".py"
            if self._exists(mod):
                return importlib.util.spec_from_file_location(fullname, mod, loader=_PinnedLoader(fullname, mod, self.pins))
            self._refuse_compiled(pkg)
            if os.path.isdir(pkg):
                # A folder without __init__.py: a namespace package, found
                # here (the tool folder is not on sys.path), so that no
                # other finder looks inside it for __init__ bytecode.
                self._refuse_compiled(os.path.join(pkg, "__init__"))
                spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
                spec.submodule_search_locations = [pkg]
                return spec
        return None


def load(path, pins=None):
    """Import the tool file; returns (provider info, tool defs, handlers)."""
    if pins is None:
        pins = Pins()
    name = _module_name(path)
    folder = os.path.dirname(os.path.abspath(path))
    # The folder's modules are found by _FolderFinder, through the pins;
    # putting the folder on sys.path would let the default finders load
    # files that were never checked.
    sys.meta_path.insert(0, _FolderFinder(folder, pins))
    try:
        spec = importlib.util.spec_from_file_location(name, path, loader=_PinnedLoader(name, path, pins))
        if spec is None or spec.loader is None:
            raise LoadError("%s: not a Python source file" % path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    except SyntaxError as e:
        where = e.filename or path
        if e.lineno:
            where += ":%s" % e.lineno
            if e.offset:
                where += ":%s" % e.offset
        raise LoadError("%s: SyntaxError: %s" % (where, e.msg))
    except LoadError:
        raise
    except BaseException as e:
        import traceback
        where, inner = path, ""
        prefix = folder if folder.endswith(os.sep) else folder + os.sep
        for fs in traceback.extract_tb(e.__traceback__):
            if fs.filename == path:
                where, inner = "%s:%d" % (path, fs.lineno), ""
            elif isinstance(fs.filename, str) and fs.filename.startswith(prefix):
                # A module of the tool's folder the file imports, where
                # the exception was raised: it was named at the file's
                # import line alone (TestLoadErrorInHelperModuleNamesItsLine).
                inner = " (at %s:%d)" % (fs.filename[len(prefix):], fs.lineno)
        if isinstance(e, SystemExit):
            raise LoadError("%s: SystemExit while loading%s: the tool file called sys.exit(%r); a tool file must not exit (raise an exception to fail the load)" % (where, inner, e.code))
        if isinstance(e, MemoryError):
            raise LoadError("%s: MemoryError while loading%s: out of memory (%s)" % (where, inner, _memory_limit()))
        try:
            msg = str(e)
        except Exception:
            msg = "(str() of it failed)"
        note = _sandbox_note(e)
        if isinstance(e, ImportError) and msg.startswith("attempted relative import"):
            # "from .helpers import f" as in a package: Python's words did
            # not say how to import a module of the folder
            # (TestRelativeImportSaysHow).
            note = ("; a tool file and the modules of its folder are top-level modules, not a package's: "
                    "modules of the tool's folder are imported by name, not relatively (import helpers, from helpers import f)")
        raise LoadError("%s: %s while loading%s%s%s" % (where, type(e).__name__, ": " + msg if msg else "", inner, note))

    agents, loose_classes, imported = [], [], []
    # Tools and an @Agent class imported from modules of the tool's
    # folder are its own; a library's are not.
    folder = os.path.dirname(path) + os.sep
    for v in list(vars(mod).values()):
        if isinstance(v, type) and getattr(v, "__module__", None) == name:
            if AGENT_ATTR in v.__dict__:
                agents.append(v)
            elif any(hasattr(_func(x), TOOL_ATTR) for x in v.__dict__.values()):
                loose_classes.append(v)
        elif isinstance(v, type) and AGENT_ATTR in v.__dict__ and _folder_module(v, folder):
            imported.append(v)
    if not agents and not _core._PROVIDER:
        # An @Agent class imported into the tool file (from helpers
        # import PdfTools) is its provider when the file describes none
        # (the file "registered no tools"); one the file's own @Agent
        # class derives from is not, nor one beside provider(...).
        agents = imported
    # These name a line too (they named the file alone): the first @tool
    # method of a class, the second @Agent class, the provider(...) call.
    def at(line):
        return "%s:%d" % (path, line) if line else path
    if loose_classes:
        raise LoadError("%s: class %s has @tool methods but no @Agent(...) decorator" % (
            at(_class_line(loose_classes[0], path, True)), ", ".join(c.__name__ for c in loose_classes)))
    if len(agents) > 1:
        raise LoadError("%s: %d @Agent classes (%s); one provider per file" % (
            at(_class_line(agents[1], path)), len(agents), ", ".join(a.__name__ for a in agents)))

    module_info = _core._PROVIDER[0] if _core._PROVIDER else None
    if module_info is not None and agents:
        raise LoadError("%s: both an @Agent class (%s) and aios_sdk.provider(...); describe the provider with one of them" % (
            at(_core._PROVIDER_LINE[0] if _core._PROVIDER_LINE else 0), agents[0].__name__))

    info = {"id": "", "name": "", "version": "", "description": "", "capabilities": []}
    if module_info is not None:
        info.update(module_info)
    defs, handlers = [], {}

    def add(d, fn, where):
        tname = d["name"]
        if tname in handlers:
            if getattr(handlers[tname].fn, "__func__", handlers[tname].fn) is getattr(fn, "__func__", fn):
                # The same function under a second name (g = f, or
                # alias = method in the class): one tool; the load
                # failed "defined twice: g (line 3) and f (line 3)"
                # (TestToolAliasIsOneTool).
                return
            # Both definitions by line (the message named neither line).
            first, at = handlers[tname], _def_line(fn)

            def shown(at):
                if not at[1]:
                    return ""
                return " (line %d)" % at[1] if at[0] == path else " (%s:%d)" % at
            line = next((a[1] for a in (at, first.at) if a[0] == path and a[1]), 0)
            raise LoadError("%s%s: tool %r is defined twice: %s%s and %s%s; give one of them another name=" % (
                path, ":%d" % line if line else "", tname, where, shown(at), first.where, shown(first.at)))
        problem = _arity_problem(fn, tname) or _annotation_problem(fn, tname)
        if problem is not None:
            raise LoadError(problem)
        defs.append(dict(d))
        handlers[tname] = Handler(tname, fn, where)

    if agents:
        cls = agents[0]
        info.update(cls.__dict__[AGENT_ATTR])
        try:
            inst = cls()
        except Exception as e:
            # At the line of the tool file that failed (it named the file
            # alone), else at its __init__, which is called without
            # arguments.
            line, tb, hint = 0, e.__traceback__, ""
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == path:
                    line = tb.tb_lineno or 0
                tb = tb.tb_next
            if not line:
                code = getattr(getattr(cls, "__init__", None), "__code__", None)
                if code is not None and code.co_filename == path:
                    line = code.co_firstlineno
                if isinstance(e, TypeError):
                    hint = " (an @Agent class is instantiated once per worker, without arguments)"
            raise LoadError("%s%s: creating %s(): %s: %s%s%s" % (
                path, ":%d" % line if line else "", cls.__name__, type(e).__name__, e, hint, _sandbox_note(e)))
        seen = set()
        for klass in cls.__mro__:
            for k, v in klass.__dict__.items():
                if k in seen:
                    continue
                seen.add(k)
                d = getattr(_func(v), TOOL_ATTR, None)
                if d is not None:
                    add(d, getattr(inst, k), "%s.%s" % (cls.__name__, k))
    for k, v in list(vars(mod).items()):
        if _module_tool(v, name, folder):
            add(getattr(v, TOOL_ATTR), v, k)
    _refuse_unreachable(mod, name, path, handlers)
    if not defs:
        raise LoadError("%s registers no tools: decorate module-level functions with @tool(...), or methods of an @Agent(...) class" % path)
    for d in defs:
        if info.get("version") and not d.get("version"):
            d["version"] = info["version"]
    provider = {k: v for k, v in info.items() if v}
    provider["runtime"] = RUNTIME
    # The lines of the tool file that declare the provider and each tool,
    # sent beside the registration: the host's checks of what they
    # declare (a capability string it cannot parse) name the line, as the
    # SDK's own load errors do (runtimes/python worker.go regLines).
    _LINES.clear()
    if agents:
        line = _decorated_line(agents[0], path)
    else:
        line = _core._PROVIDER_LINE[0] if _core._PROVIDER_LINE else 0
    if line:
        _LINES["provider"] = line
    tools = {n: h.at[1] for n, h in handlers.items() if h.at[0] == path and h.at[1]}
    if tools:
        _LINES["tools"] = tools
    return provider, defs, handlers


_LINES = {}


def _decorated_line(cls, path):
    """The line of class cls's first decorator (its @Agent(...)) in the
    tool file path, else of its class statement or first method; 0 if
    none."""
    try:
        import inspect
        if inspect.getsourcefile(cls) == path:
            return inspect.getsourcelines(cls)[1]
    except Exception:
        pass
    return _class_line(cls, path)


def _refuse_unreachable(mod, name, path, handlers):
    """A LoadError for a @tool function of the tool file that no tool
    holds (tools are its module-level names and the @Agent class's
    methods): made by a factory and kept in a list, or defined inside a
    function, it was left out without a word (TestToolNotReachableRefused)."""
    held = set()
    for h in handlers.values():
        f = h.fn
        for _ in range(16):
            held.add(id(f))
            try:
                nxt = getattr(f, "__func__", None) or getattr(f, "__wrapped__", None)
                if nxt is None and type(f).__name__ == "partial":
                    nxt = f.func
            except Exception:
                break
            if nxt is None or not callable(nxt):
                break
            f = nxt
    for target in _core._DECORATED:
        try:
            if id(target) in held or getattr(target, "__module__", None) != name:
                continue
            d = object.__getattribute__(target, "__dict__").get(TOOL_ATTR) or {}
        except Exception:
            continue
        fname = getattr(target, "__name__", "") or type(target).__name__
        where, line = _def_line(target)
        if where != path:
            continue
        again = ""
        if vars(mod).get(fname) is not None and vars(mod).get(fname) is not target:
            again = "; the name %s holds another value now (defined again below?)" % fname
        raise LoadError("%s:%d: tool %r (%s) is not one of the file's tools: @tool marks it, but no module-level "
                        "name holds it, nor is it a method of the @Agent class (where tools are found; one kept "
                        "in a list or made inside a function is not): assign it to a module-level name%s"
                        % (path, line, d.get("name"), fname, again))


def _load_failed(w, msg):
    """Report a load error (its text as _error sends a call's) and exit."""
    msg = _error_text(msg)
    msg = _cut(msg, _MAX_ERROR_CHARS)
    w.send_log("error", msg)
    sys.stderr.flush()
    _real_exit(EXIT_LOAD_FAILED)


_DEF_INT_RANGE = "integers must be within -2**63 .. 2**64-1 (the host's int64 and uint64); write float(x) for a bound beyond them"


def _big_int_in(d):
    """(path, description) of the first integer outside int64 and uint64
    in tool definition d, or None."""
    bad = _not_json(d)
    if bad is not None and isinstance(bad[1], str) and _is_int_note(bad[1]):
        return bad
    return None


def _definition_error(w, path, provider, defs, e):
    """Which part of the register message could not be encoded (e): the
    tool at its line, and the path of the value in its definition (they
    named the file alone: an enum member among a parameter's values had
    to be searched for)."""
    for d in defs:
        big = _big_int_in(d)
        if big is not None:
            # The packer said only "Integer value out of range", and the
            # JSON wire carried it (the host reads it as a float).
            de, found = "%s at %s: %s" % (big[1], big[0], _DEF_INT_RANGE), None
        else:
            try:
                w.dumps(d)
                continue
            except Exception as x:
                de, found = x, _object_in(d)
        h = w.handlers.get(d.get("name")) if isinstance(w.handlers, dict) else None
        at = h.at if h is not None else ("", 0)
        return "%s%s: tool %r: its definition (the @tool arguments) is not JSON: %s%s" % (
            path, ":%d" % at[1] if at[0] == path and at[1] else "", d.get("name"), de,
            " (at %s)" % found[0] if found is not None else "")
    try:
        w.dumps(provider)
    except Exception as pe:
        e = pe
    return "%s: the provider's description (@Agent(...) or provider(...)) is not JSON: %s" % (path, e)


def _class_line(cls, path, tools_only=False):
    """The line of class cls in the tool file path: its class statement
    (Python 3.13's __firstlineno__), else its first method (or first
    @tool method) defined there; 0 if none."""
    line = getattr(cls, "__firstlineno__", None)
    if isinstance(line, int) and not tools_only:
        return line
    lines = []
    for v in cls.__dict__.values():
        f = _func(v)
        if tools_only and not hasattr(f, TOOL_ATTR):
            continue
        code = getattr(getattr(f, "__wrapped__", f), "__code__", None)
        if code is not None and code.co_filename == path:
            lines.append(code.co_firstlineno)
    return min(lines) if lines else 0


def _func(v):
    return v.__func__ if isinstance(v, (staticmethod, classmethod)) else v


def main():
    path = os.path.abspath(sys.argv[2])
    gate = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    spin_us = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    broker_fd = int(sys.argv[5]) if len(sys.argv) > 5 else -1
    msgpack_at = sys.argv[6] if len(sys.argv) > 6 else ""
    # The protocol channel is a private copy of stdin/stdout; print() and
    # input() of tools see stderr and an empty stdin.
    in_fd, out_fd = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    # Neither is a terminal, so Python buffers stdout (and, before 3.9,
    # stderr) in blocks: a line printed by a call that returned reached the
    # host log only after 8 KiB more, and one printed before a loop the
    # deadline stopped was lost with the killed worker.
    for f in (sys.stdout, sys.stderr):
        try:
            f.reconfigure(line_buffering=True)
        except (AttributeError, ValueError, OSError):
            pass
    try:
        nul = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nul, 0)
        os.close(nul)
    except OSError:
        os.close(0)
    pins = Pins()
    if gate >= 0:
        # The host writes the pins, then closes the gate when the
        # worker's limits are in place.
        chunks = []
        try:
            while True:
                b = os.read(gate, 1 << 16)
                if not b:
                    break
                chunks.append(b)
        finally:
            os.close(gate)
        if chunks:
            p = json.loads(b"".join(chunks))
            pins = Pins(bool(p.get("strict")), p.get("files") or {}, p.get("sources") or {})
            if p.get("landlock"):
                global _SANDBOX_FILES
                _SANDBOX_FILES = _SANDBOX_FILES_TEXT
            if type(p.get("max_tasks")) is int and p["max_tasks"] > 0:
                global _MAX_TASKS
                _MAX_TASKS = p["max_tasks"]
    sys.argv = [path]
    w = Worker(in_fd, out_fd, path, spin_us)
    if "asyncio" not in sys.modules:
        sys.meta_path.insert(0, _asyncio_hook(w))
    mp = _import_msgpack(msgpack_at)
    if w.negotiate(["msgpack", "json"] if mp is not None else ["json"]) == "msgpack":
        w.use_msgpack(mp)
    w.install_exit_note()
    # A fatal signal (a C extension's segfault, ctypes reading address 0)
    # dumps the Python stack on stderr, where the host finds the tool's
    # line that called into native code; the crash said only "signal:
    # segmentation fault" (TestNativeCrashNamesLine).
    try:
        import faulthandler
        faulthandler.enable(file=2, all_threads=False)
    except Exception:
        pass
    if broker_fd >= 0:
        _install_net_broker(w, broker_fd)
        _explain_sockets(sys.modules["socket"], True)
        _explain_socketpair(sys.modules["socket"])
    else:
        no_network = broker_fd == NO_NETWORK
        if "socket" in sys.modules:
            _explain_socket_module(sys.modules["socket"], no_network)
        else:
            sys.meta_path.insert(0, _AfterImport("socket", lambda m: _explain_socket_module(m, no_network)))
    # An import that outlasts the startup timeout, a call its deadline: the
    # host sends SIGUSR2 for the stack, to name the line the import or the
    # tool was at; they said only "did not register within 10s"
    # (TestStartupTimeoutNamesLine) and "the deadline passed"
    # (TestDeadlineNamesLine).
    _stack_on_signal()
    w.loading = True
    try:
        provider, defs, handlers = load(path, pins)
    except LoadError as e:
        w._exit_if_forked()
        _load_failed(w, str(e))
    w.loading = False
    # A child the tool file forked at import (os.fork() at module level)
    # went on importing: it sent a second register on the worker's pipe,
    # and every call failed as a protocol violation
    # (TestForkAtImportDoesNotRegisterTwice).
    w._exit_if_forked()
    w.handlers = handlers
    if any(_big_int_in(d) is not None for d in defs):
        _load_failed(w, _definition_error(w, path, provider, defs, None))
    w.hook_logging()
    keep_cwd(w)
    try:
        w.write({"v": FORMAT, "kind": "register",
                 "register": {"format": FORMAT, "provider": provider, "tools": defs}, "lines": _LINES})
    except (TypeError, ValueError, OverflowError, RecursionError, ToolError) as e:
        _load_failed(w, _definition_error(w, path, provider, defs, e))
    try:
        w.serve()
    except SystemExit:
        _drop_unflushable_std()
        raise
    sys.stdout.flush()
    sys.stderr.flush()
    _real_exit(0)


_real_chdir, _real_fchdir = os.chdir, os.fchdir


def keep_cwd(w):
    """Start every call in the working directory the tool file's import
    left: a call's os.chdir (or os.fchdir) carried over to the worker's
    later calls, which then found relative paths elsewhere, depending on
    which worker of the pool served them (found by p168). os.chdir and
    os.fchdir note that the directory moved; the call's end moves it
    back (no system call for calls that did not move it)."""
    try:
        w.home = os.getcwd()
    except OSError:  # removed under the host: nothing to go back to
        return

    def chdir(path):
        w.cwd_moved = True
        return _real_chdir(path)

    def fchdir(fd):
        w.cwd_moved = True
        return _real_fchdir(fd)

    for f, real in ((chdir, _real_chdir), (fchdir, _real_fchdir)):
        f.__name__, f.__qualname__, f.__doc__ = real.__name__, real.__name__, real.__doc__
        f.__wrapped__ = real
        # os.supports_fd holds os.chdir (it takes a descriptor): code that
        # asks (os.chdir in os.supports_fd) gets the same answer.
        for group in ("supports_fd", "supports_dir_fd", "supports_follow_symlinks", "supports_effective_ids"):
            s = getattr(os, group, None)
            if isinstance(s, set) and real in s:
                s.add(f)
    os.chdir, os.fchdir = chdir, fchdir


def _stack_on_signal():
    """Has faulthandler write the stack of the thread the signal reaches
    (the main thread, which imports and runs the calls, unless it blocks
    it) on stderr at SIGUSR2."""
    try:
        import faulthandler
        import signal
        faulthandler.register(signal.SIGUSR2, file=2, all_threads=False)
    except Exception:
        pass


def _drop_unflushable_std():
    """A tool ends its worker (sys.exit): a standard stream that cannot be
    flushed (a tool that closed fds 1 and 2) would make Python exit with
    status 120 instead of the tool's, its traceback lost; it is dropped
    (None, which Python's exit skips) before the exit."""
    for name in ("stdout", "stderr"):
        f = getattr(sys, name, None)
        if f is None:
            continue
        try:
            f.flush()
        except Exception:
            setattr(sys, name, None)


if __name__ == "__main__":
    main()
