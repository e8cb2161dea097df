"""A tokenizer sent to the workers as its bytes: pickled here, loaded there from memory.

    >>> payload = TokenizerPayload.of(tok)          # here: what the tokenizer is, a few MB
    >>> future = client.scatter(payload, broadcast=True, hash=False)
    >>> tasks.shipped_tokenizer(payload)            # on a worker: unpickled once per process

The tokenizer goes as it is in memory (an edited, unsaved or trained one too), so the workers need
neither its file nor a file system shared with this machine.  What a tokenizer builds on its
first encode (the native encoder, per-id tables, caches) stays here and is built again on the
worker; a functools.lru_cache travels as its function and size (empty).
"""
from __future__ import annotations

import functools
import hashlib
import io
import pickle

from ..errors import TokvizError


def _tokenizer_from_state(cls, state: dict):
    tok = object.__new__(cls)
    tok.__dict__.update(state)
    return tok


def _lru_cached(function, maxsize, typed):
    return functools.lru_cache(maxsize=maxsize, typed=typed)(function)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        from ..core.tokenizer import Tokenizer

        if isinstance(obj, Tokenizer):
            state = dict(obj.__dict__)
            # what the first encode builds (the native encoder is a C object that does not pickle)
            state.update(_native=None, _tables=None, _warmed=False, _bytes_cache={})
            return _tokenizer_from_state, (type(obj), state)
        if isinstance(obj, functools._lru_cache_wrapper):
            params = obj.cache_parameters()
            return _lru_cached, (obj.__wrapped__, params["maxsize"], params["typed"])
        return NotImplemented


def tokenizer_bytes(tokenizer) -> bytes:
    """`tokenizer` pickled without what it builds on use (see the module doc); TokvizError if
    something in it cannot be pickled."""
    out = io.BytesIO()
    try:
        _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(tokenizer)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise TokvizError(f"this tokenizer cannot be sent to the cluster's workers ({type(exc).__name__}: {exc})",
                          tokenizer.source.path) from None
    return out.getvalue()


class TokenizerPayload:
    """A tokenizer's pickled bytes and their digest (the workers keep one tokenizer per digest)."""

    __slots__ = ("blob", "digest", "name")

    def __init__(self, blob: bytes, name: str | None = None):
        self.blob = blob
        self.digest = hashlib.blake2b(blob, digest_size=16).hexdigest()
        self.name = name

    @classmethod
    def of(cls, tokenizer) -> "TokenizerPayload":
        return cls(tokenizer_bytes(tokenizer), tokenizer.source.name or tokenizer.source.path)

    def load(self):
        return pickle.loads(self.blob)

    def __getstate__(self):
        return (self.blob, self.digest, self.name)

    def __setstate__(self, state):
        self.blob, self.digest, self.name = state

    def __sizeof__(self) -> int:  # (what Dask counts as the payload's memory on a worker)
        return len(self.blob) + 200

    def __repr__(self) -> str:
        return f"TokenizerPayload({self.name!r}, {len(self.blob):,} bytes, {self.digest[:8]})"
