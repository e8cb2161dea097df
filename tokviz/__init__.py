"""tokviz: see exactly how a tokenizer cuts text.

    >>> import tokviz
    >>> tok = tokviz.load("cl100k_base.tiktoken")
    >>> tok.encode("hello world").ids
    [15339, 1917]
"""
from .core import AddedToken, Encoding, Source, Tokenizer
from .errors import Cancelled, TokvizError
from .formats import WRITE_FORMATS, can_write, load, save

__version__ = "0.1.0"

__all__ = ["load", "save", "can_write", "WRITE_FORMATS", "Tokenizer", "Encoding", "AddedToken", "Source", "TokvizError", "Cancelled", "__version__"]
