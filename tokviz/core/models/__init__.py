"""Tokenization models: how one pre-tokenized piece becomes token ids."""
from .base import Model
from .bpe import BPE
from .longest_match import LongestMatch
from .unigram import Unigram
from .wordlevel import WordLevel
from .wordpiece import WordPiece

__all__ = ["Model", "BPE", "WordPiece", "Unigram", "WordLevel", "LongestMatch"]
