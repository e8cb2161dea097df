"""Chat templates are code from a downloaded file: where they run, and what bounds them.

Two lines of defence hold every render.

1. Each operation a template can grow a value with is checked before it runs, at the hooks of
   jinja2's sandbox: the operators `+ * ** %` (`call_binop`), calls of str and bytes methods
   (`call`: ljust, center, zfill, expandtabs, replace, join, translate ...), `str.format`
   (`wrap_str_format`: widths, precisions, conversions), every filter (wrapped: format, join,
   replace, indent, center, wordwrap, urlize, batch, slice, sum, tojson ...), the `lipsum` global,
   `~` and the buffers of `{% set %}`/macro/filter blocks (the code generator), and every `{{ }}`
   (`finalize`).  No string, list or dict longer than `max_chars` (and no number of more than
   MAX_DIGITS digits) is made; the refusal says what was asked for.
2. The render runs in a worker process whose data segment (RLIMIT_DATA: its heap and every private
   mapping) is capped at MEMORY_CEILING above what it holds when the render starts.  Whatever the
   checks miss (many large values kept at once, a construct nobody thought of) ends in a
   MemoryError in the worker, reported as one line.  The caller's process never holds the
   template's values, so a render cannot take the app down.

Why a process: CPython has no per-thread allocation limit, tracemalloc slows every allocation of
the whole process, and sampling memory between template steps cannot stop one C call that asks for
gigabytes; a resource limit on a process that does nothing else stops the allocation that crosses
it.  The worker starts once (about 80 ms, on a caller's thread) and serves renders over a pipe: a
render costs one round trip, about 0.2 ms more than in the caller.  It is started again when it
ended, was cancelled mid-render, or ran past the time limit.  The cap needs Linux (elsewhere
RLIMIT_DATA does not cover mmap, or does not exist): there the checks of (1) and the separate
process remain.  A frozen app (no interpreter to start) renders
in its own process with the checks of (1) alone.

This module imports only the standard library and jinja2, for the worker runs it as a script.
"""
from __future__ import annotations

import atexit
import json
import math
import os
import pickle
import queue
import re
import struct
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from types import GeneratorType

MEMORY_CEILING = 100 << 20  # bytes a render may add to the worker's data segment
MAX_DIGITS = 4300  # digits a number may have (Python's own limit for turning an int into text)
HARD_TIME_GRACE = 1.0  # seconds past the time limit after which the worker is killed
_HEADER = struct.Struct("<Q")
_INT_BITS = int(MAX_DIGITS / 0.30103) + 1


class RenderFailed(Exception):
    """A render that did not give text: `kind` is one of compile, limit, time, memory, raised,
    recursion, failed, crashed; `message` says more (one line for the limits)."""

    def __init__(self, kind: str, message: str = "", line: int | None = None):
        super().__init__(message)
        self.kind, self.message, self.line = kind, message, line


class RenderCancelled(Exception):
    """The caller's `cancelled()` said stop while the worker rendered."""


class _TooBig(Exception):
    """A value past a limit (raised inside the template's code)."""


# ---- sizes -------------------------------------------------------------------------------------

def text_size(value, budget: int, indent: int = 0, separators: int = 2) -> int:
    """About len(str(value)) (or, with `indent`, of its JSON with that indent), counted without
    making the text; counting stops once past `budget`."""
    if type(value) in _SCALARS:
        return len(value) if type(value) is str else 24
    from jinja2.runtime import Undefined
    from jinja2.utils import Namespace

    total = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if indent:
            total += indent * depth + 1
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, (bytes, bytearray)):
            total += 4 * len(item) + 3
        elif item is None or isinstance(item, (bool, float)):
            total += 24
        elif isinstance(item, int):
            total += int(item.bit_length() * 0.30103) + 2
        elif isinstance(item, Undefined):
            pass
        elif isinstance(item, (dict, Namespace)):
            if isinstance(item, Namespace):
                item = object.__getattribute__(item, "_Namespace__attrs")
                total += 12
            total += 2
            for key, val in item.items():
                total += separators
                stack.append((key, depth + 1))
                stack.append((val, 0))
                if total > budget:
                    return total
        elif isinstance(item, (list, tuple, set, frozenset, type({}.keys()), type({}.values()), type({}.items()))):
            total += 2
            for val in item:
                total += separators
                stack.append((val, depth + 1))
                if len(stack) > budget:
                    return budget + 1
        else:
            total += 100  # (an object's repr: a loop, a macro, a cycler)
        if total > budget:
            return total
    return total


_SCALARS = frozenset({str, int, float, bool, type(None)})  # (an int's text is bounded by MAX_DIGITS)
_PRINTF = re.compile(r"%(?:\(([^)]*)\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)", re.S)
_FORMAT_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d+))?", re.S)


def _number(digits: str | None, budget: int) -> int:
    if not digits or digits == "*":
        return 0
    return int(digits) if len(digits) < 12 else budget + 1


def printf_size(fmt: str, args, budget: int) -> int:
    """About len(fmt % args): the literal text, each field's width and precision (written or `*`)
    and each value's text."""
    if isinstance(args, tuple):
        positional, mapping = list(args), None
    else:
        positional = [args]
        mapping = args if hasattr(args, "keys") and not isinstance(args, str) else None
    total, k = len(fmt), 0
    for match in _PRINTF.finditer(fmt):
        key, width, precision, conversion = match.groups()
        if conversion == "%":
            continue
        for part in (width, precision):
            if part == "*":
                n = positional[k] if k < len(positional) else 0
                k += 1
                total += abs(n) if isinstance(n, int) else 0
            else:
                total += _number(part, budget)
        if key is not None and mapping is not None:
            try:
                value = mapping[key]
            except Exception:  # (the operator itself says what is wrong)
                value = None
        else:
            value = positional[k] if k < len(positional) else None
            k += 1
        total += text_size(value, budget)
        if total > budget:
            return total
    return total


def _data_bytes() -> int | None:
    """The process's data segment (what RLIMIT_DATA limits), from /proc; None where unknown."""
    return _status_field("VmData")


def _status_field(name: str) -> int | None:
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(name.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


# ---- the environment ----------------------------------------------------------------------------

def make_environment(max_chars: int):
    """A Jinja environment like transformers' for chat templates (immutable sandbox, trim_blocks,
    lstrip_blocks, loop controls, `{% generation %}`, raise_exception, tojson, strftime_now, dict,
    namespace), with every way of growing a value bounded by `max_chars`."""
    import functools
    import inspect

    import jinja2
    from jinja2 import nodes
    from jinja2.compiler import CodeGenerator, optimizeconst
    from jinja2.ext import Extension, loopcontrols
    from jinja2.filters import make_attrgetter
    from jinja2.utils import _PassArg
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEscapeFormatter, SandboxedFormatter
    from jinja2.utils import Namespace, generate_lorem_ipsum
    from markupsafe import Markup

    def too_big(what: str):
        raise _TooBig(f"the chat template asks for {what}, more than the limit of {max_chars:,} characters")

    def check_text(size: int, what: str = "a text", exact: bool = True) -> None:
        """Refuse a value of `size` characters or items (`exact`: known, else counted until past the limit)."""
        if size > max_chars:
            if exact:
                too_big(f"{what} of {size:,} characters")
            raise _TooBig(f"the chat template asks for {what} of more than the limit of {max_chars:,} characters")

    def check_estimate(value, what: str) -> None:
        check_text(text_size(value, max_chars), what, exact=False)

    def check_value(value):
        """A value made by a call or filter: refused if longer than the limit."""
        kind = type(value)
        if kind is str or kind is float or kind is bool or value is None:
            if kind is str and len(value) > max_chars:
                check_text(len(value), "a string")
            return value
        if isinstance(value, (str, bytes)):
            check_text(len(value), "a string")
        elif isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) > max_chars:
            too_big(f"a {type(value).__name__} of {len(value):,} items")
        elif isinstance(value, int) and value.bit_length() > _INT_BITS:
            raise _TooBig(f"the chat template asks for a number of more than {MAX_DIGITS:,} digits")
        return value

    def check_bits(bits: float):
        if bits > _INT_BITS:
            raise _TooBig(f"the chat template asks for a number of about {int(bits * 0.30103):,} digits, "
                          f"more than the limit of {MAX_DIGITS:,} digits")

    class OutputBuffer(list):
        """The output of a `{% set %}`, macro, call or filter block, bounded as it is written."""

        size = 0

        def append(self, piece):
            self.size += len(piece) if isinstance(piece, str) else text_size(piece, max_chars)
            check_text(self.size, "a block's output", exact=False)
            list.append(self, piece)

        def extend(self, pieces):
            pieces = tuple(pieces)
            self.size += sum(len(p) if isinstance(p, str) else text_size(p, max_chars) for p in pieces)
            check_text(self.size, "a block's output", exact=False)
            list.extend(self, pieces)

    class BoundedCodeGenerator(CodeGenerator):
        """Jinja's code generator with the block buffers and `~` bounded."""

        def buffer(self, frame):
            frame.buffer = self.temporary_identifier()
            self.writeline(f"{frame.buffer} = environment.output_buffer()")

        @optimizeconst
        def visit_Concat(self, node, frame):
            join = ("(markup_join if context.eval_ctx.volatile else str_join)" if frame.eval_ctx.volatile
                    else "markup_join" if frame.eval_ctx.autoescape else "str_join")
            self.write(f"{join}(environment.concat_parts((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write(")))")

    class BoundedFormatterMixin:
        """str.format with each field's width, precision and text counted before it is made."""

        def vformat(self, format_string, args, kwargs):
            self.made = len(format_string)
            return super().vformat(format_string, args, kwargs)

        def convert_field(self, value, conversion):
            if conversion in ("r", "a"):
                check_estimate(value, "a repr")
            return super().convert_field(value, conversion)

        def format_field(self, value, format_spec):
            match = _FORMAT_SPEC.match(format_spec)
            width, precision = (match.group(1), match.group(2)) if match else ("", "")
            self.made += _number(width, max_chars) + _number(precision, max_chars) + text_size(value, max_chars)
            check_text(self.made, "a formatted string", exact=False)
            return super().format_field(value, format_spec)

    class BoundedFormatter(BoundedFormatterMixin, SandboxedFormatter):
        pass

    class BoundedEscapeFormatter(BoundedFormatterMixin, SandboxedEscapeFormatter):
        pass

    class BoundedEnvironment(ImmutableSandboxedEnvironment):
        code_generator_class = BoundedCodeGenerator
        intercepted_binops = frozenset({"+", "*", "**", "%"})

        @staticmethod
        def output_buffer():
            return OutputBuffer()

        @staticmethod
        def concat_parts(parts: tuple) -> tuple:
            check_text(sum(len(p) if isinstance(p, str) else text_size(p, max_chars) for p in parts), "a `~` text",
                       exact=False)
            return parts

        def call_binop(self, context, operator, left, right):
            if operator == "+":
                if isinstance(left, (str, bytes, list, tuple)) and isinstance(right, (str, bytes, list, tuple)):
                    check_text(len(left) + len(right), "a `+` value")
            elif operator == "*":
                for seq, n in ((left, right), (right, left)):
                    if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) and len(seq) * n > max_chars:
                        too_big(f"{len(seq):,} x {n:,} items")
                if isinstance(left, int) and isinstance(right, int):
                    check_bits(left.bit_length() + right.bit_length())
            elif operator == "**":
                if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1:
                    check_bits(math.log2(abs(left)) * right)
            elif operator == "%" and isinstance(left, str):
                check_text(printf_size(left, right, max_chars), "a `%` formatted string", exact=False)
            return check_value(super().call_binop(context, operator, left, right))

        def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (jinja's signature)
            owner = getattr(__obj, "__self__", None)
            if isinstance(owner, (str, bytes)):
                args = text_method_args(owner, getattr(__obj, "__name__", ""), args, kwargs)
            elif isinstance(owner, int) and getattr(__obj, "__name__", "") == "to_bytes":
                length = args[0] if args else kwargs.get("length", 1)
                if isinstance(length, int) and length > max_chars:
                    too_big(f"to_bytes() with {length:,} bytes")
            return check_value(super().call(__context, __obj, *args, **kwargs))

        def wrap_str_format(self, value):
            wrapped = super().wrap_str_format(value)
            if wrapped is None:
                return None
            owner, is_format_map = value.__self__, value.__name__ == "format_map"
            formatter = (BoundedEscapeFormatter(self, escape=owner.escape) if isinstance(owner, Markup)
                         else BoundedFormatter(self))

            def bounded_format(*args, **kwargs):
                if is_format_map:
                    if kwargs or len(args) != 1:
                        raise TypeError("format_map() takes exactly one argument")
                    args, kwargs = (), args[0]
                return type(owner)(formatter.vformat(owner, args, kwargs))

            return functools.update_wrapper(bounded_format, value)

    def text_method_args(owner, name: str, args: tuple, kwargs: dict) -> tuple:
        """Refuse a call of str/bytes method `name` on `owner` that would make too long a value; the
        arguments to call it with (an iterable given to join, read once)."""
        n = len(owner)
        if name in ("ljust", "rjust", "center", "zfill"):
            width = args[0] if args else kwargs.get("width", 0)
            if isinstance(width, int) and width > max_chars:
                too_big(f"{name}() with a width of {width:,} characters")
        elif name == "expandtabs":
            tabsize = args[0] if args else kwargs.get("tabsize", 8)
            if isinstance(tabsize, int):
                check_text(n + owner.count("\t" if isinstance(owner, str) else b"\t") * max(tabsize, 0),
                           "an expandtabs string")
        elif name == "replace" and len(args) >= 2 and isinstance(args[0], type(owner)):
            old, new = args[0], args[1]
            count = args[2] if len(args) > 2 else kwargs.get("count", -1)
            found = n + 1 if not old else owner.count(old)
            if isinstance(count, int) and count >= 0:
                found = min(found, count)
            if isinstance(new, (str, bytes)):
                check_text(n + found * max(len(new) - len(old), 0), "a replaced string")
        elif name == "join" and args:
            items = list(args[0])
            size = sum(len(x) for x in items if isinstance(x, (str, bytes))) + n * max(len(items) - 1, 0)
            check_text(size, "a joined string")
            args = (items, *args[1:])
        elif name == "translate" and args and isinstance(args[0], dict):
            longest = max((len(v) for v in args[0].values() if isinstance(v, (str, bytes))), default=1)
            check_text(n * max(longest, 1), "a translated string")
        return args

    # ---- filters: each checked before it runs where its arguments can grow the value, and after
    def pre_format(a):
        check_estimate(a["value"], "a format string")
        check_text(printf_size(str(a["value"]), a["kwargs"] or a["args"], max_chars), "a formatted string", exact=False)

    def listed(a, key: str) -> list:
        """The filter's argument `key` as a list with its `attribute` looked up (and taken off the
        call, which then gets the looked-up items)."""
        items = list(a[key])
        if a["attribute"] is not None:
            items = list(map(make_attrgetter(env, a["attribute"]), items))
            a["attribute"] = None
        a[key] = items
        return items

    def pre_join(a):
        items = listed(a, "value")
        sep = a["d"]
        size = sum(text_size(x, max_chars) for x in items) + len(str(sep)) * max(len(items) - 1, 0)
        check_text(size, "a joined string", exact=False)

    def pre_replace(a):
        s, old, new, count = str(a["s"]), str(a["old"]), str(a["new"]), a["count"]
        found = len(s) + 1 if not old else s.count(old)
        if isinstance(count, int) and count >= 0:
            found = min(found, count)
        check_text(len(s) + found * max(len(new) - len(old), 0), "a replaced string")

    def pre_center(a):
        if isinstance(a["width"], int) and a["width"] > max_chars:
            too_big(f"center with a width of {a['width']:,} characters")

    def pre_indent(a):
        width = a["width"]
        prefix = width if isinstance(width, int) else len(str(width))
        s = str(a["s"])
        check_text(len(s) + (s.count("\n") + 1) * max(prefix, 0), "an indented string")

    def pre_wordwrap(a):
        s, wrap = str(a["s"]), a["wrapstring"]
        if wrap is not None and len(str(wrap)) > 1:
            width = a["width"] if isinstance(a["width"], int) and a["width"] > 0 else 1
            lines = len(s.split()) + len(s) // width + s.count("\n") + 1
            check_text(len(s) + lines * len(str(wrap)), "a wrapped string")

    def pre_urlize(a):
        s = str(a["value"])
        extra = 60 + len(str(a["target"] or "")) + len(str(a["rel"] or ""))
        check_text(3 * len(s) + (len(s.split()) + 1) * extra, "an urlized string")

    def pre_batch(a):
        if isinstance(a["linecount"], int) and a["linecount"] > max_chars:
            too_big(f"batch() with {a['linecount']:,} items a batch")

    def pre_slice(a):
        if isinstance(a["slices"], int) and a["slices"] > max_chars:
            too_big(f"slice() into {a['slices']:,} slices")

    def pre_sum(a):
        items = listed(a, "iterable")
        lengths = [len(x) for x in (a["start"], *items) if isinstance(x, (str, bytes, list, tuple))]
        if sum(lengths) > max_chars:
            too_big(f"a sum of {sum(lengths):,} items")

    def pre_text(a):
        """(The value's text: checked in `bounded` itself.)"""

    def pre_lipsum(a):
        if all(isinstance(a[k], int) for k in ("n", "max")):
            check_text(a["n"] * max(a["max"], 1) * 16, "lorem ipsum")

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        step = indent if isinstance(indent, int) else len(indent) if isinstance(indent, str) else 0
        between = sum(len(s) for s in separators) if isinstance(separators, (tuple, list)) else 2
        check_text(text_size(value, max_chars, indent=max(step, 0), separators=between), "JSON", exact=False)
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    checks = {"format": pre_format, "join": pre_join, "replace": pre_replace, "center": pre_center,
              "indent": pre_indent, "wordwrap": pre_wordwrap, "urlize": pre_urlize, "batch": pre_batch,
              "slice": pre_slice, "sum": pre_sum, "string": pre_text, "pprint": pre_text, "xmlattr": pre_text,
              "urlencode": pre_text, "escape": pre_text, "e": pre_text, "forceescape": pre_text}

    def bounded(func, check):
        signature = inspect.signature(func)
        # (jinja's async variants take an eval context their wrapped function does not name)
        passed = int(_PassArg.from_obj(func) is not None and _PassArg.from_obj(inspect.unwrap(func)) is None)
        first = passed + int(_PassArg.from_obj(inspect.unwrap(func)) is not None)  # (where the value is)

        @functools.wraps(func)
        def run(*args, **kwargs):
            if check is pre_text:  # (the value alone: no need to bind every argument)
                value = args[first] if len(args) > first else next(iter(kwargs.values()), None)
                if type(value) not in _SCALARS:
                    check_estimate(value, "a text")
            elif check is not None:
                head, args = args[:passed], args[passed:]
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                arguments = dict(bound.arguments)
                check(arguments)
                positional, named = [], {}
                for name, param in signature.parameters.items():
                    if param.kind is param.VAR_POSITIONAL:
                        positional.extend(arguments[name])
                    elif param.kind is param.VAR_KEYWORD:
                        named.update(arguments[name])
                    elif param.kind is param.KEYWORD_ONLY:
                        named[name] = arguments[name]
                    else:
                        positional.append(arguments[name])
                args, kwargs = (*head, *positional), named
            result = func(*args, **kwargs)
            if type(result) is GeneratorType:
                return (check_value(item) for item in result)
            return check_value(result)

        return run

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def strftime_now(fmt):
        check_text(len(fmt) * 16, "a strftime text", exact=False)  # (a directive gives at most ~16 characters)
        return datetime.now().strftime(fmt)

    class TemplateDict:
        """`dict(...)` for templates, without the type's own attributes."""

        def __call__(self, *args, **kwargs):
            return check_value(dict(*args, **kwargs))

        def fromkeys(self, *args, **kwargs):
            return check_value(dict.fromkeys(*args, **kwargs))

    class TemplateNamespace(Namespace):
        """`namespace(...)` that refuses names starting with an underscore."""

        def __init__(*args, **kwargs):  # noqa: N805 (Namespace's own signature trick)
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                TemplateNamespace.check(name)
            Namespace.__init__(self, attrs)

        def __setitem__(self, name, value):
            TemplateNamespace.check(name)
            Namespace.__setitem__(self, name, value)

        @staticmethod
        def check(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(f"a namespace cannot hold {name!r} (it starts with an underscore)")

    def finalize(value):
        if type(value) not in _SCALARS:
            check_estimate(value, "an output")
        return value

    class GenerationBlocks(Extension):
        """`{% generation %}...{% endgeneration %}` (marks an assistant's text): rendered as its body."""

        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller):
            return caller()

    env = BoundedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationBlocks, loopcontrols],
                             finalize=finalize)
    env.filters["tojson"] = tojson
    for name, func in list(env.filters.items()):
        env.filters[name] = bounded(func, checks.get(name))
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = TemplateNamespace
    env.globals["lipsum"] = bounded(generate_lorem_ipsum, pre_lipsum)
    return env


# ---- rendering in this process -------------------------------------------------------------------

_compiled: dict[tuple[str, int], object] = {}


def _compile(source: str, max_chars: int):
    import jinja2

    key = (source, max_chars)
    template = _compiled.get(key)
    if template is None:
        try:
            template = make_environment(max_chars).from_string(source)
        except jinja2.TemplateSyntaxError as exc:
            raise RenderFailed("compile", exc.message or str(exc), exc.lineno) from None
        except _TooBig as exc:  # (a constant the compiler folds)
            raise RenderFailed("limit", str(exc)) from None
        if len(_compiled) > 32:
            _compiled.clear()
        _compiled[key] = template
    return template


def render_here(source: str, context: dict, time_limit: float, max_chars: int) -> str:
    """Render in this process, with the checks of every operation and the time limit (not the memory
    ceiling); a failure raises RenderFailed."""
    import jinja2

    template = _compile(source, max_chars)
    deadline = time.monotonic() + time_limit
    steps = 0

    def tracer(frame, event, arg):
        nonlocal steps
        steps += 1
        if steps & 1023 == 0 and time.monotonic() > deadline:
            raise RenderFailed("time")
        return tracer

    parts: list[str] = []
    size = 0
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        for part in template.generate(**context):
            size += len(part)
            if size > max_chars:
                raise _TooBig(f"the chat template asks for a rendered text of more than the limit of {max_chars:,} "
                              "characters")
            parts.append(part)
    except RenderFailed:
        raise
    except _TooBig as exc:
        raise RenderFailed("limit", str(exc)) from None
    except jinja2.TemplateError as exc:
        raise RenderFailed("raised", str(exc.message or exc)) from None
    except RecursionError:
        raise RenderFailed("recursion") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError, OverflowError) as exc:
        raise RenderFailed("failed", f"{type(exc).__name__}: {exc}") from None
    finally:
        sys.settrace(previous)
    return "".join(parts)


# ---- the worker process ------------------------------------------------------------------------

@contextmanager
def _memory_ceiling(extra: int):
    """RLIMIT_DATA at `extra` bytes above the data segment held now (Linux), for the block."""
    held = _data_bytes() if sys.platform.startswith("linux") else None
    if held is None:
        yield
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = held + extra if hard == resource.RLIM_INFINITY else min(held + extra, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def _reset_peak() -> None:
    try:  # (Linux: "5" resets the peak resident size the kernel reports as VmHWM)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _serve_one(request: dict) -> dict:
    _reset_peak()
    before = _status_field("VmRSS")
    reply: dict
    try:
        with _memory_ceiling(MEMORY_CEILING):
            text = render_here(request["source"], request["context"], request["time_limit"], request["max_chars"])
        reply = {"text": text}
    except MemoryError:
        reply = {"error": "memory"}
    except RenderFailed as exc:
        reply = {"error": exc.kind, "message": exc.message, "line": exc.line}
    except Exception as exc:  # (anything else a template provokes: still one line, never a traceback)
        reply = {"error": "failed", "message": f"{type(exc).__name__}: {exc}"}
    peak = _status_field("VmHWM")
    if before is not None and peak is not None:
        reply["peak"] = max(peak - before, 0)
    return reply


def _read_exact(stream, n: int) -> bytes | None:
    data = bytearray()
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def serve() -> None:
    """The worker: render each request read from standard input, reply on standard output, until
    standard input ends; end early (the caller starts another) when a render left it holding much
    more than it started with."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (the caller decides; a terminal's ^C reaches the group)
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    make_environment(1)  # (what a render imports is held before the baseline is taken)

    baseline = _data_bytes()
    while True:
        header = _read_exact(requests, _HEADER.size)
        if header is None:
            return
        payload = _read_exact(requests, _HEADER.unpack(header)[0])
        if payload is None:
            return
        reply = _serve_one(pickle.loads(payload))
        held = _data_bytes()
        retire = reply.get("error") == "memory" or (baseline is not None and held is not None
                                                    and held > baseline + MEMORY_CEILING // 2)
        if retire:
            reply["retire"] = True
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass")
        replies.write(_HEADER.pack(len(data)) + data)
        replies.flush()
        if retire:
            return


# ---- the caller's side -------------------------------------------------------------------------

_BOOT = "import sys, runpy; sys.path[:] = sys.argv[2:]; runpy.run_path(sys.argv[1], run_name='__main__')"


class Worker:
    """The process templates render in: started on first use, one render at a time."""

    def __init__(self):
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._replies: queue.Queue | None = None
        self.last_peak: int | None = None  # bytes the last render added to the worker's resident size
        self.starts = 0

    @staticmethod
    def available() -> bool:
        return bool(sys.executable) and not getattr(sys, "frozen", False)

    def render(self, source: str, context: dict, *, time_limit: float, max_chars: int, cancelled=None) -> str:
        """The text of `source` rendered with `context` in the worker; RenderFailed or RenderCancelled."""
        try:
            payload = pickle.dumps({"source": source, "context": context, "time_limit": time_limit,
                                    "max_chars": max_chars}, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise RenderFailed("failed", f"a template variable cannot be passed to the sandbox: {exc}") from None
        with self._lock:
            replies = self._send(_HEADER.pack(len(payload)) + payload)
            deadline = time.monotonic() + time_limit + HARD_TIME_GRACE
            while True:
                try:
                    frame = replies.get(timeout=0.05)
                    break
                except queue.Empty:
                    if cancelled is not None and cancelled():
                        self._stop(kill=True)
                        raise RenderCancelled() from None
                    if time.monotonic() > deadline:
                        self._stop(kill=True)
                        raise RenderFailed("time") from None
            if frame is None:
                status = self._stop()
                raise RenderFailed("crashed", _describe_exit(status))
            reply = json.loads(frame.decode("utf-8", "surrogatepass"))
            if reply.get("retire"):
                self._stop()
        self.last_peak = reply.get("peak")
        if "text" in reply:
            return reply["text"]
        raise RenderFailed(reply["error"], reply.get("message") or "", reply.get("line"))

    def _send(self, data: bytes) -> queue.Queue:
        for attempt in (0, 1):
            if self._process is None or self._process.poll() is not None:
                self._start()
            try:
                self._process.stdin.write(data)
                self._process.stdin.flush()
                return self._replies
            except OSError:  # (it ended between renders: once more with a new one)
                self._stop()
                if attempt:
                    raise RenderFailed("crashed", "the render process could not be reached") from None
        raise AssertionError("unreachable")

    def _start(self) -> None:
        paths = [p for p in sys.path if p and os.path.isabs(p)]
        try:
            process = subprocess.Popen([sys.executable, "-P", "-c", _BOOT, os.path.abspath(__file__), *paths],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       close_fds=True)
        except OSError as exc:
            raise RenderFailed("crashed", f"the render process could not start: {exc}") from None
        replies: queue.Queue = queue.Queue()
        threading.Thread(target=_read_replies, args=(process.stdout, replies), daemon=True,
                         name="tokviz-chat-sandbox").start()
        self._process, self._replies = process, replies
        self.starts += 1

    def _stop(self, kill: bool = False) -> int | None:
        """End the worker (`kill`: at once, else once it has read what was sent); its exit status."""
        process, self._process, self._replies = self._process, None, None
        if process is None:
            return None
        if kill:
            process.kill()
        try:
            process.stdin.close()
        except OSError:
            pass
        try:
            return process.wait(0.5)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()

    def close(self) -> None:
        if self._lock.acquire(timeout=1.0):
            try:
                self._stop()
            finally:
                self._lock.release()
        elif self._process is not None:
            self._process.kill()


def _read_replies(stream, replies: queue.Queue) -> None:
    try:
        while True:
            header = _read_exact(stream, _HEADER.size)
            if header is None:
                break
            size = _HEADER.unpack(header)[0]
            if size > (1 << 32):
                break
            frame = _read_exact(stream, size)
            if frame is None:
                break
            replies.put(frame)
    except (OSError, ValueError):
        pass
    replies.put(None)


def _describe_exit(status: int | None) -> str:
    if status is None:
        return "the render process ended"
    if status < 0:
        import signal

        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"the render process ended by {name}"
    return f"the render process ended with status {status}"


_worker = Worker()
atexit.register(_worker.close)


def render(source: str, context: dict, *, time_limit: float, max_chars: int, cancelled=None) -> str:
    """Render untrusted template `source` with `context`: in the worker process (bounded in memory,
    see the module's docstring), or here where no interpreter can be started."""
    if Worker.available():
        return _worker.render(source, context, time_limit=time_limit, max_chars=max_chars, cancelled=cancelled)
    return render_here(source, context, time_limit, max_chars)


def last_peak() -> int | None:
    """Bytes the last render in the worker added to its resident size (Linux), or None."""
    return _worker.last_peak


if __name__ == "__main__":
    serve()
