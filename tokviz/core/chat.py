"""Chat templates: a conversation rendered to the text a model sees, as transformers renders it.

A chat template is Jinja code shipped with a tokenizer.  `render` runs it the way transformers'
`apply_chat_template(messages, tokenize=False)` does (a sandboxed, immutable Jinja environment with
trim_blocks and lstrip_blocks, loop controls, `{% generation %}` blocks, and the globals and filters
templates use: `raise_exception`, `tojson`, `strftime_now`, `dict`, `namespace`), with the
tokenizer's special tokens (`bos_token`, `eos_token`, ...) as variables.  Templates are code from a
file, so rendering is also bounded: no attribute access to Python internals (the sandbox), no
string or list longer than `max_chars`, and no more than `time_limit` seconds.

`count` adds what a token view needs: the rendered text's ids (as transformers tokenizes a
rendered template: no special tokens added on top) and the tokens each message adds.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..errors import Cancelled, TokvizError
from ..paths import other_unicode_message, read_limited, unicode_encoding

ROLES = ("system", "user", "assistant", "tool")
TIME_LIMIT = 5.0  # seconds a render may take
MAX_CHARS = 2_000_000  # characters a rendered text (or any string or list made on the way) may have
_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")  # transformers fills the first two


class ChatTemplateError(TokvizError):
    """A template that cannot be compiled, raised an error, or went past a limit."""


@dataclass(frozen=True)
class ChatTemplate:
    name: str  # "default", or the name a file or tokenizer_config.json gives it
    source: str  # the Jinja text
    origin: str  # the file it was read from


@dataclass
class ChatTemplates:
    """The chat templates of a tokenizer and the variables they are rendered with."""

    templates: dict[str, ChatTemplate] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)  # bos_token, eos_token, ... -> content
    problem: str | None = None  # why templates the tokenizer's files hold could not be read

    def __bool__(self) -> bool:
        return bool(self.templates)

    def names(self) -> list[str]:
        return sorted(self.templates, key=lambda n: (n != "default", n))

    def pick(self, name: str | None = None, tools=None) -> ChatTemplate:
        """The template `name`, else transformers' choice: "tool_use" when tools are given and it
        exists, then "default", then the only one."""
        if not self.templates:
            raise ChatTemplateError(self.problem or "this tokenizer has no chat template (none in "
                                    "tokenizer_config.json, chat_template.jinja or additional_chat_templates/)")
        if name is not None:
            if name not in self.templates:
                raise ChatTemplateError(f"no chat template named {name!r} (there are: {', '.join(self.names())})")
            return self.templates[name]
        if tools and "tool_use" in self.templates:
            return self.templates["tool_use"]
        if "default" in self.templates:
            return self.templates["default"]
        if len(self.templates) == 1:
            return next(iter(self.templates.values()))
        raise ChatTemplateError(f"several chat templates and none is the default: name one of {', '.join(self.names())}")


@dataclass
class Conversation:
    """What a template renders: messages (the OpenAI / HF format), and optional tools and documents."""

    messages: list[dict]
    tools: list[dict] | None = None
    documents: list[dict] | None = None

    def to_json(self) -> dict:
        out: dict = {"messages": self.messages}
        if self.tools is not None:
            out["tools"] = self.tools
        if self.documents is not None:
            out["documents"] = self.documents
        return out


def conversation_from_json(data, where: str | Path = "<conversation>") -> Conversation:
    """A conversation from parsed JSON: a list of messages, or {"messages": [...], "tools": [...],
    "documents": [...]}.  Each message is an object with a string "role"; "content" is a string, a
    list of parts ({"type": "text", "text": ...}) or absent (an assistant's tool calls)."""
    tools = documents = None
    if isinstance(data, dict):
        if "messages" not in data:
            raise TokvizError('expected a list of messages or an object with "messages"', where)
        tools, documents, data = data.get("tools"), data.get("documents"), data["messages"]
    if not isinstance(data, list):
        raise TokvizError(f"messages: expected a list, got {type(data).__name__}", where)
    for k, message in enumerate(data):
        if not isinstance(message, dict):
            raise TokvizError(f"message {k + 1}: expected an object, got {type(message).__name__}", where)
        if not isinstance(message.get("role"), str):
            raise TokvizError(f'message {k + 1}: "role" must be a string', where)
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise TokvizError(f'message {k + 1}: "content" must be a string or a list of parts', where)
    for key, value in (("tools", tools), ("documents", documents)):
        if value is not None and not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
            raise TokvizError(f'"{key}": expected a list of objects', where)
    return Conversation(data, tools, documents)

# A conversation file is read whole (and rendered whole): a few MB at most in practice.
MAX_CONVERSATION_FILE = 256 << 20


def read_conversation(path: str | Path) -> Conversation:
    """A conversation from a JSON file (see `conversation_from_json`)."""
    path = Path(path)
    raw = read_limited(path, MAX_CONVERSATION_FILE, "a conversation file")
    encoding = unicode_encoding(raw[:4096])
    if encoding is not None:
        raise TokvizError(other_unicode_message(encoding), path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TokvizError(f"not UTF-8 (invalid byte 0x{raw[exc.start]:02x} at offset {exc.start})", path) from None
    except json.JSONDecodeError as exc:
        raise TokvizError(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", path) from None
    return conversation_from_json(data, path)


# ---- rendering ---------------------------------------------------------------------------------

def _environment(max_chars: int):
    """A Jinja environment like transformers' for chat templates, with size limits."""
    import jinja2
    from jinja2 import nodes
    from jinja2.ext import Extension, loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from jinja2.utils import Namespace

    def too_big(what: str):
        raise ChatTemplateError(f"the template asks for {what}, more than the limit of {max_chars:,} characters")

    class GenerationBlocks(Extension):
        """`{% generation %}...{% endgeneration %}` (marks an assistant's text): rendered as its body."""

        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller):
            return caller()

    class BoundedEnvironment(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context, operator, left, right):
            if operator == "*":
                for seq, n in ((left, right), (right, left)):
                    if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > max_chars:
                        too_big(f"{len(seq):,} x {n:,} items")
            elif isinstance(right, int) and abs(right) > 4096 and isinstance(left, (int, float)) and abs(left) > 1:
                too_big(f"a power of {right:,}")
            return super().call_binop(context, operator, left, right)

        def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (jinja's signature)
            for value in (*args, *kwargs.values()):
                if isinstance(value, int) and not isinstance(value, bool) and value > max_chars:
                    too_big(f"{value:,} (in a call)")
            return super().call(__context, __obj, *args, **kwargs)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.now().strftime(fmt)

    class TemplateDict:
        """`dict(...)` for templates, without the type's own attributes."""

        def __call__(self, *args, **kwargs):
            return dict(*args, **kwargs)

        def fromkeys(self, *args, **kwargs):
            return dict.fromkeys(*args, **kwargs)

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

    def center(value, width=80):
        if width > max_chars:
            too_big(f"a width of {width:,}")
        return str(value).center(width)

    env = BoundedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationBlocks, loopcontrols])
    env.filters["tojson"] = tojson
    env.filters["center"] = center
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = TemplateNamespace
    return env


_compiled: dict[tuple[str, int], object] = {}


def _compile(source: str, max_chars: int, origin: str | None):
    key = (source, max_chars)
    template = _compiled.get(key)
    if template is None:
        import jinja2

        try:
            template = _environment(max_chars).from_string(source)
        except jinja2.TemplateSyntaxError as exc:
            raise ChatTemplateError(f"the chat template does not compile: {exc.message} (line {exc.lineno})",
                                    origin) from None
        if len(_compiled) > 32:
            _compiled.clear()
        _compiled[key] = template
    return template


def _template_messages(messages: list[dict]) -> list[dict]:
    """The messages as transformers hands them to a template: keys whose value is None dropped,
    and a message's reasoning under both names templates read."""
    out = []
    for message in messages:
        message = {k: v for k, v in message.items() if v is not None}
        reasoning = next((message[k] for k in _REASONING_KEYS if message.get(k) is not None), None)
        if reasoning is not None:
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out


def _run_bounded(generate, time_limit: float, max_chars: int, cancelled) -> str:
    """Join what `generate()` yields, stopping it past `time_limit` seconds or when `cancelled()`
    (both checked as the template's Python code runs, so a loop that yields nothing is stopped
    too), or past `max_chars`."""
    deadline = time.monotonic() + time_limit
    steps = 0

    def tracer(frame, event, arg):
        nonlocal steps
        steps += 1
        if steps & 1023 == 0:
            if cancelled is not None and cancelled():
                raise Cancelled()
            if time.monotonic() > deadline:
                raise ChatTemplateError(f"the chat template ran for more than {time_limit:g} s and was stopped")
        return tracer

    parts: list[str] = []
    size = 0
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        for part in generate():
            size += len(part)
            if size > max_chars:
                raise ChatTemplateError(f"the rendered text passed the limit of {max_chars:,} characters")
            parts.append(part)
    finally:
        sys.settrace(previous)
    return "".join(parts)


def render(template: ChatTemplate | str, conversation: Conversation, *, add_generation_prompt: bool = False,
           variables: dict | None = None, time_limit: float = TIME_LIMIT, max_chars: int = MAX_CHARS,
           cancelled=None) -> str:
    """The text `template` makes of the conversation (transformers' `apply_chat_template(...,
    tokenize=False)`); `variables` are the tokenizer's special tokens and any extra keyword a
    template reads.  A template that raises, or passes a limit, raises ChatTemplateError;
    `cancelled()` true while it runs raises Cancelled."""
    import jinja2

    source, origin = (template.source, template.origin) if isinstance(template, ChatTemplate) else (template, None)
    compiled = _compile(source, max_chars, origin)
    context = dict(variables or {})
    context.update(messages=_template_messages(conversation.messages), tools=conversation.tools,
                   documents=conversation.documents, add_generation_prompt=add_generation_prompt)
    try:
        return _run_bounded(lambda: compiled.generate(**context), time_limit, max_chars, cancelled)
    except ChatTemplateError as exc:
        raise ChatTemplateError(exc.reason, origin) from None
    except jinja2.TemplateError as exc:
        raise ChatTemplateError(f"the chat template raised: {exc.message or exc}", origin) from None
    except RecursionError:
        raise ChatTemplateError("the chat template recursed too deeply", origin) from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError, OverflowError) as exc:
        raise ChatTemplateError(f"the chat template failed: {type(exc).__name__}: {exc}", origin) from None


@dataclass
class ChatCount:
    """A rendered conversation and its tokens."""

    text: str
    ids: list[int]
    per_message: list[int | None]  # tokens each message adds (None: a conversation ending there does not render)
    prompt: int  # tokens of the generation prompt (0 when not asked for)
    errors: list[str | None]  # why a message's count is None


def count(tokenizer, template: ChatTemplate, conversation: Conversation, *, add_generation_prompt: bool = False,
          variables: dict | None = None, time_limit: float = TIME_LIMIT, max_chars: int = MAX_CHARS,
          cancelled=None, progress=None) -> ChatCount:
    """Render and tokenize the conversation, and count the tokens each message adds: the tokens of
    the conversation up to it less those of the one before it (each rendered without the prompt).
    `cancelled()` is asked before each render (True: raise Cancelled); `progress(done, total)` is
    told of each."""
    kwargs = {"variables": variables, "time_limit": time_limit, "max_chars": max_chars, "cancelled": cancelled}
    text = render(template, conversation, add_generation_prompt=add_generation_prompt, **kwargs)
    ids = tokenizer.encode_ids(text)
    lengths: list[int | None] = [0]
    errors: list[str | None] = []
    messages = conversation.messages
    for k in range(1, len(messages) + 1):
        if cancelled is not None and cancelled():
            raise Cancelled()
        if progress is not None:
            progress(k, len(messages))
        if k == len(messages) and not add_generation_prompt:
            lengths.append(len(ids))
            errors.append(None)
            continue
        prefix = Conversation(messages[:k], conversation.tools, conversation.documents)
        try:
            lengths.append(len(tokenizer.encode_ids(render(template, prefix, **kwargs))))
            errors.append(None)
        except ChatTemplateError as exc:
            lengths.append(None)
            errors.append(exc.reason)
    per_message = [b - a if a is not None and b is not None else None for a, b in zip(lengths, lengths[1:])]
    prompt = len(ids) - lengths[-1] if add_generation_prompt and lengths[-1] is not None else 0
    return ChatCount(text, ids, per_message, prompt, errors)
