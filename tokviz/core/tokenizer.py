"""The Tokenizer: normalizer -> pre-tokenizer -> model -> post-processor, and a decoder back.

    >>> tok = tokviz.load("cl100k_base.tiktoken")
    >>> enc = tok.encode("hello world")
    >>> enc.ids, enc.offsets
    ([15339, 1917], [(0, 5), (5, 11)])
    >>> tok.decode(enc.ids)
    'hello world'
"""
from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from ..errors import SurrogateError, TokvizError, check_text
from ..messages import QT_TRANSLATE_NOOP, Message
from .added import AddedToken, AddedVocabulary
from .chat import ChatTemplates
from .bytelevel import unicode_to_bytes
from .decoders import Decoder
from .encoding import Encoding, LazyEncoding
from .gcpause import paused_gc
from .models.base import Model
from .normalized import NormalizedString, normalize_lines
from .normalizers import Normalizer
from .post_processors import PostProcessor
from .pre_tokenizers import PreTokenizer
from .surrogates import in_original, repair_surrogates

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
# Encoded once by Tokenizer.prepare: letters, digits, punctuation, runs of spaces, a tab, newlines,
# CJK and an emoji, so that each kind of piece has been through the encoder once.
WARM_UP_TEXT = "Hello, world! It's 2024: x = f(a, b)  # ok\n\tindented   spaces\r\n你好，世界 🙂\n"


def id_list(ids) -> list[int]:
    """`ids` as a list of ints (numpy integers and bools count, as in HF tokenizers' decode), or a
    TypeError saying what was given instead: decode takes ids, not text."""
    if isinstance(ids, str) or not isinstance(ids, Iterable):
        raise TypeError(f"decode takes a sequence of integer token ids, got {type(ids).__name__} {ids!r:.40}")
    ids = list(ids)
    try:
        return list(map(operator.index, ids))
    except TypeError:
        k, bad = next((k, i) for k, i in enumerate(ids) if not hasattr(type(i), "__index__"))
        raise TypeError(f"decode takes integer token ids, got {type(bad).__name__} {bad!r:.40} at position {k}") from None


def _is_partial(data: bytes) -> bool:
    """Whether a token's bytes hold only part of a UTF-8 character (they are not valid UTF-8)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _ids_of_parts(parts, seg_ids, seg_offsets, first: int):
    """The ids array of a text cut into `parts`, its plain segments' ids being segments `first`,
    first + 1, ... of (seg_ids, seg_offsets)."""
    import numpy as np

    from .id_arrays import ID_DTYPE

    pieces = []
    j = first
    for seg, tok in parts:
        if tok is not None:
            pieces.append(np.array([tok.id], ID_DTYPE))
        elif seg.text:
            pieces.append(seg_ids[seg_offsets[j] : seg_offsets[j + 1]])
            j += 1
    return np.concatenate(pieces) if pieces else np.zeros(0, ID_DTYPE)


def _repaired_if_needed(text):
    """(text, None) for text UTF-8 can encode (or not a str: encoding it says why), else
    `repair_surrogates(text)`."""
    if not isinstance(text, str) or text.isascii():
        return text, None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return repair_surrogates(text)
    return text, None


@dataclass
class Source:
    """Where a tokenizer came from: shown by `tokviz info` and the GUI."""

    format: str  # "hf-json", "gpt2", "tiktoken", "sentencepiece", "wordpiece-vocab", "minbpe", "trained"
    path: str | None = None
    name: str | None = None
    extra: dict = field(default_factory=dict)


def _encoder_stage(name: str, doc: str) -> property:
    """A pipeline stage the native encoder is built from: setting it drops the encoder built for
    the old one (the next encode builds one for the new pipeline)."""
    attr = "_" + name

    def get(self):
        return getattr(self, attr)

    def set(self, value):
        setattr(self, attr, value)
        self._native = None

    return property(get, set, doc=doc)


class Tokenizer:
    """A complete tokenizer pipeline.  Build one with `tokviz.load(path)`."""

    model = _encoder_stage("model", "The model (BPE, WordPiece, Unigram...).")
    normalizer = _encoder_stage("normalizer", "The normalizer, or None.")
    pre_tokenizer = _encoder_stage("pre_tokenizer", "The pre-tokenizer, or None.")
    text_normalizer = _encoder_stage("text_normalizer", "A whole-text normalizer (sentencepiece), or None.")

    def __init__(
        self,
        model: Model,
        *,
        normalizer: Normalizer | None = None,
        pre_tokenizer: PreTokenizer | None = None,
        post_processor: PostProcessor | None = None,
        decoder: Decoder | None = None,
        added_tokens: list[AddedToken] = (),
        special_in_text: bool = True,
        space_marker: str | None = None,
        source: Source | None = None,
        text_normalizer: Callable[[NormalizedString], NormalizedString] | None = None,
        decode_fn: Callable[[Tokenizer, list[int], bool], str] | None = None,
    ):
        """`special_in_text`: whether special-token strings typed in the text are matched as special
        tokens by default (True for HF tokenizers, False for tiktoken's encode_ordinary and
        sentencepiece).  `space_marker` is the character the vocabulary writes spaces as ('▁').
        `text_normalizer` replaces normalizer + added-token splitting for formats that normalize the
        whole text at once (sentencepiece); `decode_fn` replaces the decoder likewise."""
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.post_processor = post_processor
        self.decoder = decoder
        raw_specials = {t.content for t in added_tokens if t.special}
        self._kept_on_decode: frozenset[int] = frozenset()
        if normalizer is not None:
            # As in HF tokenizers, a `normalized` added token is known by its normalized form.
            added_tokens = [
                replace(t, content=normalizer.normalize_str(t.content)) if t.normalized else t for t in added_tokens
            ]
            # HF's decode skips a token whose string is a special token's content as written: a
            # special token the normalizer changes (e.g. "[MASK]" lowercased) is kept.
            self._kept_on_decode = frozenset(t.id for t in added_tokens if t.special and t.content not in raw_specials)
        self.added = AddedVocabulary(list(added_tokens))
        self.special_in_text = special_in_text
        self.space_marker = space_marker
        self.source = source or Source("tokviz")
        self.text_normalizer = text_normalizer
        self.decode_fn = decode_fn
        self.decode_skips_special = True  # decode's default; False where the reference keeps them (tiktoken)
        # Text with surrogates: repaired as tiktoken repairs it (True), or refused (the others).
        self.repairs_surrogates = False
        self.chat_templates = ChatTemplates()  # the formats that ship templates fill it
        self.byte_level = bool(pre_tokenizer is not None and pre_tokenizer.byte_level)
        self._bytes_cache: dict[int, bytes] = {}
        self._use_native = True
        self._native = None  # the native encoder, built on first use (False: not available)
        self._tables = None  # per-id token bytes, strings and partial flags (see _id_tables)
        self._warmed = False  # prepare() has encoded its text
        self.table_builds = 0  # how often the native encoder or the per-id tables were built

    def __copy__(self) -> Tokenizer:
        """A copy for an edit: the pipeline is shared (stages are never changed in place: an edit
        sets new ones on the copy), but the copy has its own source (where the copy is kept or
        exported is not where the original came from) and its own per-id byte cache."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.source = replace(self.source, extra=dict(self.source.extra))
        other._bytes_cache = {}
        return other

    def prepare(self) -> Tokenizer:
        """Build now what the first encode would otherwise build: the native encoder and its
        tables, the per-id token tables, the added-token matchers; then encode a short text once
        (the encoder's caches, one-time set-up of the process).  A loading worker calls it so that
        the first encode after a load is as fast as later ones.  Returns self.

        >>> tok = tokviz.load("qwen2.5/tokenizer.json").prepare()   # ~0.4 s, then ~1 ms encodes
        """
        if self.native_encoder() is not None:
            self._id_tables()
        for allow in (False, True):
            self.added.match_strings(allow)
        try:
            self.encode(WARM_UP_TEXT)
        except TokvizError:
            pass  # a vocabulary without these characters and no unknown token: nothing more to warm
        self._warmed = True
        return self

    @property
    def prepared(self) -> bool:
        """Whether `prepare()` has run and what it builds is still there (an edited copy whose
        model changed builds it again)."""
        native = self._native
        return self._warmed and (native is not None or not self._use_native) and (not native or self._tables is not None)

    # ---- native encoder --------------------------------------------------------------------
    def use_native(self, enabled: bool = True) -> Tokenizer:
        """Use the C encoder when the pipeline allows it (the default), or force the Python path.

        >>> tok.use_native(False).describe()["encoder"]
        'python'
        """
        self._use_native = bool(enabled)
        return self

    def native_encoder(self):
        """The tokviz.native encoder in use for this tokenizer, or None (Python path)."""
        if not self._use_native:
            return None
        encoder = self._native
        if encoder is None:  # (read once: another thread's rest() may drop it meanwhile)
            from .. import native

            encoder = self._native = native.encoder_for(self) or False
            self.table_builds += 1
        return encoder or None

    def clear_cache(self) -> None:
        """Forget the pieces the model has memoised (Python and native): the next encode starts
        cold, as in a fresh process.  Benchmarks call it so that repeated runs over the same
        text do not time a lookup of results already computed."""
        self.native_encoder()  # (built now if it was not: the next encode times the encode alone)
        self.release_caches()

    def release_caches(self) -> None:
        """Free the memoised pieces (Python and native) without building anything: for a tokenizer
        that rests (the next encode starts cold, and fills them again)."""
        cache = getattr(self.model, "_cache", None)
        if cache is not None:
            cache.clear()
        native = self._native if self._use_native else None
        if native:
            native.clear_cache()

    def rest(self) -> None:
        """Free all that the next encode builds again: the memoised pieces, the native encoder
        itself and the per-id tables (some 35 MB for a 150k vocabulary, built again in ~0.2 s).
        For a tokenizer open but out of sight; calls that encode meanwhile keep what they hold."""
        self.release_caches()
        if self._native:
            self._native = None
        self._tables = None
        self._bytes_cache = {}

    def native_cache_info(self) -> dict:
        """{caches, bytes, entries} of the native encoder's caches (all zero when it has none or
        the Python path is in use); it looks only at an encoder already built."""
        native = self._native if self._use_native else None
        if not native:
            return {"caches": 0, "bytes": 0, "entries": 0}
        return native.cache_info()

    # ---- vocabulary ----------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of distinct ids: the model's vocabulary plus added tokens outside it."""
        extra = sum(1 for t in self.added.tokens if self.model.id_to_token(t.id) is None)
        return self.model.vocab_size + extra

    def id_to_token(self, id: int) -> str | None:
        t = self.added.by_id.get(id)
        if t is not None:
            return t.content
        return self.model.id_to_token(id)

    def token_to_id(self, token: str) -> int | None:
        t = self.added.by_content.get(token)
        if t is not None:
            return t.id
        return self.model.token_to_id(token)

    def is_special(self, id: int) -> bool:
        return id in self.added.special_ids

    def token_bytes(self, id: int) -> bytes:
        """The bytes token `id` stands for in text (b' the' for 'Ġthe', b'ing' for '##ing')."""
        tables = self._tables
        if tables is not None and 0 <= id < len(tables[0]):
            data = tables[0][id]
            if data is not None:
                return data
        cached = self._bytes_cache.get(id)
        if cached is None:
            cached = self._compute_bytes(id)
            self._bytes_cache[id] = cached
        return cached

    def _compute_bytes(self, id: int) -> bytes:
        added = self.added.by_id.get(id)
        if added is not None:
            return added.content.encode("utf-8")
        piece = self.model.id_to_token(id)
        if piece is None:
            raise TokvizError(Message(QT_TRANSLATE_NOOP("core", "id {id} is not in the vocabulary (size {size})"), id=id,
                                      size=self.vocab_size))
        if self.byte_level:
            data = unicode_to_bytes(piece)
            if data is not None:
                return data
        m = _BYTE_PIECE.fullmatch(piece)
        if m and getattr(self.model, "byte_fallback", False):
            return bytes([int(m.group(1), 16)])
        prefix = getattr(self.model, "prefix", "")
        if prefix and piece.startswith(prefix) and piece != prefix:
            piece = piece[len(prefix):]
        suffix = getattr(self.model, "suffix", "")
        if suffix and piece.endswith(suffix):
            piece = piece[: -len(suffix)] + " "
        if self.space_marker:
            piece = piece.replace(self.space_marker, " ")
        return piece.encode("utf-8")

    # ---- encoding ------------------------------------------------------------------------
    def _segments(self, text: str, allow_special: bool):
        """Normalized pieces of text between added tokens, and the added tokens themselves."""
        root = NormalizedString(text)
        if self.text_normalizer is not None:
            yield self.text_normalizer(root), None
            return
        for seg, tok in self.added.split(root, normalized=False, allow_special=allow_special):
            if tok is not None:
                yield seg, tok
                continue
            ns = self.normalizer.normalize(seg) if self.normalizer else seg
            yield from self.added.split(ns, normalized=True, allow_special=allow_special)

    def _native_for(self, allow: bool):
        """The native encoder for a call, or None.  One that normalizes by itself takes raw text:
        always with a whole-text normalizer (sentencepiece: the text is never cut at added tokens,
        its model matches its own user-defined pieces), else (BERT) when no added token is matched
        in normalized text (the raw text is cut at the others first)."""
        native = self.native_encoder()
        if native is not None and native.normalizes and self.text_normalizer is None:
            if self.added.can_match(normalized=True, allow_special=allow):
                return None
        return native

    def _native_parts(self, native, text: str, allow: bool):
        """`_segments` for the native encoder: the raw text (cut at added tokens) when the
        encoder normalizes it itself."""
        if not native.normalizes:
            return list(self._segments(text, allow))
        if self.text_normalizer is not None:
            return [(NormalizedString(text), None)]
        return self.added.split(NormalizedString(text), normalized=False, allow_special=allow)

    def encode(self, text: str, *, add_special_tokens: bool = False, allow_special: bool | None = None) -> Encoding:
        """Encode `text`.

        add_special_tokens: add what the post-processor puts around a sequence ([CLS] ... [SEP]).
        allow_special: match special-token strings in the text as special tokens; None uses the
        format's reference behaviour (`special_in_text`).  Text with surrogate code points is
        refused (SurrogateError), or, where `repairs_surrogates` (tiktoken), encoded repaired
        (tokviz.core.surrogates) with offsets into `text`.

        >>> tok.encode("hi there").ids
        [6151, 1070]
        """
        try:
            return self._encode(text, add_special_tokens, allow_special)
        except SurrogateError:
            if not self.repairs_surrogates:
                raise
        repaired, starts = repair_surrogates(text)
        return in_original(self._encode(repaired, add_special_tokens, allow_special), text, starts)

    def _encode(self, text: str, add_special_tokens: bool, allow_special: bool | None) -> Encoding:
        if not isinstance(text, str):
            check_text(text)  # raises
        allow = self.special_in_text if allow_special is None else allow_special
        native = self._native_for(allow)
        if native is None:
            check_text(text)
            ids, offsets, special = self._encode_python(text, allow)
        else:
            if text and not self._post_processes(add_special_tokens):
                checked = self._encode_plain_checked(native, text, allow, 2)
                if checked is not None:
                    return LazyEncoding(text, *checked, self._id_tables())
            check_text(text)
            parts = self._native_parts(native, text, allow)
            if self._lazy_ok(native, parts, add_special_tokens):
                seg = parts[0][0]
                ids, packed = native.encoder.encode(seg.text, seg.base, 2)
                return LazyEncoding(text, ids, packed, self._id_tables())
            plain = [seg for seg, tok in parts if tok is None and seg.text]
            ids, offsets, special = self._assemble(parts, [native.encode_segment(seg) for seg in plain])
        return self._finish(text, ids, offsets, special, add_special_tokens, allow)

    def _encode_plain_checked(self, native, text: str, allow: bool, offsets: int):
        """`_encode_if_plain` of a str not yet checked for lone surrogates: the C encoder meets them
        as it reads the text, and only then is the text checked here, for the error that says where."""
        try:
            return self._encode_if_plain(native, text, allow, offsets)
        except ValueError:
            check_text(text)  # raises TokvizError at the lone surrogate
            raise

    def _encode_if_plain(self, native, text: str, allow: bool, offsets: int):
        """The C encoder's result for a text that needs no preparation (see `_checked_form`), or
        None: the text must go through `_native_parts`."""
        if native.python_split or native.normalizes:
            return None
        if self.normalizer is None and self.text_normalizer is None and self.added.matches_nothing(allow):
            return native.encoder.encode(text, 0, offsets)  # nothing to prepare, nothing to check
        form = self._checked_form(native, allow)
        if form is None:
            return None
        return native.encoder.encode(text, 0, offsets, form, self.added.match_strings(allow))

    def _lazy_ok(self, native, parts, add_special_tokens) -> bool:
        """Whether the text is one plain segment the native encoder takes as it is (the common
        case): then encode() returns a LazyEncoding straight from the native result."""
        if len(parts) != 1 or parts[0][1] is not None or native.python_split:
            return False
        seg = parts[0][0]
        return bool(seg.text) and seg.is_identity and not self._post_processes(add_special_tokens)

    def _post_processes(self, add_special_tokens: bool) -> bool:
        """Whether the post-processor adds tokens or changes offsets in this encode."""
        pp = self.post_processor
        return pp is not None and (add_special_tokens or pp.trims_offsets)

    def _encode_python(self, text: str, allow: bool):
        """The reference pipeline: ids, offsets and special flags of `text`."""
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        special: list[bool] = []
        for id, span, is_special, _ in self._pipeline(text, allow):
            ids.append(id)
            offsets.append(span)
            special.append(is_special)
        return ids, offsets, special

    def _pipeline(self, text: str, allow: bool):
        """(id, offsets, special, value) of each token of `text`, by the reference pipeline; the
        value is the token's text as the model saw it (HF tokenizers' Token.value)."""
        model = self.model
        pre = self.pre_tokenizer
        for seg, tok in self._segments(text, allow):
            if tok is not None:
                yield tok.id, seg.original_span(0, len(seg.text)), tok.special, tok.content
                continue
            if not seg.text:
                continue
            for piece in (pre.pre_tokenize([seg]) if pre else [seg]):
                span = piece.original_span
                for id, a, b in model.tokenize(piece.text):
                    yield id, span(a, b), False, piece.text[a:b]

    @staticmethod
    def _assemble(parts, encoded):
        """Interleave added tokens with the natively encoded plain segments (in order)."""
        if len(parts) == 1 and parts[0][1] is None and encoded:
            ids, offsets = encoded[0]
            return ids, offsets, [False] * len(ids)
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        special: list[bool] = []
        results = iter(encoded)
        for seg, tok in parts:
            if tok is not None:
                ids.append(tok.id)
                offsets.append(seg.original_span(0, len(seg.text)))
                special.append(tok.special)
            elif seg.text:
                i, o = next(results)
                ids.extend(i)
                offsets.extend(o)
                special.extend([False] * len(i))
        return ids, offsets, special

    def _token_values(self, text, ids, special, allow) -> list[str]:
        """Each token's value, which byte-level offset trimming looks at: the token's string, but
        for an unknown token of a Unigram model the text it stands for (HF's Unigram keeps the
        text there, where BPE and WordPiece put the unknown token's own string)."""
        unk = getattr(self.model, "unk_id", None)
        if self.model.kind == "Unigram" and unk is not None and any(i == unk and not sp for i, sp in zip(ids, special)):
            return [value for _, _, _, value in self._pipeline(text, allow)]
        return [self.id_to_token(i) or "" for i in ids]

    def _finish(self, text, ids, offsets, special, add_special_tokens, allow) -> Encoding:
        if self.post_processor is not None and self.post_processor.trims_offsets:
            offsets = self.post_processor.trim(self._token_values(text, ids, special, allow), offsets)
        if add_special_tokens and self.post_processor is not None:
            before, after = self.post_processor.wrap()
            ids = [i for i, _ in before] + ids + [i for i, _ in after]
            # (0, 0) for all of them, as HF tokenizers gives; offsets_arrays places them for display
            offsets = [(0, 0)] * len(before) + offsets + [(0, 0)] * len(after)
            special = [True] * len(before) + special + [True] * len(after)
        return self._encoding(text, ids, offsets, special)

    def _encoding(self, text, ids, offsets, special) -> Encoding:
        tables = self._id_tables() if self._native else None
        if tables is not None and (not ids or (min(ids) >= 0 and max(ids) < len(tables[0]))):
            by_id_bytes, by_id_piece, by_id_partial = tables
            token_bytes = list(map(by_id_bytes.__getitem__, ids))
            if None not in token_bytes:
                pieces = list(map(by_id_piece.__getitem__, ids))
                partial = list(map(by_id_partial.__getitem__, ids))
                if True in special:  # special tokens are never partial
                    partial = [p and not sp for p, sp in zip(partial, special)]
                return Encoding(text, ids, offsets, token_bytes, pieces, special, partial)
        token_bytes = [self.token_bytes(i) for i in ids]
        partial = [not sp and _is_partial(data) for data, sp in zip(token_bytes, special)]
        pieces = [self.id_to_token(i) or "" for i in ids]
        return Encoding(text, ids, offsets, token_bytes, pieces, special, partial)

    def _id_tables(self):
        """Token bytes, token string and partial flag of every id, as lists (built once; used on
        the native path, where building an Encoding would otherwise cost more than encoding)."""
        tables = self._tables
        if tables is None:
            by_bytes: list[bytes | None] = []
            by_piece: list[str] = []
            by_partial: list[bool] = []
            for i in range(self._id_table_size()):
                data, piece, partial = self._id_entry(i)
                by_bytes.append(data)
                by_piece.append(piece)
                by_partial.append(partial)
            tables = self._tables = (by_bytes, by_piece, by_partial)
            self.table_builds += 1
        return tables

    def _id_table_size(self) -> int:
        size = max(self.model.vocab_size, max((t.id + 1 for t in self.added.tokens), default=0))
        return max(size, max(self.model.vocab.values(), default=-1) + 1)

    def _id_entry(self, i: int) -> tuple[bytes | None, str, bool]:
        piece = self.id_to_token(i)
        # (not token_bytes: its cache would keep a second, dict copy of this column)
        data = (self._bytes_cache.get(i) or self._compute_bytes(i)) if piece is not None else None
        return data, piece or "", data is not None and _is_partial(data)

    def inherit_id_tables(self, original: Tokenizer, changed_ids) -> None:
        """Take `original`'s per-id tables for this copy of it, which has the same model and differs
        only at `changed_ids` (added tokens): the entries of every other id are the same objects,
        so an edit does not build a second set of them (151k token bytes for Qwen2.5)."""
        tables = original._tables
        if tables is None or self.model is not original.model:
            self._tables = None
            return
        by_bytes, by_piece, by_partial = (list(column) for column in tables)
        size = self._id_table_size()
        for column, empty in ((by_bytes, None), (by_piece, ""), (by_partial, False)):
            column.extend([empty] * (size - len(column)))
        self._tables = None  # (while the entries are computed: _id_entry must not read stale ones)
        for i in changed_ids:
            if 0 <= i < size:
                by_bytes[i], by_piece[i], by_partial[i] = self._id_entry(i)
        self._tables = (by_bytes, by_piece, by_partial)

    def encode_ids(self, text: str, *, add_special_tokens: bool = False, allow_special: bool | None = None) -> list[int]:
        """Only the ids of `encode(text)` (on the native path, without computing offsets).

        >>> tok.encode_ids("hi there")
        [6151, 1070]
        """
        try:
            return self._encode_ids(text, add_special_tokens, allow_special)
        except SurrogateError:
            if not self.repairs_surrogates:
                raise
        return self._encode_ids(repair_surrogates(text)[0], add_special_tokens, allow_special)

    def _encode_ids(self, text: str, add_special_tokens: bool, allow_special: bool | None) -> list[int]:
        allow = self.special_in_text if allow_special is None else allow_special
        native = self._native_for(allow)
        if native is None:
            return self.encode(text, add_special_tokens=add_special_tokens, allow_special=allow_special).ids
        if not isinstance(text, str):
            check_text(text)  # raises
        if text:
            ids = self._encode_plain_checked(native, text, allow, 0)
            if ids is not None:
                return self._ids_of([(None, None)], [ids], add_special_tokens)
        check_text(text)
        parts = self._parts_for_ids(native, text, allow)
        plain = [seg for seg, tok in parts if tok is None and seg.text]
        return self._ids_of(parts, [native.encode_segment(seg, False) for seg in plain], add_special_tokens)

    def _parts_for_ids(self, native, text: str, allow: bool):
        """`_native_parts` of a text the C check rejected, when only its ids are wanted.  With a
        normalizer that is one normal form, a text that holds no added token's string, before or
        after normalizing, is one segment: the text normalized whole, with no alignment computed
        (which would cost ~50x the encoding)."""
        from .. import native as native_module

        form = self._checked_form(native, allow)
        if form is not None and form >= 0:
            stops = self.added.match_strings(allow)
            if not stops or native.encoder.holds_none(text, stops):
                normalized = normalize_lines(native_module.FORM_NAMES[form], text)
                if not stops or native.encoder.holds_none(normalized, stops):
                    return [(NormalizedString(normalized), None)]
        return self._native_parts(native, text, allow)

    def encode_ids_batch(self, texts: list[str], threads: int | None = None, *, add_special_tokens: bool = False,
                         allow_special: bool | None = None, as_array: bool = False):
        """`encode_ids` of several texts, on `threads` native threads (default: one per core).

        as_array=True: (ids, offsets) numpy arrays instead of lists (see tokviz.core.id_arrays):
        every text's ids in one uint32 array, text i's at ids[offsets[i]:offsets[i + 1]].  The
        native encoders write them into one buffer, with no Python int per id.

        >>> ids, offsets = tok.encode_ids_batch(["hi there", "hi"], as_array=True)
        >>> ids.tolist(), offsets.tolist()
        ([6151, 1070, 6151], [0, 2, 3])
        """
        encode = self._encode_ids_arrays if as_array else self._encode_ids_batch
        try:
            return encode(texts, threads, add_special_tokens, allow_special)
        except SurrogateError:
            if not self.repairs_surrogates:
                raise
        repaired = [_repaired_if_needed(t)[0] for t in texts]
        return encode(repaired, threads, add_special_tokens, allow_special)

    def _encode_ids_arrays(self, texts, threads, add_special_tokens, allow_special):
        from . import id_arrays

        allow = self.special_in_text if allow_special is None else allow_special
        native = self._native_for(allow)
        if native is None or getattr(native, "encode_many_flat", None) is None:
            lists = self._encode_ids_batch(texts, threads, add_special_tokens, allow_special)
            return id_arrays.arrays_of_lists(lists)
        texts = list(texts)
        threads = threads or os.cpu_count() or 1
        form = self._checked_form(native, allow)
        if form is None:
            ids, offsets, replaced = self._arrays_cut_first(native, texts, allow, threads)
        else:
            ids, offsets, replaced = self._arrays_checked(native, texts, allow, form, threads)
        ids, offsets = id_arrays.splice(ids, offsets, replaced)
        if add_special_tokens and self.post_processor is not None:
            before, after = self.post_processor.wrap()
            ids, offsets = id_arrays.wrap(ids, offsets, [i for i, _ in before], [i for i, _ in after])
        return ids, offsets

    def _arrays_cut_first(self, native, texts, allow, threads):
        """(ids, offsets, replaced) as `_split_batch` cuts the texts: the ids of each text's plain
        segments in a row, and the whole ids of each text cut at an added token in `replaced`."""
        from .id_arrays import text_offsets

        all_parts, plain = self._split_batch(texts, allow, native)
        seg_ids, seg_offsets = self._encode_many_flat(native, texts, plain, threads)
        counts = [sum(1 for seg, tok in parts if tok is None and seg.text) for parts in all_parts]
        replaced = {}
        first = 0
        for i, parts in enumerate(all_parts):
            if any(tok is not None for _, tok in parts):
                replaced[i] = _ids_of_parts(parts, seg_ids, seg_offsets, first)
            first += counts[i]
        return seg_ids, text_offsets(seg_offsets, counts), replaced

    def _arrays_checked(self, native, texts, allow, form, threads):
        """(ids, offsets, replaced) as `_encode_checked` does it: the C threads encode the texts
        that need no preparation; those they reject are cut here, encoded in a second call, and
        their ids put in `replaced`."""
        for text in texts:
            if not isinstance(text, str):
                check_text(text)  # raises
        ids, offsets, rejected = self._encode_many_flat(native, texts, None, threads,
                                                        checked=(form, self.added.match_strings(allow)))
        replaced = {}
        if not rejected:
            return ids, offsets, replaced
        rejected_parts = []
        plain = []
        for i in rejected:
            parts = self._parts_for_ids(native, texts[i], allow)
            if len(parts) != 1 or parts[0][0].text is not texts[i]:
                check_text(texts[i])  # (a text the C encoder sees whole, it checks itself)
            rejected_parts.append(parts)
            plain.extend(seg for seg, tok in parts if tok is None and seg.text)
        seg_ids, seg_offsets = self._encode_many_flat(native, texts, plain, threads)
        first = 0
        for i, parts in zip(rejected, rejected_parts):
            replaced[i] = _ids_of_parts(parts, seg_ids, seg_offsets, first)
            first += sum(1 for seg, tok in parts if tok is None and seg.text)
        return ids, offsets, replaced

    @staticmethod
    def _encode_many_flat(native, texts, plain, threads, checked=None):
        """native.encode_many_flat of `plain` (or encode_many_checked_flat of `texts`, with
        `checked` = (form, stops)), with check_text's clear error for a lone surrogate it met."""
        try:
            if checked is not None:
                return native.encode_many_checked_flat(texts, threads, *checked)
            return native.encode_many_flat(plain, threads)
        except ValueError:
            for text in texts:
                check_text(text)
            raise

    def _encode_ids_batch(self, texts, threads, add_special_tokens, allow_special) -> list[list[int]]:
        allow = self.special_in_text if allow_special is None else allow_special
        native = self._native_for(allow)
        kwargs = {"add_special_tokens": add_special_tokens, "allow_special": allow_special}
        if native is None:
            return [e.ids for e in self.encode_batch(texts, threads, **kwargs)]
        with paused_gc():
            all_parts, encoded = self._encode_texts(native, texts, allow, threads or os.cpu_count() or 1,
                                                    with_offsets=False)
        out = []
        pos = 0
        for parts in all_parts:
            count = sum(1 for seg, tok in parts if tok is None and seg.text)
            out.append(self._ids_of(parts, encoded[pos : pos + count], add_special_tokens))
            pos += count
        return out

    def _ids_of(self, parts, encoded, add_special_tokens) -> list[int]:
        if len(parts) == 1 and parts[0][1] is None and encoded:
            ids = encoded[0]
        else:
            ids = []
            results = iter(encoded)
            for seg, tok in parts:
                if tok is not None:
                    ids.append(tok.id)
                elif seg.text:
                    ids.extend(next(results))
        if add_special_tokens and self.post_processor is not None:
            before, after = self.post_processor.wrap()
            ids = [i for i, _ in before] + ids + [i for i, _ in after]
        return ids

    def _split_batch(self, texts, allow, native):
        """Each text cut at added tokens, and all plain segments of all texts in one list.

        When the C encoder takes the texts as they are (no normalizer, or one it applies itself; no
        added token that can match, or a whole-text normalizer, which never cuts at them; no
        pre-tokenizer in Python), each text is its one segment.  A text that reaches the C encoder
        whole is not checked for lone surrogates here: the C encoder finds them (see `_encode_many`)."""
        plain_pipeline = self.text_normalizer is None and self.normalizer is None
        never_cut = self.text_normalizer is not None or self.added.matches_nothing(allow)
        if not native.python_split and (plain_pipeline or native.normalizes) and never_cut:
            all_parts = []
            for text in texts:
                if not isinstance(text, str):
                    check_text(text)  # raises
                all_parts.append([(NormalizedString(text), None)])
            return all_parts, [parts[0][0] for parts in all_parts if parts[0][0].text]
        all_parts = []
        plain = []
        for text in texts:
            if not isinstance(text, str):
                check_text(text)  # raises
            parts = self._native_parts(native, text, allow)
            if len(parts) != 1 or parts[0][0].text is not text:
                check_text(text)  # (a text the C encoder sees whole, it checks itself)
            all_parts.append(parts)
            plain.extend(seg for seg, tok in parts if tok is None and seg.text)
        return all_parts, plain

    def _encode_texts(self, native, texts, allow, threads, **kwargs):
        """(parts of each text as `_native_parts` cuts it, the native results of all their plain
        segments in order): `_split_batch` then `native.encode_many`, or the checked path."""
        form = self._checked_form(native, allow)
        if form is None:
            all_parts, plain = self._split_batch(texts, allow, native)
            return all_parts, self._encode_many(native, texts, plain, threads, **kwargs)
        return self._encode_checked(native, texts, allow, form, threads, **kwargs)

    def _checked_form(self, native, allow):
        """The C text check's `form` (-1: no normalizer) when the C threads can tell by
        themselves which texts need no preparation, else None: a normalizer that is one Unicode
        normal form the C tables know, or none but added tokens that can match."""
        if native.python_split or native.normalizes or self.text_normalizer is not None:
            return None
        if self.normalizer is None:
            return None if self.added.matches_nothing(allow) else -1  # (the fast path takes the first)
        from .. import native as native_module

        return native_module.quick_check_form(self.normalizer)

    def _encode_checked(self, native, texts, allow, form, threads, **kwargs):
        """`_encode_texts` with the preparation moved into the C threads: a text in normal form
        `form` that holds no added token's string is encoded as it is; the others (rejected: None)
        are cut and normalized here, then encoded in a second native call."""
        for text in texts:
            if not isinstance(text, str):
                check_text(text)  # raises
        ids_only = not kwargs.get("with_offsets", True) and not kwargs.get("packed", False)
        results = self._encode_many(native, texts, None, threads, checked=(form, self.added.match_strings(allow)),
                                    **kwargs)
        all_parts = []
        encoded = []
        rejected_plain = []
        rejected_at = []  # where the results of the rejected texts' segments go in `encoded`
        for text, result in zip(texts, results):
            if result is not None:
                all_parts.append([(NormalizedString(text), None)])
                if text:
                    encoded.append(result)
                continue
            parts = self._parts_for_ids(native, text, allow) if ids_only else self._native_parts(native, text, allow)
            if len(parts) != 1 or parts[0][0].text is not text:
                check_text(text)  # (a text the C encoder sees whole, it checks itself)
            all_parts.append(parts)
            for seg, tok in parts:
                if tok is None and seg.text:
                    rejected_at.append(len(encoded))
                    rejected_plain.append(seg)
                    encoded.append(None)
        if rejected_plain:
            for at, result in zip(rejected_at, self._encode_many(native, texts, rejected_plain, threads, **kwargs)):
                encoded[at] = result
        return all_parts, encoded

    @staticmethod
    def _encode_many(native, texts, plain, threads, checked=None, **kwargs):
        """native.encode_many (or, with `checked` = (form, stops), native.encode_many_checked of the
        texts), with check_text's clear error for a lone surrogate it met."""
        try:
            if checked is not None:
                return native.encode_many_checked(texts, threads, *checked, **kwargs)
            return native.encode_many(plain, threads, **kwargs)
        except ValueError:
            for text in texts:
                check_text(text)
            raise

    def encode_batch(self, texts: list[str], threads: int | None = None, **kwargs) -> list[Encoding]:
        """Encode several texts, on `threads` worker threads (default: one per core).

        With the native encoder the texts are cut at added tokens in Python, then all their plain
        segments are encoded by `threads` native threads at once (the GIL released; with one
        thread, on the calling thread).  When the normalizer is one Unicode normal form (or there
        is none), the native threads first check each text and encode at once those that need no
        preparation (in normal form, no added token's string): only the others are prepared in
        Python."""
        try:
            return self._encode_batch(texts, threads, **kwargs)
        except SurrogateError:
            if not self.repairs_surrogates:
                raise
        repaired = [_repaired_if_needed(t) for t in texts]
        out = self._encode_batch([r[0] for r in repaired], threads, **kwargs)
        return [e if starts is None else in_original(e, text, starts) for e, text, (_, starts) in zip(out, texts, repaired)]

    def _encode_batch(self, texts: list[str], threads: int | None = None, **kwargs) -> list[Encoding]:
        allowed = kwargs.get("allow_special")
        native = self._native_for(self.special_in_text if allowed is None else allowed)
        if native is not None and len(texts) > 1 and set(kwargs) <= {"add_special_tokens", "allow_special"}:
            return self._encode_batch_native(native, texts, threads, **kwargs)
        if threads == 1 or len(texts) < 2:
            return [self.encode(t, **kwargs) for t in texts]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return list(pool.map(lambda t: self.encode(t, **kwargs), texts))

    def _encode_batch_native(self, native, texts, threads, add_special_tokens=False, allow_special=None):
        allow = self.special_in_text if allow_special is None else allow_special
        threads = threads or os.cpu_count() or 1
        tables = self._id_tables()
        out = []
        with paused_gc():  # the id lists hold only ints: walking them all finds nothing to free
            all_parts, encoded = self._encode_texts(native, texts, allow, threads, packed=True)
            encoded = iter(encoded)
            for text, parts in zip(texts, all_parts):
                if self._lazy_ok(native, parts, add_special_tokens) and parts[0][0].base == 0:
                    ids, packed = next(encoded)
                    out.append(LazyEncoding(text, ids, packed, tables))
                    continue
                results = [native.unpack(seg, *next(encoded)) for seg, tok in parts if tok is None and seg.text]
                ids, offsets, special = self._assemble(parts, results)
                out.append(self._finish(text, ids, offsets, special, add_special_tokens, allow))
        return out

    # ---- decoding ------------------------------------------------------------------------
    def decode(self, ids: list[int], *, skip_special_tokens: bool | None = None) -> str:
        """Text for `ids` as the format's reference library decodes it; special tokens are skipped
        or kept as its decode does by default (`decode_skips_special`) unless told."""
        if skip_special_tokens is None:
            skip_special_tokens = self.decode_skips_special
        ids = id_list(ids)
        for i in ids:
            if self.id_to_token(i) is None:
                raise TokvizError(Message(QT_TRANSLATE_NOOP("core", "cannot decode id {id}: not in the vocabulary (size "
                                                                    "{size})"), id=i, size=self.vocab_size))
        if self.decode_fn is not None:
            return self.decode_fn(self, ids, skip_special_tokens)
        special = self.added.special_ids - self._kept_on_decode
        tokens = [self.id_to_token(i) for i in ids if not (skip_special_tokens and i in special)]
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    # ---- description ---------------------------------------------------------------------
    def describe(self) -> dict:
        """Summary for `tokviz info` and the GUI ("encoder": "native" or "python"; what the
        native encoder does in "encoder_detail")."""
        native = self.native_encoder()
        return {
            "format": self.source.format,
            "path": self.source.path,
            "name": self.source.name,
            "model": self.model.kind,
            "model_detail": self.model.describe(),
            "vocab_size": self.vocab_size,
            "normalizer": self.normalizer.describe() if self.normalizer else None,
            "pre_tokenizer": self.pre_tokenizer.describe() if self.pre_tokenizer else None,
            "post_processor": self.post_processor.describe() if self.post_processor else None,
            "decoder": self.decoder.describe() if self.decoder else None,
            "special_tokens": [{"id": t.id, "content": t.content} for t in self.added.tokens if t.special],
            "added_tokens": sum(1 for t in self.added.tokens if not t.special),
            "byte_level": self.byte_level,
            "encoder": "python" if native is None else "native",
            "encoder_detail": "python" if native is None else native.describe(),
            "chat_templates": self.chat_templates.names(),
            **self.source.extra,
        }

    def __repr__(self) -> str:
        name = self.source.name or self.source.path or "tokenizer"
        return f"<Tokenizer {name!r} {self.model.kind} vocab={self.vocab_size}>"

    def encode_file(self, path, progress=None, cancel=None, **kw):
        """Ids of a UTF-8 file of any size, in bounded memory: see `tokviz.core.streaming.encode_file`."""
        from .streaming import encode_file

        return encode_file(self, path, progress=progress, cancel=cancel, **kw)
