"""Decorators, capabilities, errors and the per-call context of aios_sdk.

Standard library only. Nothing here talks to the host directly: the worker
(aios_sdk._worker) gives each call a Context whose host operations are
awaitables the worker resolves over its pipe.
"""

import base64
import calendar
import re
import sys
import time

__all__ = [
    "Agent",
    "provider",
    "tool",
    "Capability",
    "ToolError",
    "Context",
    "Spaces",
    "Object",
    "AGENT_ATTR",
    "TOOL_ATTR",
    "build_parameters",
]

AGENT_ATTR = "__aios_agent__"
TOOL_ATTR = "__aios_tool__"

_ARG_RE = re.compile(r"^[^()\s]+$")


def _cleandoc(doc):
    """Like inspect's cleandoc, without importing inspect (slow to import)."""
    lines = doc.expandtabs().split("\n")
    indent = min((len(l) - len(l.lstrip()) for l in lines[1:] if l.strip()), default=0)
    out = [lines[0].strip()] + [l[indent:].rstrip() for l in lines[1:]]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return "\n".join(out)


def _cap(kind, arg):
    if not isinstance(arg, str) or not _ARG_RE.match(arg):
        raise ValueError(
            "Capability.%s(%r): the argument must be a non-empty string without "
            "parentheses or white space, e.g. Capability.%s('documents')" % (kind, arg, kind)
        )
    return "%s(%s)" % (kind, arg)


class Capability:
    """Capability strings as the host spells them.

    Capability.ReadSpace("documents") == "ReadSpace(documents)". Patterns use
    '*' and '?': Capability.CallTool("pdf-*").
    """

    Inference = "Inference"

    @staticmethod
    def ReadSpace(space):
        return _cap("ReadSpace", space)

    @staticmethod
    def WriteSpace(space):
        return _cap("WriteSpace", space)

    @staticmethod
    def Network(host_pattern):
        return _cap("Network", host_pattern)

    @staticmethod
    def CallTool(tool_pattern):
        return _cap("CallTool", tool_pattern)


class ToolError(Exception):
    """The error a tool raises to fail with a specific code.

    Any other exception fails the call with ProviderError and the
    exception's type and message. A ToolError raised by ctx.call_tool (a
    nested call that failed) keeps its code when it propagates.
    """

    # One constant per code of the ABI (_KNOWN_CODES): a handler that
    # checks e.code == ToolError.RateLimited must not fail on the name.
    InvalidParams = "InvalidParams"
    NotFound = "NotFound"
    CapabilityDenied = "CapabilityDenied"
    RateLimited = "RateLimited"
    Timeout = "Timeout"
    ProviderError = "ProviderError"
    ProviderCrashed = "ProviderCrashed"
    Unavailable = "Unavailable"
    Internal = "Internal"
    InvalidResult = "InvalidResult"
    Conflict = "Conflict"
    InvalidRequest = "InvalidRequest"
    Cancelled = "Cancelled"
    DepthExceeded = "DepthExceeded"
    TooLarge = "TooLarge"

    def __init__(self, code, message="", data=None):
        if message == "" and code not in _KNOWN_CODES:
            code, message = "ProviderError", code
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.data = data


_KNOWN_CODES = {
    "InvalidParams", "NotFound", "CapabilityDenied", "RateLimited", "Timeout",
    "ProviderError", "ProviderCrashed", "Unavailable", "Internal", "InvalidResult",
    "Conflict", "InvalidRequest", "Cancelled", "DepthExceeded", "TooLarge",
}


def _uncalled(what, v):
    # Capability.ReadSpace written without its argument is the function,
    # whose repr (<function Capability.ReadSpace at 0x7f…>) does not say
    # what to write.
    for name in ("ReadSpace", "WriteSpace", "Network", "CallTool"):
        f = getattr(Capability, name)
        if v is f:
            arg = f.__code__.co_varnames[0]
            return TypeError('%s: Capability.%s is a function: call it with its argument, '
                             'Capability.%s("%s")' % (what, name, name, arg))
    return None


def _as_list(v, what):
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, (list, tuple)):
        for x in v:
            if not isinstance(x, str):
                raise _uncalled(what, x) or TypeError("%s: want capability strings, got %r" % (what, x))
        return list(v)
    raise _uncalled(what, v) or TypeError("%s: want a capability string or a list of them, got %r" % (what, v))


def _shown(v):
    r = repr(v)
    return r if len(r) <= 80 else r[:80] + "\u2026"


def _want_str(what, v):
    """v, a str option (None: unset, ""). Another type went to the host,
    whose decoder refused the register frame naming neither the option
    nor the line (TestOptionTypesCheckedWhereDeclared)."""
    if v is None:
        return ""
    if not isinstance(v, str):
        raise TypeError("%s must be a str, got %s %s" % (what, type(v).__name__, _shown(v)))
    return v


def _want_strs(what, v):
    """v, a list (or tuple, ...) of str, as a list; a str alone is refused:
    list("search") made a tag of each letter."""
    if v is None:
        return []
    if isinstance(v, str):
        raise TypeError("%s must be a list of strings, got str %s; write %s=[%s]"
                        % (what, _shown(v), what.rsplit(" ", 1)[-1], _shown(v)))
    if isinstance(v, (bytes, dict)) or not hasattr(v, "__iter__"):
        raise TypeError("%s must be a list of strings, got %s %s" % (what, type(v).__name__, _shown(v)))
    out = list(v)
    for x in out:
        if not isinstance(x, str):
            raise TypeError("%s must be a list of strings, got %s %s" % (what, type(x).__name__, _shown(x)))
    return out


def _want_bool(what, v):
    """v, a yes-or-no option: True or False. Another value was taken by
    its truth, so mcp_exportable="false" exported the tool
    (TestBoolOptionsTakeBools)."""
    if not isinstance(v, bool):
        raise TypeError("%s must be True or False, got %s %s" % (what, type(v).__name__, _shown(v)))
    return v


_PROVIDER_OPTIONS = ("id", "name", "capabilities", "version", "description")
_TOOL_OPTIONS = ("name", "description", "capability_required", "parameters", "returns", "version",
                 "tags", "examples", "idempotent", "latency_class", "permission_level", "deprecated",
                 "deprecation", "required", "mcp_exportable")


_TOOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")
# What strict SemVer (the registry's semver.StrictNewVersion) refuses: no
# MAJOR.MINOR.PATCH, a leading zero, a "v" prefix, an empty or malformed
# pre-release or build ("1.0.0-", "1.0.0-01", "1.0.0+a..b", which passed
# here to be refused by the registry naming no line).
_SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")


_PERMISSION_LEVELS = ("public", "low", "medium", "high", "critical")  # abi.Permission*
_LATENCY_CLASSES = ("fast", "normal", "slow")  # abi.Latency*


def _want_word(what, v, words):
    """v (a str, or empty for the default) when it is one of words, else a
    ValueError naming it and them."""
    v = _want_str(what, v)
    if v and v not in words:
        raise ValueError("%s %s is not one of %s" % (what, _shown(v), ", ".join(words)))
    return v


def _want_version(what, v):
    """v (a str, or empty for the default) when it can be a strict SemVer
    version, else a ValueError naming it: checked where it is declared, so
    that the load error names its line (the registry's named the file
    alone: TestVersionCheckedWhereDeclared)."""
    v = _want_str(what, v)
    if v and not _SEMVER.fullmatch(v):  # not match: its $ takes "1.0.0\n"
        raise ValueError("%s %s is not a strict SemVer version (want MAJOR.MINOR.PATCH such as 1.2.0)"
                         % (what, _shown(v)))
    return v


def _refuse_unknown(what, unknown, known):
    """A misspelt option (paramaters=, or JS's capabilityRequired=) fails
    the load naming the closest known one, as the JS SDK does, rather than
    Python's bare "unexpected keyword argument"."""
    if not unknown:
        return
    key = sorted(unknown)[0]
    snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
    if snake in known:
        close = [snake]
    else:
        import difflib
        close = difflib.get_close_matches(key, known, 1, 0.6)
    hint = " (did you mean %s?)" % close[0] if close else ""
    raise TypeError("%s: unknown option %r%s; known: %s" % (what, key, hint, ", ".join(known)))


class Agent:
    """Class decorator that makes a class a provider (the seed's @Agent).

        @Agent(name="PDF Tools", capabilities=[Capability.ReadSpace("documents")])
        class PdfTools: ...

    A bare @Agent (no parentheses) is @Agent().

    id is the provider id in reverse-domain form; without it the host derives
    local.<file-stem>. The class is instantiated once per worker with no
    arguments; its @tool methods are the provider's tools.
    """

    def __new__(cls, *args, **kwargs):
        # Bare @Agent (no parentheses, as a bare @tool): the class itself
        # is the only argument. Options are never a class.
        if len(args) == 1 and not kwargs and isinstance(args[0], type):
            return Agent()(args[0])
        return super().__new__(cls)

    def __init__(self, name=None, capabilities=None, id=None, version="", description="", **unknown):
        _refuse_unknown("@Agent", unknown, _PROVIDER_OPTIONS)
        self.info = {
            "id": _want_str("@Agent: id", id),
            "name": _want_str("@Agent: name", name),
            "version": _want_version("@Agent: version", version),
            "description": _want_str("@Agent: description", description),
            "capabilities": _as_list(capabilities, "@Agent capabilities"),
        }

    def __call__(self, cls):
        if not isinstance(cls, type):
            raise TypeError("@Agent(...) decorates a class, got %r" % (cls,))
        info = dict(self.info)
        if not info["name"]:
            info["name"] = cls.__name__
        if not info["description"] and cls.__doc__:
            info["description"] = _cleandoc(cls.__doc__).split("\n\n")[0]
        setattr(cls, AGENT_ATTR, info)
        return cls


# What @tool marked, in order: the worker finds tools by module-level
# names and the @Agent class, and names one of the tool file's that
# neither holds (TestToolNotReachableRefused).
_DECORATED = []

# The aios_sdk.provider(...) call of the tool file (a worker loads one),
# and its line (for load errors).
_PROVIDER = []
_PROVIDER_LINE = []


def provider(id=None, name=None, capabilities=None, version="", description="", **unknown):
    """Describe the provider of a file whose tools are module-level @tool
    functions (the module-level form of @Agent; JS: aios.provider):

        from aios_sdk import Capability, provider, tool

        provider(id="org.example.tools", capabilities=[Capability.CallTool("*")])

        @tool(name="hello")
        async def hello(params, ctx): ...

    Call it once, at module level; a file with an @Agent class describes
    its provider there instead (using both is a load error).
    """
    _refuse_unknown("provider", unknown, _PROVIDER_OPTIONS)
    if _PROVIDER:
        raise RuntimeError("aios_sdk.provider(...) called twice; call it once per tool file")
    for k, v in (("id", id), ("name", name), ("version", version), ("description", description)):
        _want_str("provider: " + k, v)
    _want_version("provider: version", version)
    _PROVIDER.append(Agent(name=name, capabilities=capabilities, id=id, version=version, description=description).info)
    try:
        _PROVIDER_LINE.append(sys._getframe(1).f_lineno)
    except Exception:
        pass


def _is_whole_schema(d):
    """Whether dict d is a whole JSON Schema rather than the shorthand (a
    map of property schemas): it has a string "type" or "$schema" (the JS
    SDK's rule: a mistyped type then gets the host's schema error naming
    it) or a "properties" dict of schemas. A "properties" dict holding a
    value that is not a schema ({"type": "object"}) is the schema of a
    parameter named properties, in the shorthand (it failed the load:
    "at /properties/type: got string, want boolean or object")."""
    props = d.get("properties")
    return (isinstance(d.get("type"), str) or isinstance(d.get("$schema"), str)
            or (isinstance(props, dict) and all(isinstance(v, (dict, bool)) for v in props.values())))


# JSON Schema keywords whose values are not schemas; the same list as the JS,
# native and Go guest SDKs'.
_SCHEMA_KEYWORDS = frozenset(['type', '$ref', '$id', '$anchor', '$comment', '$dynamicRef', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'required', 'format', 'pattern', 'title', 'description', 'default', 'examples', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'dependentRequired', 'nullable', 'readOnly', 'writeOnly', 'deprecated'])


def _is_keyword_schema(d):
    """Whether dict d, not a whole schema by _is_whole_schema, has a keyword
    whose value is not a schema ({"enum": [...]}, {"anyOf": [...]},
    {"$ref": "..."}): a whole schema without a type, which a shorthand (all
    values schemas) cannot be; used as given, as by the JS, native and Go
    guest SDKs."""
    return any(k in _SCHEMA_KEYWORDS and not isinstance(v, dict) for k, v in d.items())


# JSON Schema keywords whose values are schemas, or maps of them
# (schema.subschemaKeywords and subschemaMapKeywords), and $schema.
_SUBSCHEMA_KEYWORDS = frozenset(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else',
                                 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties',
                                 'contentSchema', 'properties', 'patternProperties', '$defs', 'definitions',
                                 'dependentSchemas', 'dependencies', '$schema', '$vocabulary'])


def _refuse_mixed(d, what, label):
    """A keyword schema (_is_keyword_schema) whose other members are
    property schemas is the shorthand with a keyword written beside it,
    {"query": {...}, "required": ["query"]}: taken as a whole schema it
    had no properties (TestShorthandMixedWithKeywordRefused)."""
    props = sorted(str(k) for k, v in d.items()
                   if isinstance(v, dict) and k not in _SCHEMA_KEYWORDS and k not in _SUBSCHEMA_KEYWORDS)
    if not props:
        return
    kw = next(k for k, v in d.items() if k in _SCHEMA_KEYWORDS and not isinstance(v, dict))
    raise ValueError("%s%s mixes property schemas (%s) with the schema keyword %s: write a whole schema, "
                     "{\"type\": \"object\", \"properties\": {...}, %s: ...}, or the property schemas alone%s"
                     % (what, label, ", ".join(props), _dq(kw), _dq(kw),
                        " (required=[...] on @tool names the required ones)" if label == "parameters" else ""))


def _dq(s):
    return '"%s"' % s


def build_parameters(parameters, required=None, what="@tool: ", label="parameters"):
    """Turn @tool(parameters=...) into a JSON Schema object.

    parameters may be a full schema (a dict with a string "type" or
    "$schema", or a "properties" dict) which is used as given, or - as in the seed - a dict of
    property name to property schema. In that form every property is listed
    and "required" holds each property that has no "default" and is not
    marked "optional": True (the "optional" key is removed). An explicit
    required=[...] replaces that rule. No parameters gives {"type": "object"}.
    """
    if parameters is None:
        return {"type": "object"}
    if not isinstance(parameters, dict):
        raise TypeError("@tool parameters: want a dict, got %r" % (parameters,))
    if _is_whole_schema(parameters):
        schema = dict(parameters)
        schema.setdefault("type", "object")
        if required is not None:
            schema["required"] = list(required)
        return schema
    if _is_keyword_schema(parameters):
        _refuse_mixed(parameters, what, label)
        schema = dict(parameters)
        if label == "parameters":
            # Params are an object: without a type, {"anyOf": [{"required":
            # ["x"]}, ...]} took any value, a caller's "hello" reaching the
            # handler (TestKeywordParamsSchemaTakesObjects).
            schema.setdefault("type", "object")
        if required is not None:
            schema["required"] = list(required)
        return schema
    props, req = {}, []
    for key, prop in parameters.items():
        if not isinstance(prop, dict):
            raise TypeError("@tool parameters[%r]: want a JSON Schema dict, got %r" % (key, prop))
        prop = dict(prop)
        optional = prop.pop("optional", False) is True  # only True, as in the Go and JS SDKs
        if not optional and "default" not in prop:
            req.append(key)
        props[key] = prop
    schema = {"type": "object", "properties": props}
    if required is not None:
        req = list(required)
        # The shorthand lists every property: a required name outside it
        # is a slip, which made every call fail "missing property …"
        # (TestRequiredNameNotAParameterRefused).
        for r in req:
            if r not in props:
                raise ValueError("%srequired names %s, which is not one of its parameters (%s)" % (
                    what, _shown(r), ", ".join(sorted(str(k) for k in props)) or "none"))
    elif all(isinstance(k, str) for k in req):
        # Sorted, as the Go and JS SDKs sort them: the same parameters give
        # the same schema in every runtime (seed 000 section 9.1).
        req.sort()
    if req:
        schema["required"] = req
    return schema


def tool(name=None, description="", capability_required=None, parameters=None, returns=None,
         version="", tags=None, examples=None, idempotent=False, latency_class="",
         permission_level="", deprecated=False, required=None, mcp_exportable=False, deprecation=None,
         **unknown):
    """Method (or function) decorator that makes it a tool.

    The handler is called as handler(params, ctx) - or handler(params) when
    it takes one argument - with params a dict; it returns a JSON value (a
    dict in practice). It may be `async def` and await ctx services.
    """
    if isinstance(name, (staticmethod, classmethod)) or (callable(name) and not isinstance(name, str)):
        # Bare @tool. A classmethod is not callable: it was taken as
        # @tool(name=<classmethod>) and the tool silently went missing.
        return tool()(name)
    _refuse_unknown("@tool", unknown, _TOOL_OPTIONS)
    if name is not None and not isinstance(name, str):
        # A bare @tool over what is neither callable nor a str (a
        # @property) came here as the name: the attribute became deco
        # and the tool went missing without a word.
        shown = repr(name)
        raise TypeError("@tool: name must be a str, got %s %s; @tool decorates a function or method "
                        "(not a property)" % (type(name).__name__, shown if len(shown) <= 80 else shown[:80] + "\u2026"))

    def deco(fn):
        target = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
        if not callable(target):
            raise TypeError("@tool decorates a function or method, got %r" % (fn,))
        if isinstance(target, type):
            # A class is callable, but the worker looks for tools among
            # functions and @Agent classes' methods: it went missing
            # without a word.
            raise TypeError("@tool decorates a function or method, not a class (%s): make the class a provider "
                            "with @Agent and its methods tools with @tool" % target.__name__)
        tname = name or target.__name__.replace("_", "-")
        if not isinstance(tname, str) or not _TOOL_NAME.fullmatch(tname):
            # abi.ToolNamePattern, checked here so that the error names
            # the line that declares the tool.
            shown = tname if not isinstance(tname, str) or len(tname) <= 140 else tname[:140] + "\u2026"
            raise ValueError("@tool: invalid tool name %r: use 1-128 characters from A-Z a-z 0-9 _ - . "
                             "starting with a letter or digit" % (shown,))
        what = "@tool " + tname + ": "
        before = getattr(target, TOOL_ATTR, None)
        if isinstance(before, dict):
            # A function is one tool: a second @tool (stacked, or
            # tool(name="b")(f) for a second name) replaced the first's
            # definition, whose tool went missing without a word
            # (TestToolTwiceOnOneFunctionRefused).
            fname = getattr(target, "__name__", None) or type(target).__name__
            raise ValueError("%s%s is already the tool %r; one @tool per function: for a second tool, "
                             "define a function that calls it" % (what, fname, before.get("name")))
        desc = _want_str(what + "description", description)
        if not desc and target.__doc__:
            desc = _cleandoc(target.__doc__).split("\n\n")[0]
        # A str is refused, as for tags: list("name") required the
        # properties "n", "a", "m" and "e" (TestRequiredOptionIsAListOfNames).
        req = None if required is None else _want_strs(what + "required", required)
        d = {"name": tname, "parameters": build_parameters(parameters, req, what)}
        if desc:
            d["description"] = desc
        caps = _as_list(capability_required, "@tool capability_required")
        if caps:
            d["capability_required"] = caps
        if returns is not None:
            if not isinstance(returns, dict):
                raise TypeError("%sreturns must be a dict (a JSON Schema or property schemas), got %s %s"
                                % (what, type(returns).__name__, _shown(returns)))
            d["returns"] = build_parameters(returns, what=what, label="returns")
        if _want_version(what + "version", version):
            d["version"] = version
        if _want_strs(what + "tags", tags):
            d["tags"] = list(tags)
        if _want_strs(what + "examples", examples):
            d["examples"] = list(examples)
        if _want_bool(what + "idempotent", idempotent):
            d["idempotent"] = True
        # The ABI's words, checked here so that the error names the
        # @tool's line (the registry's named the file alone:
        # TestLevelOptionsCheckedWhereDeclared).
        if _want_word(what + "latency_class", latency_class, _LATENCY_CLASSES):
            d["latency_class"] = latency_class
        if _want_word(what + "permission_level", permission_level, _PERMISSION_LEVELS):
            d["permission_level"] = permission_level
        if _want_bool(what + "deprecated", deprecated):
            d["deprecated"] = True
        if deprecation is not None:
            # {"since", "message", "replacement"}, as the Go SDKs'
            # Deprecation: returned to callers; it sets deprecated.
            if not isinstance(deprecation, dict):
                raise TypeError("@tool %s: deprecation must be a dict with since, message and replacement, got %r"
                                % (tname, deprecation))
            # A misspelt member (replacment) was kept and ignored: callers
            # were told the tool is deprecated and nothing of what
            # replaces it (found by p179, as in the JS SDK).
            _refuse_unknown("@tool %s: deprecation" % tname,
                            [k for k in deprecation if k not in ("since", "message", "replacement")],
                            ("since", "message", "replacement"))
            for k in ("since", "message", "replacement"):
                _want_str("%sdeprecation's %s" % (what, k), deprecation.get(k))
            d["deprecation"] = deprecation
            d["deprecated"] = True
        if _want_bool(what + "mcp_exportable", mcp_exportable):
            d["mcp_exportable"] = True
        setattr(target, TOOL_ATTR, d)
        _DECORATED.append(target)
        return fn

    return deco


class Object(bytes):
    """A Space object: its bytes, plus .id (the ObjectId) and .space."""

    def __new__(cls, data, id="", space=""):
        o = super().__new__(cls, data)
        o.id = id
        o.space = space
        return o

    @property
    def data(self):
        return bytes(self)

    def text(self, encoding="utf-8", errors="replace"):
        return self.decode(encoding, errors)


def _running_loop():
    """The asyncio loop running in this thread, or None (asyncio is not
    imported unless a tool imported it)."""
    aio = sys.modules.get("asyncio")
    return aio._get_running_loop() if aio is not None else None


# OP_NAMES are the host operations as a tool writes them (ctx.<name>).
OP_NAMES = {"call_tool": "call_tool", "space_read": "spaces.read", "space_write": "spaces.write", "ai_complete": "ai.complete"}


class HostOp:
    """An awaitable host operation (space read, nested call, ...).

    The worker resolves it: a plain coroutine is driven without an event
    loop, so a call that only awaits host operations costs no asyncio task.
    """

    __slots__ = ("worker", "call_id", "op", "args", "convert", "started", "_steps")

    def __init__(self, worker, call_id, op, args, convert=None):
        self.worker = worker
        self.call_id = call_id
        self.op = op
        self.args = args
        self.convert = convert
        self.started = False

    def __del__(self):
        # Dropped without being awaited or .wait()ed: it never ran (a
        # forgotten await made a write that did not happen, silently).
        # Only noted here, at any point the collector may pick; the worker
        # warns when the call returns (Worker.warn_unawaited).
        try:
            if not self.started:
                self.worker.unawaited.append((self.call_id, self.op))
        except Exception:
            pass

    # Used as its result (r["text"], r.get(...), for x in r) it was
    # "'HostOp' object is not subscriptable", naming neither the missing
    # await nor the operation.
    def _not_awaited(self, what):
        op = object.__getattribute__(self, "op")
        op = OP_NAMES.get(op, op)
        return ("%s of ctx.%s(...), which was not awaited: it returns an awaitable, not its result; "
                "write await ctx.%s(...) (in a plain def tool, ctx.%s(...).wait())" % (what, op, op, op))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(self._not_awaited("no attribute %r" % name))

    def __getitem__(self, key):
        raise TypeError(self._not_awaited("no item %r" % (key,)))

    def __iter__(self):
        raise TypeError(self._not_awaited("no items"))

    def __await__(self):
        self.started = True
        w = self.worker
        loop = _running_loop()
        if loop is not None and loop is not w.loop:
            # An event loop of the tool's own (asyncio.run in a plain def
            # tool, or in a thread): it cannot resolve this op (it failed
            # with "Task got bad yield"); the round trip is made here, as
            # .wait() makes it, holding up that loop meanwhile.
            value = w.host_roundtrip(self)
        elif w.in_asyncio:
            try:
                value = yield from w.host_future(self).__await__()
            except ToolError as e:
                w.refused_by_host(self, e)
                raise
        else:
            value = yield self
        return self.convert(value) if self.convert is not None else value

    # The coroutine protocol beside __await__: asyncio.create_task and
    # TaskGroup.create_task take coroutines only, and a task of
    # ctx.call_tool(...) failed "a coroutine was expected, got HostOp"
    # (TestCreateTaskOfCtxCall).
    def send(self, value):
        try:
            steps = object.__getattribute__(self, "_steps")
        except AttributeError:
            steps = self._steps = self.__await__()
        return steps.send(value)

    def throw(self, *args):
        try:
            steps = object.__getattribute__(self, "_steps")
        except AttributeError:
            steps = self._steps = self.__await__()
        return steps.throw(*args)

    def close(self):
        try:
            object.__getattribute__(self, "_steps").close()
        except AttributeError:
            pass

    def wait(self):
        """Run the operation synchronously (for plain, non-async tools)."""
        self.started = True
        value = self.worker.host_roundtrip(self)
        return self.convert(value) if self.convert is not None else value


class Done:
    """An awaitable that is already complete (ctx.log)."""

    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value

    def __await__(self):
        return self.value
        yield  # pragma: no cover - makes this a generator

    def wait(self):
        """The value, as HostOp.wait gives one (for plain, non-async tools)."""
        return self.value


def _object_from(value):
    value = value or {}
    data = base64.b64decode(value.get("data") or "")
    return Object(data, value.get("id", ""), value.get("space", ""))


class Spaces:
    """ctx.spaces: Space storage as allowed for this call."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx):
        self._ctx = ctx

    def read(self, object_id, space=""):
        """Read an object; returns an Object (bytes with .id and .space).

        Without space, every space the call may read is searched."""
        return self._ctx._op("space_read", {"id": object_id, "space": space}, _object_from)

    def write(self, space, data):
        """Store data (bytes or str) in space; returns its ObjectId."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("ctx.spaces.write(%r, data): want bytes or str, got %s" % (space, type(data).__name__))
        args = {"space": space, "data": base64.b64encode(bytes(data)).decode("ascii")}
        return self._ctx._op("space_write", args, lambda v: (v or {}).get("id", ""))


def _complete_args(prompt, max_tokens, system, temperature, model, stop=None):
    # The options go to the host as given: it checks them (InvalidParams
    # naming the option), as for JS and the WASM guests. int() and
    # float() here made max_tokens=3.7 ask for 3 tokens, "100" for 100.
    args = {"prompt": prompt}
    for k, v in (("max_tokens", max_tokens), ("system", system), ("temperature", temperature), ("model", model), ("stop", stop)):
        if v is not None:
            args[k] = v
    return args


class AI:
    """ctx.ai: the configured inference backend (needs Inference)."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx):
        self._ctx = ctx

    def complete(self, prompt, max_tokens=None, system=None, temperature=None, model=None, stop=None):
        """The backend's answer to prompt, as text. stop: where the backend
        ends its answer, a string or a list of strings."""
        return self._ctx._op("ai_complete", _complete_args(prompt, max_tokens, system, temperature, model, stop), lambda v: (v or {}).get("text", ""))

    def completion(self, prompt, max_tokens=None, system=None, temperature=None, model=None, stop=None):
        """complete, answering a Completion: the text, the model that wrote it
        and finish_reason, why the backend stopped ("length": the answer was
        cut at max_tokens; "stop": whole; "" when the backend said nothing)."""
        def convert(v):
            v = v or {}
            return Completion(v.get("text", ""), v.get("model", ""), v.get("finish_reason", ""))

        return self._ctx._op("ai_complete", _complete_args(prompt, max_tokens, system, temperature, model, stop), convert)


class Completion:
    """What ctx.ai.completion answers: .text, .model and .finish_reason."""

    __slots__ = ("text", "model", "finish_reason")

    def __init__(self, text, model="", finish_reason=""):
        self.text = text
        self.model = model
        self.finish_reason = finish_reason

    def __repr__(self):
        return "Completion(text=%r, model=%r, finish_reason=%r)" % (self.text, self.model, self.finish_reason)


class Context:
    """What a tool receives as ctx: the call and the host's services for it.

    Every service returns an awaitable (use `await`); in a plain `def` tool
    call .wait() on it instead. Capability checks happen in the host, with
    the calling agent's grants intersected with the provider's.
    """

    __slots__ = ("_worker", "call_id", "parent_id", "tool", "caller", "depth", "_deadline", "spaces", "ai")

    def __init__(self, worker, call):
        self._worker = worker
        self.call_id = call.get("id", "")
        self.parent_id = call.get("parent_id", "")
        self.tool = call.get("tool", "")
        self.caller = call.get("caller", "")
        self.depth = call.get("depth", 0)
        self._deadline = call.get("deadline")
        self.spaces = Spaces(self)
        self.ai = AI(self)

    @property
    def deadline(self):
        """The call's deadline in seconds since the epoch (as time.time()), or None.

        The frame carries it as RFC 3339 text in UTC with up to nine
        fractional digits, which datetime.fromisoformat of Python < 3.11
        cannot read; it is parsed on use only."""
        d = self._deadline
        if not isinstance(d, str):
            return d
        try:
            base, _, frac = d.rstrip("Z").partition(".")
            secs = calendar.timegm(time.strptime(base, "%Y-%m-%dT%H:%M:%S"))
            return secs + (float("0." + frac) if frac else 0.0)
        except ValueError:
            return None

    def _op(self, op, args, convert=None):
        # A bytes string argument is refused here, as the host refuses a
        # number (InvalidParams naming it): it failed with TypeError
        # "bytes ... at $.host.args.space is not JSON serializable".
        for k in _STR_ARGS:
            v = args.get(k)
            if isinstance(v, (bytes, bytearray, memoryview)):
                raise ToolError(ToolError.InvalidParams, '%s: "%s" must be a string, not bytes (%s); decode it first'
                                % (op, k, type(v).__name__))
        return HostOp(self._worker, self.call_id, op, args, convert)

    def call_tool(self, name, params=None, version=""):
        """Call another tool (any runtime) as a nested call of this one."""
        args = {"tool": name, "params": {} if params is None else params}
        if version:
            args["version"] = version
        return self._op("call_tool", args)

    def log(self, *parts, level="info"):
        """Write a line to the host log, tagged with this call. Awaitable.

        level is "debug", "info", "warning" (or "warn") or "error", in any
        case; another raises ValueError. The host logs at most 100 lines a
        second per worker (the rest are counted in a "python ctx.log lines
        suppressed" warning) and at most 64 KiB of each line."""
        lv = level.lower() if isinstance(level, str) else None
        if lv not in _LOG_LEVELS:
            raise ValueError("ctx.log: unknown level %r; use 'debug', 'info', 'warning' (or 'warn') or 'error'" % (level,))
        msg = cut_text(" ".join(str(p) for p in parts), _MAX_LOG_CHARS)
        self._worker.send_log(lv, msg, self.call_id)
        return Done(None)


# The host-call arguments that are strings (internal/hostop).
_STR_ARGS = ("id", "space", "tool", "version", "prompt", "system", "model")
_LOG_LEVELS = {"debug", "info", "warn", "warning", "error"}
# The host keeps 64 KiB of a log line; a longer message is cut here so that
# its frame stays small (in bytes of UTF-8, with cut_text).
_MAX_LOG_CHARS = 64 << 10


def cut_text(s, n):
    """s, or its head and how many characters were cut, in at most n bytes
    of UTF-8, the note included (a lone surrogate counted as its \\udcff
    escape, as it is sent): the host keeps 64 KiB of a provider's message
    (host.boundError) and of a log line, and a text cut at 64 Ki characters
    with the note after them was cut there again, the note (and an
    exception's "(at file.py:LINE)") lost (TestLongErrorMessageFitsHostBound,
    TestLongCtxLogSaysWhatWasCut)."""
    if len(s) <= n // 6:
        return s
    b = s.encode("utf-8", "backslashreplace")
    if len(b) <= n:
        return s
    head = b[:max(n - 40, 0)].decode("utf-8", "ignore")
    return "%s \u2026 (%d characters cut)" % (head, len(s) - len(head))
