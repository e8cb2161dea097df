"""The tokenizer model: pure Python (+ regex, numpy), never Qt."""
from .added import AddedToken
from .encoding import Encoding
from .tokenizer import Source, Tokenizer

__all__ = ["AddedToken", "Encoding", "Source", "Tokenizer"]
