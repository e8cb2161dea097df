"""Text from the layers without Qt (`tokviz.messages`), shown in the app's language."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...messages import Joined, Message, Template


def show(text) -> str:
    """`text` as the app shows it: a Template translated, a Message's template translated then
    filled with its parameters (themselves shown), a Joined list joined by its translated
    separator; any other text as it is.  A translation whose placeholders do not fit the
    parameters falls back to the English."""
    if isinstance(text, Message):
        context = text.context
        if context is None:
            return str(text)
        params = {k: show(v) if isinstance(v, str) else v for k, v in text.params.items()}
        try:
            return QCoreApplication.translate(context, text.template).format(**params)
        except (KeyError, IndexError, ValueError, AttributeError):
            return str(text)
    if isinstance(text, Joined):
        return show(text.separator).join(show(item) for item in text.items)
    if isinstance(text, Template):
        return QCoreApplication.translate(text.context, text)
    return str(text)
