"""Chat templates: a conversation rendered to the text a model sees, as transformers renders it.

A chat template is Jinja code shipped with a tokenizer.  `render` runs it the way transformers'
`apply_chat_template(messages, tokenize=False)` does (a sandboxed, immutable Jinja environment with
trim_blocks and lstrip_blocks, loop controls, `{% generation %}` blocks, and the globals and filters
templates use: `raise_exception`, `tojson`, `strftime_now`, `dict`, `namespace`), with the
tokenizer's special tokens (`bos_token`, `eos_token`, ...) as variables.  Templates are code from a
file, so rendering is also bounded (`chat_sandbox`): no attribute access to Python internals, no
string or list longer than `max_chars`, no more than `time_limit` seconds, and no more than
chat_sandbox.MEMORY_CEILING bytes held, in a process of its own.

`count` adds what a token view needs: the rendered text's ids (as transformers tokenizes a
rendered template: no special tokens added on top) and the tokens each message adds.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Cancelled, TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import other_unicode_message, read_limited, unicode_encoding
from . import chat_sandbox

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
            raise ChatTemplateError(self.problem or QT_TRANSLATE_NOOP(
                "chat", "this tokenizer has no chat template (none in tokenizer_config.json, chat_template.jinja or "
                        "additional_chat_templates/)"))
        if name is not None:
            if name not in self.templates:
                raise ChatTemplateError(Message(QT_TRANSLATE_NOOP("chat", "no chat template named {name!r} (there are: "
                                                                          "{names})"), name=name,
                                                names=", ".join(self.names())))
            return self.templates[name]
        if tools and "tool_use" in self.templates:
            return self.templates["tool_use"]
        if "default" in self.templates:
            return self.templates["default"]
        if len(self.templates) == 1:
            return next(iter(self.templates.values()))
        raise ChatTemplateError(Message(QT_TRANSLATE_NOOP("chat", "several chat templates and none is the default: "
                                                                  "name one of {names}"), names=", ".join(self.names())))


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
            raise TokvizError(QT_TRANSLATE_NOOP("chat", 'expected a list of messages or an object with "messages"'), where)
        tools, documents, data = data.get("tools"), data.get("documents"), data["messages"]
    if not isinstance(data, list):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "messages: expected a list, got {kind}"),
                                  kind=type(data).__name__), where)
    for k, message in enumerate(data):
        if not isinstance(message, dict):
            raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "message {n}: expected an object, got {kind}"), n=k + 1,
                                      kind=type(message).__name__), where)
        if not isinstance(message.get("role"), str):
            raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", 'message {n}: "role" must be a string'), n=k + 1), where)
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", 'message {n}: "content" must be a string or a list of '
                                                                'parts'), n=k + 1), where)
    for key, value in (("tools", tools), ("documents", documents)):
        if value is not None and not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
            raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", '"{key}": expected a list of objects'), key=key), where)
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
        raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "not UTF-8 (invalid byte 0x{byte:02x} at offset {offset})"),
                                  byte=raw[exc.start], offset=exc.start), path) from None
    except json.JSONDecodeError as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "not JSON: {error} (line {line}, column {column})"),
                                  error=exc.msg, line=exc.lineno, column=exc.colno), path) from None
    return conversation_from_json(data, path)


# ---- rendering ---------------------------------------------------------------------------------

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


def render(template: ChatTemplate | str, conversation: Conversation, *, add_generation_prompt: bool = False,
           variables: dict | None = None, time_limit: float = TIME_LIMIT, max_chars: int = MAX_CHARS,
           cancelled=None) -> str:
    """The text `template` makes of the conversation (transformers' `apply_chat_template(...,
    tokenize=False)`); `variables` are the tokenizer's special tokens and any extra keyword a
    template reads.  A template that raises, or passes a limit, raises ChatTemplateError;
    `cancelled()` true while it runs raises Cancelled."""
    source, origin = (template.source, template.origin) if isinstance(template, ChatTemplate) else (template, None)
    context = dict(variables or {})
    context.update(messages=_template_messages(conversation.messages), tools=conversation.tools,
                   documents=conversation.documents, add_generation_prompt=add_generation_prompt)
    if cancelled is not None and cancelled():
        raise Cancelled()
    try:
        return chat_sandbox.render(source, context, time_limit=time_limit, max_chars=max_chars, cancelled=cancelled)
    except chat_sandbox.RenderCancelled:
        raise Cancelled() from None
    except chat_sandbox.RenderFailed as exc:
        raise ChatTemplateError(_failure_reason(exc, time_limit), origin) from None
    except MemoryError:
        raise ChatTemplateError(_failure_reason(chat_sandbox.RenderFailed("memory"), time_limit), origin) from None


def _failure_reason(exc, time_limit: float) -> str:
    """One line that says why a render gave no text."""
    message = " ".join(exc.message.split())  # (a template's own message may span lines)
    if exc.kind == "compile":
        return Message(QT_TRANSLATE_NOOP("chat", "the chat template does not compile: {message} (line {line})"),
                       message=message, line=exc.line)
    if exc.kind == "time":
        return Message(QT_TRANSLATE_NOOP("chat", "the chat template ran for more than {limit:g} s and was stopped"),
                       limit=time_limit)
    if exc.kind == "memory":
        return Message(QT_TRANSLATE_NOOP("chat", "the chat template used more than {mb} MB of memory while rendering "
                                                 "and was stopped"), mb=chat_sandbox.MEMORY_CEILING >> 20)
    if exc.kind == "raised":
        return Message(QT_TRANSLATE_NOOP("chat", "the chat template raised: {message}"), message=message)
    if exc.kind == "recursion":
        return QT_TRANSLATE_NOOP("chat", "the chat template recursed too deeply")
    if exc.kind == "failed":
        return Message(QT_TRANSLATE_NOOP("chat", "the chat template failed: {message}"), message=message)
    if exc.kind == "crashed":
        return Message(QT_TRANSLATE_NOOP("chat", "the chat template could not be rendered: {message}"), message=message)
    return message


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
