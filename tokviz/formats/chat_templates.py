"""The chat templates beside a tokenizer, found as transformers' `from_pretrained` finds them in a
folder:

- `chat_template.jinja` (the default) and `additional_chat_templates/NAME.jinja` (named ones); when
  there is any, they replace what tokenizer_config.json holds;
- else `chat_template` in tokenizer_config.json: one template, or a list of {"name", "template"};
- else `chat_template.json` ({"chat_template": ...}, as processors write it).

The variables a template is rendered with are the config's special tokens (bos_token, eos_token,
unk_token, sep_token, pad_token, cls_token, mask_token), as transformers' `special_tokens_map`.
A template that cannot be read does not stop the tokenizer from loading: its reason is kept
(`ChatTemplates.problem`) and given when a conversation is rendered.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..core.chat import ChatTemplate, ChatTemplates
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from ..paths import os_error_reason, read_limited, regular_file_or_none
from .hf_config import read_config, special_token_texts

# A chat template is a few KB of Jinja; tokenizer_config.json files that embed one are read as tokenizer files.
MAX_TEMPLATE_FILE = 64 << 20


def _read_text(path: Path) -> str:
    data = read_limited(path, MAX_TEMPLATE_FILE, "a chat template file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "not UTF-8 (invalid byte at offset {offset})"),
                                  offset=exc.start), path) from None


def _from_files(folder: Path) -> dict[str, ChatTemplate]:
    found = {}
    default = folder / "chat_template.jinja"
    if regular_file_or_none(default, "a chat template file") is not None:
        found["default"] = ChatTemplate("default", _read_text(default), str(default))
    extra = folder / "additional_chat_templates"
    if extra.is_dir():
        for path in sorted(extra.glob("*.jinja")):
            name = path.name.removesuffix(".jinja")
            found[name] = ChatTemplate(name, _read_text(path), str(path))
    return found


def _from_value(value, origin: Path, key: str) -> dict[str, ChatTemplate]:
    """Templates from a "chat_template" value: a string, or a list of {"name", "template"}."""
    if isinstance(value, str):
        return {"default": ChatTemplate("default", value, str(origin))}
    if isinstance(value, list):
        found = {}
        for k, item in enumerate(value):
            if not (isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("template"), str)):
                raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", '{key}[{k}]: expected {{"name": ..., "template": ...}} '
                                                                    'with two strings'), key=key, k=k), origin)
            found[item["name"]] = ChatTemplate(item["name"], item["template"], str(origin))
        return found
    raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "{key}: expected a string or a list of named templates, got "
                                                        "{kind}"), key=key, kind=type(value).__name__), origin)


def read_chat_templates(folder: Path) -> ChatTemplates:
    """The chat templates of the tokenizer in `folder` (none: an empty ChatTemplates)."""
    out = ChatTemplates()
    try:
        config = read_config(folder)
        if config is not None:
            out.variables = special_token_texts(config, {})
        templates = _from_files(folder)
        if not templates and config is not None and config.data.get("chat_template") is not None:
            templates = _from_value(config.data["chat_template"], config.path, "chat_template")
        processor_file = folder / "chat_template.json"
        if not templates and regular_file_or_none(processor_file, "a chat template file") is not None:
            try:
                data = json.loads(_read_text(processor_file))
            except json.JSONDecodeError as exc:
                raise TokvizError(Message(QT_TRANSLATE_NOOP("chat", "not JSON: {error} (line {line})"), error=exc.msg,
                                          line=exc.lineno), processor_file) from None
            if not isinstance(data, dict) or "chat_template" not in data:
                raise TokvizError(QT_TRANSLATE_NOOP("chat", 'expected an object with "chat_template"'), processor_file)
            templates = _from_value(data["chat_template"], processor_file, "chat_template")
        out.templates = templates
    except TokvizError as exc:
        out.problem = _with_path(exc)
    except OSError as exc:  # (e.g. additional_chat_templates/ that cannot be listed)
        out.problem = _with_path(TokvizError(os_error_reason(exc), exc.filename or folder))
    return out


def _with_path(exc: TokvizError) -> str:
    """str(exc), "path: reason", as a Message whose reason is shown translated."""
    if not exc.path:
        return exc.reason
    return Message(QT_TRANSLATE_NOOP("chat", "{path}: {reason}"), path=exc.path, reason=exc.reason)
