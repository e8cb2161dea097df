"""Text for people from the layers without Qt (analysis, train), translatable where the GUI shows it.

A message is a `str`: the English text, exactly as before, so the command line prints it, JSON
writes it and tests compare it unchanged.  It also remembers what it was made from, so that the
GUI can show it in the app's language (`tokviz.gui.widgets.messages.show`):

    >>> note = Message(QT_TRANSLATE_NOOP("overlap", "{b} holds all {n:,} tokens of {a}"), a="x", b="y", n=1200)
    >>> note
    'y holds all 1,200 tokens of x'
    >>> note.template, note.params
    ('{b} holds all {n:,} tokens of {a}', {'a': 'x', 'b': 'y', 'n': 1200})

* `QT_TRANSLATE_NOOP(context, text)`: a `Template`, the text itself (a str) that knows its
  translation context.  pyside6-lupdate finds calls by this name in the source and puts the text
  in the .ts under `context`, so every template must be written out as a literal in such a call.
  A template used without parameters is shown as it is (translated, never formatted).
* `Message(template, **params)`: `template.format(**params)`.  Keep a number's format in the
  template ({n:,}, {share:.1%}) so that both languages write it alike; a parameter may itself be a
  Template, Message or Joined, translated in turn where shown.
* `Joined(separator, items)`: `separator.join(items)`, the separator a Template ("; " → "；").

Plain data, no Qt: core, analysis and train import this module, never Qt.
"""
from __future__ import annotations

from collections.abc import Iterable

__all__ = ["QT_TRANSLATE_NOOP", "Joined", "Message", "Template"]


class Template(str):
    """A text to translate as it is, or the template of a Message; `context` is its translation
    context (the first argument of QT_TRANSLATE_NOOP)."""

    context: str

    def __new__(cls, context: str, text: str):
        self = super().__new__(cls, text)
        self.context = context
        return self

    def __reduce__(self):
        return Template, (self.context, str(self))


def QT_TRANSLATE_NOOP(context: str, text: str) -> Template:  # noqa: N802 (the name lupdate looks for)
    """`text`, marked for translation in `context` (see the module docstring)."""
    return Template(context, text)


class Message(str):
    """`template.format(**params)`, remembering both (see the module docstring)."""

    template: str
    params: dict

    def __new__(cls, template: str, /, **params):
        self = super().__new__(cls, template.format(**params))
        self.template = template
        self.params = params
        return self

    @property
    def context(self) -> str | None:
        return getattr(self.template, "context", None)

    def __reduce__(self):
        return _message, (self.template, self.params)


def _message(template: str, params: dict) -> Message:
    return Message(template, **params)


class Joined(str):
    """`separator.join(items)`, remembering both: a list in a sentence ("a; b; c")."""

    separator: str
    items: tuple

    def __new__(cls, separator: str, items: Iterable[str]):
        items = tuple(items)
        self = super().__new__(cls, separator.join(items))
        self.separator = separator
        self.items = items
        return self

    def __reduce__(self):
        return Joined, (self.separator, self.items)
