"""tokviz: see exactly how a tokenizer cuts text.

    >>> import tokviz
    >>> tok = tokviz.load("cl100k_base.tiktoken")
    >>> tok.encode("hello world").ids
    [15339, 1917]
"""
from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # (typing's own constant costs an import of typing; checkers know this name)
__version__ = "0.1.0"

__all__ = ["load", "save", "can_write", "WRITE_FORMATS", "Tokenizer", "Encoding", "AddedToken", "Source", "TokvizError", "Cancelled", "__version__"]

# The public names are imported on first use (PEP 562): `import tokviz` stays light, so that the
# console script installs its signal policy before numpy and the tokenizer core load.
_HOME = {
    "load": ".formats", "save": ".formats", "can_write": ".formats", "WRITE_FORMATS": ".formats",
    "Tokenizer": ".core", "Encoding": ".core", "AddedToken": ".core", "Source": ".core",
    "TokvizError": ".errors", "Cancelled": ".errors",
}

if TYPE_CHECKING:
    from .core import AddedToken, Encoding, Source, Tokenizer
    from .errors import Cancelled, TokvizError
    from .formats import WRITE_FORMATS, can_write, load, save


def __getattr__(name: str):
    home = _HOME.get(name)
    if home is not None:
        value = getattr(import_module(home, __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):  # a sub-module, as `tokviz.formats` after a plain `import tokviz`
        try:
            return import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
