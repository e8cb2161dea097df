"""sentencepiece's encoding and decoding rules, reproduced without the sentencepiece library.

sentencepiece does not pre-tokenize: it normalizes the whole text at once (character map,
whitespace rules, '▁' for spaces) and runs its model over the result.

- `SentencePieceNormalizer`: user-defined symbols are matched first and kept as typed; elsewhere
  the longest rule of the precompiled character map applies; spaces are squeezed and trimmed
  (remove_extra_whitespaces), a '▁' is put in front (add_dummy_prefix, or behind with
  treat_whitespace_as_suffix), and spaces become '▁' (escape_whitespaces).
- `SentencePieceBPE`: merge the adjacent pair whose concatenation is a piece with the highest
  score, leftmost on ties; pieces marked unused are split back into the pair that formed them.
- `SentencePieceUnigram`: the best-scoring segmentation (Viterbi), with sentencepiece's scores for
  user-defined symbols and unknown characters and its single-precision path scores.
- Unknown characters become one merged unknown token per run, or <0xNN> byte pieces with
  byte_fallback.  `SentencePieceDecoder` turns ids back into text the way sentencepiece does.

    >>> norm = SentencePieceNormalizer(None)
    >>> norm.normalize_str("  Hello   world ")
    '▁Hello▁world'
"""
from __future__ import annotations

import copy
import heapq
import math
from abc import abstractmethod
from functools import cached_property
import re
import struct
from array import array

from ..errors import TokvizError
from .charsmap import CharsMap
from .models.base import BoundedCache, Model, Token
from .models.unigram import Unigram
from .normalized import NormalizedString

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
TYPE_NAMES = {NORMAL: "normal", UNKNOWN: "unknown", CONTROL: "control", USER_DEFINED: "user-defined",
              UNUSED: "unused", BYTE: "byte"}

SPACE = "\u2581"  # '▁'
DEFAULT_UNK_SURFACE = " \u2047 "  # ' ⁇ '
FLT_MAX = 3.4028234663852886e38
UNK_PENALTY = 10.0
SCORE_RESET = 100000.0  # sentencepiece re-bases Unigram path scores beyond this magnitude
_LONGER = object()  # a charsmap rule may extend beyond the characters looked at

_F32 = struct.Struct("<f")


def f32(x: float) -> float:
    """`x` rounded to single precision, as C++ stores a float."""
    return _F32.unpack(_F32.pack(x))[0]


USER_BONUS = f32(0.1)  # a user-defined symbol scores 0.1f per byte after its first


_BYTE_PIECE_NAMES = [f"<0x{b:02X}>" for b in range(256)]
_BYTE_PIECES = {name: b for b, name in enumerate(_BYTE_PIECE_NAMES)}


def piece_to_byte(piece: str) -> int | None:
    """The byte of a '<0xNN>' piece (upper-case hex, exactly as sentencepiece writes them)."""
    return _BYTE_PIECES.get(piece)


class PrefixMatcher:
    """Longest user-defined symbol at a position of a text (they are never normalized or split)."""

    def __init__(self, symbols):
        self.by_first: dict[str, list[str]] = {}
        for s in set(symbols):
            if s:
                self.by_first.setdefault(s[0], []).append(s)
        for group in self.by_first.values():
            group.sort(key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self.by_first)

    def match(self, text: str, i: int) -> str | None:
        group = self.by_first.get(text[i])
        if group:
            for s in group:
                if text.startswith(s, i):
                    return s
        return None


# ---------------------------------------------------------------------------------------------
# normalizer
# ---------------------------------------------------------------------------------------------
class SentencePieceNormalizer:
    """Normalizes a whole text the way sentencepiece's normalizer does, keeping character spans."""

    def __init__(
        self,
        charsmap: CharsMap | None,
        *,
        user_defined: PrefixMatcher | None = None,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
        name: str | None = None,
    ):
        self.charsmap = charsmap if charsmap is not None and not charsmap.is_empty else None
        self.user_defined = user_defined if user_defined else None
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self.name = name
        # Characters that start neither a user-defined symbol nor a charsmap rule (the fast path).
        self._plain: dict[str, bool] = {}
        self._pairs: dict[str, object] = {}

    def describe(self) -> str:
        flags = [k for k in ("add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces",
                             "treat_whitespace_as_suffix") if getattr(self, k)]
        return f"sentencepiece({self.name or ('charsmap' if self.charsmap else 'identity')}; {', '.join(flags)})"

    def _is_plain(self, c: str) -> bool:
        plain = self._plain.get(c)
        if plain is None:
            plain = not (self.user_defined and c in self.user_defined.by_first)
            if plain and self.charsmap is not None:
                plain = not self.charsmap.may_start(c)
            self._plain[c] = plain
        return plain

    def _prefix(self, text: str, i: int) -> tuple[int, str]:
        """(end, replacement) of the piece of input starting at `i`: a user-defined symbol as is,
        else the longest charsmap rule, else the character itself."""
        c = text[i]
        if self._is_plain(c):
            return i + 1, c
        if self.user_defined is not None:
            s = self.user_defined.match(text, i)
            if s is not None:
                return i + len(s), s
        if self.charsmap is None:
            return i + 1, c
        # Most rules are one or two characters long: cache them by the next two characters.
        key = text[i : i + 2]
        rule = self._pairs.get(key)
        if rule is None:
            rule = self._pairs[key] = self._rule(key, 0, len(key) == 2)
        if rule is _LONGER:
            rule = self._rule(text, i, False)
        if rule is False:
            return i + 1, c
        return i + rule[0], rule[1]

    def _rule(self, text: str, i: int, partial: bool):
        """Longest charsmap rule at text[i:]: (chars, replacement), False for none, or _LONGER when
        `partial` (text is only the start of the input) and a longer rule could still match."""
        width = 8
        while True:
            data = text[i : i + width].encode("utf-8")
            found, alive = self.charsmap.search(data)
            if alive and i + width < len(text):
                width *= 4
                continue
            break
        if alive and partial:
            return _LONGER
        if not found:
            return False
        nbytes, value = found[-1]
        try:
            nchars = len(data[:nbytes].decode("utf-8"))
        except UnicodeDecodeError:  # a rule ending inside a character: not in real maps
            return False
        return nchars, self.charsmap._string_at(value)

    def normalize_spans(self, text: str) -> tuple[str, list[int], list[int]]:
        """Normalized text and, per character, the [start, end) of `text` it came from."""
        n = len(text)
        i = 0
        remove_extra = self.remove_extra_whitespaces
        if remove_extra:
            while i < n:
                j, rep = self._prefix(text, i)
                if rep != " ":
                    break
                i = j
        if i >= n:
            return "", [], []
        space = SPACE if self.escape_whitespaces else " "
        out: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            out.append(space)
            starts.append(i)
            ends.append(i)
        is_prev_space = remove_extra
        plain = self._plain
        pairs = self._pairs
        ud_first = self.user_defined.by_first if self.user_defined is not None else {}
        escape = self.escape_whitespaces
        while i < n:
            c = text[i]
            is_plain = plain.get(c)
            if is_plain is None:
                is_plain = self._is_plain(c)
            if is_plain:
                j, rep = i + 1, c
            elif c in ud_first:
                j, rep = self._prefix(text, i)
            else:  # a charsmap rule: the cached ones here, the others through _prefix
                rule = pairs.get(text[i : i + 2])
                if rule is False:
                    j, rep = i + 1, c
                elif rule is None or rule is _LONGER:
                    j, rep = self._prefix(text, i)
                else:
                    j, rep = i + rule[0], rule[1]
            if rep == c and c != " ":  # the common case: the character stays as it is
                out.append(c)
                starts.append(i)
                ends.append(j)
                is_prev_space = False
                i = j
                continue
            if is_prev_space:
                rep = rep.lstrip(" ")
            if rep:
                for ch in rep:
                    out.append(space if (escape and ch == " ") else ch)
                    starts.append(i)
                    ends.append(j)
                is_prev_space = rep[-1] == " "
            if not remove_extra:
                is_prev_space = False
            i = j
        consumed = n
        if remove_extra:
            while out and out[-1] == space:
                consumed = starts[-1]
                out.pop()
                starts.pop()
                ends.pop()
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            out.append(space)
            starts.append(consumed)
            ends.append(consumed)
        return "".join(out), starts, ends

    def normalize_str(self, text: str) -> str:
        return self.normalize_spans(text)[0]

    def __call__(self, ns: NormalizedString) -> NormalizedString:
        """The text_normalizer hook of `Tokenizer`: spans point into the original text."""
        out, starts, ends = self.normalize_spans(ns.text)
        n = len(ns.text)
        if ns.is_identity:
            b = ns.base
            if b:
                starts = [b + s for s in starts]
                ends = [b + e for e in ends]
            return NormalizedString(out, b, starts, ends)
        os_, oe = ns.spans()
        end = ns.original_span(0, n)[1]
        # a position p of ns maps to the start of its character (or the end of the text)
        ms = [os_[s] if s < n else end for s in starts]
        me = [oe[e - 1] if e > s else (os_[s] if s < n else end) for s, e in zip(starts, ends)]
        return NormalizedString(out, ns.base, ms, me)


# ---------------------------------------------------------------------------------------------
# vocabulary shared by both models
# ---------------------------------------------------------------------------------------------
class PieceTable:
    """The pieces of a .model, sentencepiece's two lookup tables, and its load-time checks.

    Raises TokvizError (without a path; the reader adds it) for what sentencepiece refuses to
    load: empty or repeated pieces, no unknown piece or two, byte pieces without byte_fallback,
    byte_fallback without all 256 byte pieces.
    """

    def __init__(self, pieces: list[str], scores: list[float], types, *, byte_fallback: bool = False,
                 vocab: dict[str, int] | None = None, reserved_apart: bool = True):
        """`types`: a type code per piece (list or bytes); `vocab`, when the reader already has it:
        each piece -> its first id; `reserved_apart`: whether a string may be both a reserved
        piece and a normal one (sentencepiece's Unigram allows it, its BPE does not)."""
        self.pieces = pieces
        self.scores = scores
        self.types = types
        n = len(pieces)
        # Ids of the pieces that are not NORMAL (few: control, byte, ...), found at C speed.
        self.type_codes = bytes(types)
        last = len(self.type_codes.rstrip(b"\x01"))  # they usually come first: scan only up to the last
        special = [m.start() for m in re.finditer(rb"[^\x01]", self.type_codes[:last])]
        self.special_ids = special
        # piece -> first id, for everything (the Model vocabulary)
        if vocab is None:
            vocab = dict(zip(reversed(pieces), range(n - 1, -1, -1)))
        self.vocab: dict[str, int] = vocab
        if "" in self.vocab:
            raise TokvizError(f"piece {self.vocab['']} is empty")
        self.reserved: dict[str, int] = {}  # CONTROL, UNKNOWN, BYTE
        normal_kinds = (NORMAL, USER_DEFINED, UNUSED)
        by_type: dict[int, list[int]] = {}
        for i in special:
            t = types[i]
            by_type.setdefault(t, []).append(i)
            if t not in normal_kinds:
                p = pieces[i]
                if p in self.reserved:
                    raise TokvizError(f"piece {p!r} is defined twice (ids {self.reserved[p]} and {i})")
                self.reserved[p] = i
        if len(self.vocab) == n and not self.reserved:
            self.normal = self.vocab  # NORMAL, USER_DEFINED, UNUSED: what the model may produce
        elif len(self.vocab) == n:
            self.normal = dict(self.vocab)
            for p in self.reserved:
                del self.normal[p]
        elif not reserved_apart:
            seen: dict[str, int] = {}
            for i, p in enumerate(pieces):
                if p in seen:
                    raise TokvizError(f"piece {p!r} is defined twice (ids {seen[p]} and {i})")
                seen[p] = i
        else:  # some string is used twice: allowed once as reserved and once as normal
            self.normal = {}
            for i, (p, t) in enumerate(zip(pieces, types)):
                if t in normal_kinds:
                    if p in self.normal:
                        raise TokvizError(f"piece {p!r} is defined twice (ids {self.normal[p]} and {i})")
                    self.normal[p] = i
        unks = by_type.get(UNKNOWN, [])
        if not unks and not byte_fallback:
            raise TokvizError("no unknown piece (<unk>) is defined")
        if len(unks) > 1:
            raise TokvizError(f"two unknown pieces: {pieces[unks[0]]!r} (id {unks[0]}) and {pieces[unks[1]]!r} (id {unks[1]})")
        # With byte_fallback sentencepiece loads a model without an unknown piece: unknown text
        # always becomes byte pieces, so the unknown id (-1) is never produced.
        self.unk_id = unks[0] if unks else -1
        self.user_defined = [pieces[i] for i in by_type.get(USER_DEFINED, [])]
        self.unused = set(by_type.get(UNUSED, []))
        self.byte_ids: dict[int, int] = {}
        byte_pieces = by_type.get(BYTE, [])
        if byte_fallback and [pieces[i] for i in byte_pieces] == _BYTE_PIECE_NAMES:  # the usual <0x00>..<0xFF>
            self.byte_ids = dict(zip(range(256), byte_pieces))
            byte_pieces = []
        for i in byte_pieces:
            p = pieces[i]
            if not byte_fallback:
                raise TokvizError(f"byte piece {p!r} (id {i}) found although byte_fallback is off")
            b = piece_to_byte(p)
            if b is None:
                raise TokvizError(f"byte piece {p!r} (id {i}) is not of the form <0xNN>")
            self.byte_ids[b] = i
        if byte_fallback and len(self.byte_ids) != 256:
            raise TokvizError(f"byte_fallback is on but only {len(self.byte_ids)} of the 256 byte pieces exist")

    def piece_to_id(self, piece: str) -> int:
        """sentencepiece's PieceToId: reserved pieces first, then the others, else unknown."""
        i = self.reserved.get(piece)
        if i is None:
            i = self.normal.get(piece, self.unk_id)
        return i


def _finish(table: PieceTable, raw: list[Token], text: str, byte_fallback: bool) -> list[Token]:
    """sentencepiece's output rules: with byte fallback an unknown character becomes its UTF-8
    bytes as <0xNN> pieces (each pointing at the character); without, a run of unknowns is one."""
    unk = table.unk_id
    out: list[Token] = []
    if byte_fallback:
        byte_ids = table.byte_ids
        for id, a, b in raw:
            if id != unk:
                out.append((id, a, b))
                continue
            for k in range(a, b):
                for byte in text[k].encode("utf-8"):
                    out.append((byte_ids[byte], k, k + 1))
        return out
    for tok in raw:
        if tok[0] == unk and out and out[-1][0] == unk and out[-1][2] == tok[1]:
            out[-1] = (unk, out[-1][1], tok[2])
        else:
            out.append(tok)
    return out


# ---------------------------------------------------------------------------------------------
# BPE
# ---------------------------------------------------------------------------------------------
class SentencePieceBPE(Model):
    """sentencepiece's BPE: merges ranked by the score of the merged piece, not a merge list."""

    kind = "BPE"
    edited_from: Model | None = None  # the model read from a file that `with_new_pieces` extended

    def __init__(self, table: PieceTable, *, byte_fallback: bool = False, treat_whitespace_as_suffix: bool = False):
        super().__init__(table.vocab)
        self.table = table
        self.byte_fallback = byte_fallback
        self.unk_id = table.unk_id
        self.scores = table.scores
        self.unused = table.unused
        self.matcher = PrefixMatcher(table.user_defined)
        self.suffix_mode = treat_whitespace_as_suffix
        self._cache = BoundedCache()
        self._word_re = re.compile(f"[^{SPACE}]*{SPACE}*" if treat_whitespace_as_suffix else f"{SPACE}*[^{SPACE}]*")

    @cached_property
    def by_word(self) -> bool:
        """Whether words (cut at '▁') can be encoded one at a time, which makes a word cache exact:
        no piece may span a cut and no unused piece may need the whole text's merge history (see
        `_resegment`).  Decided on first use, not at load: it only chooses how to encode."""
        joined = "\0".join(self.table.normal)  # (sentencepiece cannot hold a piece with NUL anyway)
        pattern = f"{SPACE}[^{SPACE}\0]" if self.suffix_mode else f"[^{SPACE}\0]{SPACE}"
        return not re.search(pattern, joined) and not self.unused

    @cached_property
    def merge_scores(self):
        """The scores that rank merges.  sentencepiece (0.2, as built for Linux x86-64) ranks a
        piece scoring NaN above every other, +inf included, and two NaN pieces as equal (then the
        leftmost pair first), which measured on models given NaN scores at random is exactly
        what its merges do; so NaN ranks as +inf here and +inf just below it."""
        scores = self.scores
        if not any(map(math.isnan, scores)):
            return scores
        return [math.inf if math.isnan(v) else 1e300 if v == math.inf else v for v in scores]

    def describe(self) -> str:
        return "BPE (sentencepiece scores)" + (", byte fallback" if self.byte_fallback else "")

    def tokenize(self, text: str) -> list[Token]:
        if not self.by_word:
            raw = self.merge(text)
        else:
            raw = []
            cache = self._cache
            for a, b in self._words(text):
                word = text[a:b]
                toks = cache.get(word)
                if toks is None:
                    toks = self.merge(word)
                    cache.put(word, toks)
                if a:
                    raw.extend((id, s + a, e + a) for id, s, e in toks)
                else:
                    raw.extend(toks)
        return _finish(self.table, raw, text, self.byte_fallback)

    def _words(self, text: str):
        """[a, b) spans cut before each '▁' that follows another character (after, in suffix mode)."""
        for m in self._word_re.finditer(text):
            a, b = m.span()
            if b > a:
                yield a, b

    def merge(self, text: str) -> list[Token]:
        """(id, start, end) of `text` after all merges, before the unknown/byte-fallback rules."""
        n = len(text)
        if not n:
            return []
        # Initial symbols: user-defined symbols whole (and frozen), else single characters.
        starts: list[int] = []
        ends: list[int] = []
        frozen: list[bool] = []
        matcher = self.matcher
        i = 0
        while i < n:
            s = matcher.match(text, i) if matcher else None
            j = i + len(s) if s else i + 1
            starts.append(i)
            ends.append(j)
            frozen.append(s is not None)
            i = j
        m = len(starts)
        prev = list(range(-1, m - 1))
        nxt = list(range(1, m + 1))
        nxt[-1] = -1
        pieces = self.table.normal
        scores = self.merge_scores
        unused = self.unused
        rev_merge: dict[str, tuple[str, str]] = {}
        heap: list[tuple[float, int, int, int]] = []

        def add_pair(left: int, right: int) -> None:
            if frozen[left] or frozen[right]:
                return
            a, b = starts[left], ends[right]
            id = pieces.get(text[a:b])
            if id is None:
                return
            heapq.heappush(heap, (-scores[id], left, right, b - a))
            if id in unused:  # remember how it was formed, to undo it at the end
                rev_merge[text[a:b]] = (text[a : ends[left]], text[starts[right] : b])

        for k in range(1, m):
            add_pair(k - 1, k)
        while heap:
            _, left, right, size = heapq.heappop(heap)
            if starts[left] < 0 or starts[right] < 0 or ends[right] - starts[left] != size:
                continue  # stale: one side has changed since this pair was queued
            ends[left] = ends[right]
            starts[right] = -1
            after = nxt[right]
            nxt[left] = after
            if after >= 0:
                prev[after] = left
            if prev[left] >= 0:
                add_pair(prev[left], left)
            if after >= 0:
                add_pair(left, after)

        out: list[Token] = []
        k = 0
        while k >= 0:
            self._resegment(text[starts[k] : ends[k]], starts[k], rev_merge, out)
            k = nxt[k]
        return out

    def _resegment(self, piece: str, pos: int, rev_merge, out: list[Token]) -> None:
        """Emit `piece`, splitting unused pieces back into the pair that formed them (recursively).
        A piece that is left a reserved or unused piece (a single character typed CONTROL or
        UNUSED) comes out as unknown, as sentencepiece's BPE gives it."""
        table = self.table
        id = table.piece_to_id(piece)
        if id in self.unused:
            pair = rev_merge.get(piece)
            if pair is not None:
                self._resegment(pair[0], pos, rev_merge, out)
                self._resegment(pair[1], pos + len(pair[0]), rev_merge, out)
                return
            id = self.unk_id
        elif id >= 0 and piece in table.reserved:
            id = self.unk_id
        out.append((id, pos, pos + len(piece)))


# ---------------------------------------------------------------------------------------------
# CHAR and WORD
# ---------------------------------------------------------------------------------------------
class _WholePieces(Model):
    """A sentencepiece model that cuts the text without merging and looks each cut up whole."""

    edited_from: Model | None = None

    def __init__(self, table: PieceTable, *, byte_fallback: bool = False):
        super().__init__(table.vocab)
        self.table = table
        self.byte_fallback = byte_fallback
        self.unk_id = table.unk_id
        self.scores = table.scores
        self.unused = table.unused

    def _id(self, piece: str) -> int:
        """The id of a cut: a reserved or unused piece comes out unknown, as sentencepiece gives it."""
        table = self.table
        if piece in table.reserved:
            return self.unk_id
        id = table.normal.get(piece, self.unk_id)
        return self.unk_id if id in self.unused else id

    @abstractmethod
    def cuts(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of each cut of `text`, in characters."""

    def tokenize(self, text: str) -> list[Token]:
        raw = [(self._id(text[a:b]), a, b) for a, b in self.cuts(text)]
        return _finish(self.table, raw, text, self.byte_fallback)


class SentencePieceChar(_WholePieces):
    """sentencepiece's CHAR model: each character is a piece (a user-defined symbol whole)."""

    kind = "Char"

    def __init__(self, table: PieceTable, *, byte_fallback: bool = False):
        super().__init__(table, byte_fallback=byte_fallback)
        self.matcher = PrefixMatcher(table.user_defined)

    def describe(self) -> str:
        return "Char (sentencepiece)" + (", byte fallback" if self.byte_fallback else "")

    def cuts(self, text: str) -> list[tuple[int, int]]:
        out, i, n, matcher = [], 0, len(text), self.matcher
        while i < n:
            s = matcher.match(text, i) if matcher else None
            j = i + len(s) if s else i + 1
            out.append((i, j))
            i = j
        return out


class SentencePieceWord(_WholePieces):
    """sentencepiece's WORD model: the text cut into words at '▁' (SplitIntoWords), each a piece."""

    kind = "Word"

    def __init__(self, table: PieceTable, *, byte_fallback: bool = False, treat_whitespace_as_suffix: bool = False,
                 allow_whitespace_only_pieces: bool = False):
        super().__init__(table, byte_fallback=byte_fallback)
        self.suffix_mode = treat_whitespace_as_suffix
        self.whitespace_pieces = allow_whitespace_only_pieces

    def describe(self) -> str:
        return "Word (sentencepiece)" + (", byte fallback" if self.byte_fallback else "")

    def cuts(self, text: str) -> list[tuple[int, int]]:
        starts: list[int] = []
        n = len(text)
        in_spaces = False
        if self.suffix_mode:  # spaces end a word
            if n:
                starts.append(0)
            for i, c in enumerate(text):
                is_space = c == SPACE
                if is_space:
                    in_spaces = True
                elif in_spaces:
                    if self.whitespace_pieces:
                        starts.append(i)
                    in_spaces = False
                if i + 1 < n and is_space and not self.whitespace_pieces:
                    starts.append(i + 1)
        else:  # spaces start a word
            for i, c in enumerate(text):
                is_space = c == SPACE
                if i == 0 or (is_space and (not in_spaces or not self.whitespace_pieces)):
                    starts.append(i)
                    in_spaces = True
                if in_spaces and not is_space:
                    in_spaces = False
        return list(zip(starts, starts[1:] + [n]))


# ---------------------------------------------------------------------------------------------
# Unigram
# ---------------------------------------------------------------------------------------------
class SentencePieceUnigram(Unigram):
    """The core Unigram model with sentencepiece's details.

    Control, unknown, byte and unused pieces never match text.  A user-defined symbol scores
    ``0.1 * (UTF-8 length - 1)``, at least 0 where normal pieces score below 0, so it nearly always
    wins (sentencepiece 0.2; older versions used ``length * max_score - 0.1``).  An unknown
    character scores ``min_score - 10``.  Path scores are single-precision floats as in
    sentencepiece: on a long text their rounding decides between segmentations whose exact
    scores differ by little or nothing (runs like '-----'), so every sum is rounded the same way.
    """

    edited_from: Model | None = None  # the model read from a file that `with_new_pieces` extended

    def __init__(self, table: PieceTable, *, byte_fallback: bool = False):
        # Sets the attributes of the core Unigram directly (not through its __init__) so that
        # loading stays fast: the prefix set for the lattice is built on first use.
        Model.__init__(self, table.vocab)
        types, scores = table.types, table.scores
        self.table = table
        self.pieces = list(zip(table.pieces, scores))
        self.scores = scores
        self.unk_id = table.unk_id
        self.byte_fallback = byte_fallback
        self.fuse_unk = True
        self._cache = BoundedCache()
        normal = [s for s, t in zip(scores, types) if t == NORMAL]
        self.min_score = f32(min(normal)) if normal else FLT_MAX
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        # Pieces that may match text: normal and user-defined (control, unknown, byte: never;
        # unused: skipped by sentencepiece).
        if table.unused:
            self._match = {p: i for p, i in table.normal.items() if i not in table.unused}
        else:
            self._match = table.normal
        user = [table.normal[p] for p in table.user_defined]
        # sentencepiece's score for a user-defined symbol: 0.1 per UTF-8 byte after the first
        self._user_scores = {i: f32(USER_BONUS * (len(table.pieces[i].encode("utf-8")) - 1)) for i in user}
        self._lattice_scores = scores
        if user:
            self._lattice_scores = list(scores)
            for i, v in self._user_scores.items():
                self._lattice_scores[i] = v
        self._longest = max(map(len, self._match), default=1)
        self._prefix_set: set[str] | None = None

    @property
    def _prefixes(self) -> set[str]:
        """Proper prefixes of the matchable pieces (where the lattice scan may go on)."""
        if self._prefix_set is None:
            self._prefix_set = {p[:k] for p in self._match for k in range(1, len(p))}
        return self._prefix_set

    def describe(self) -> str:
        return "Unigram (sentencepiece)" + (", byte fallback" if self.byte_fallback else "")

    def viterbi(self, text: str) -> list[tuple[int, int, int]]:
        """Best path as (id, start, end), id -1 for an unknown character; the first path found
        wins ties (positions left to right, pieces short to long).

        Like sentencepiece, once the best score reaching a position passes ±100000 it becomes the
        new zero: the scores still in play are shifted by it (which changes their rounding)."""
        n = len(text)
        best = [0.0] * (n + 1)
        best_start = [-1] * (n + 1)
        best_id = [-1] * (n + 1)
        f = array("f", [0.0])  # storing into a float array rounds to single precision
        match, prefixes, scores = self._match, self._prefixes, self._lattice_scores
        unk_score = self.unk_score
        reach = self._longest + 1
        for start in range(n):
            base = best[start]
            if base < -SCORE_RESET or base > SCORE_RESET:
                for i in range(start, min(n, start + reach) + 1):
                    if i == start or best_start[i] >= 0:
                        f[0] = best[i] - base
                        best[i] = f[0]
                base = 0.0
            has_single = False
            end = start + 1
            while end <= n:
                piece = text[start:end]
                id = match.get(piece)
                if id is not None:
                    f[0] = base + scores[id]
                    score = f[0]
                    if best_start[end] < 0 or score > best[end]:
                        best[end] = score
                        best_start[end] = start
                        best_id[end] = id
                    if end == start + 1:
                        has_single = True
                if piece not in prefixes:
                    break
                end += 1
            if not has_single:
                f[0] = base + unk_score
                score = f[0]
                if best_start[start + 1] < 0 or score > best[start + 1]:
                    best[start + 1] = score
                    best_start[start + 1] = start
                    best_id[start + 1] = -1
        path = []
        end = n
        while end > 0:
            start = best_start[end]
            path.append((best_id[end], start, end))
            end = start
        path.reverse()
        return path

    def tokenize(self, text: str) -> list[Token]:
        raw = [(self.unk_id if id < 0 else id, a, b) for id, a, b in self.viterbi(text)]
        return _finish(self.table, raw, text, self.byte_fallback)


# ---------------------------------------------------------------------------------------------
# decoding
# ---------------------------------------------------------------------------------------------
def decode_bytes(data: bytes) -> str:
    """UTF-8 bytes to text as sentencepiece does it: each byte that does not start a valid
    character becomes U+FFFD on its own (Python would replace a truncated sequence just once)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out = []
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        size = 1 if b < 0x80 else 2 if 0xC0 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF8 else 0
        if size and i + size <= n:
            try:
                out.append(data[i : i + size].decode("utf-8"))
                i += size
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)


class SentencePieceDecoder:
    """Ids back to text as sentencepiece's Decode does it (the `decode_fn` hook of `Tokenizer`).

    Control pieces vanish, the unknown piece shows as the model's unk_surface (' ⁇ '), runs of
    byte pieces are decoded together, '▁' becomes a space, and the first piece loses its leading
    '▁' when the normalizer added one (with remove_extra_whitespaces, every piece loses it until
    some text has been produced).
    """

    def __init__(
        self,
        table: PieceTable,
        *,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        unk_surface: str = DEFAULT_UNK_SURFACE,
        denormalizer: SentencePieceNormalizer | None = None,
    ):
        self.table = table
        self.strip_bos_space = add_dummy_prefix or remove_extra_whitespaces
        self.strip_all_leading = remove_extra_whitespaces
        self.unk_surface = unk_surface
        self.denormalizer = denormalizer

    def __call__(self, tokenizer, ids: list[int], skip_special_tokens: bool = True) -> str:
        return self.decode(ids, skip_special_tokens)

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        table = self.table
        pieces, types = table.pieces, table.types
        parts: list[str] = []
        pending = bytearray()
        text_empty = True
        is_bos_ws = True
        bos_ws_seen = False
        for given in ids:
            if not 0 <= given < len(pieces):
                raise TokvizError(f"cannot decode id {given}: not in the vocabulary (size {len(pieces)})")
            piece = pieces[given]
            kind = types[given]
            if kind == BYTE:
                pending.append(piece_to_byte(piece))
                continue
            if pending:
                s = decode_bytes(bytes(pending))
                pending.clear()
                parts.append(s)
                text_empty = text_empty and not s
            if bos_ws_seen or not text_empty:
                is_bos_ws = False
            bos_ws_seen = False
            if kind == CONTROL:
                s = "" if skip_special_tokens else piece
            elif kind == UNKNOWN:
                s = self.unk_surface
            else:
                if is_bos_ws and self.strip_bos_space and piece.startswith(SPACE):
                    piece = piece[1:]
                    bos_ws_seen = not self.strip_all_leading
                s = piece.replace(SPACE, " ")
            parts.append(s)
            text_empty = text_empty and not s
        if pending:
            parts.append(decode_bytes(bytes(pending)))
        text = "".join(parts)
        if self.denormalizer is not None:
            text = self.denormalizer.normalize_str(text)
        return text


# ---------------------------------------------------------------------------------------------
# edits
# ---------------------------------------------------------------------------------------------
def with_new_pieces(model, normalizer: SentencePieceNormalizer, decoder: SentencePieceDecoder,
                    contents: list[str], piece_type: int):
    """(model, normalizer, decoder) of a sentencepiece pipeline with `contents` appended as pieces
    of `piece_type`, numbered after the last piece.  USER_DEFINED pieces are what
    sentencepiece's user_defined_symbols are: always one piece wherever they appear in the text;
    CONTROL pieces are ids only (as <s>), never matched in text.  The inputs are not changed; the
    new model's `edited_from` is the first model of the line of edits (a writer keeps its file's
    other fields)."""
    if piece_type not in (USER_DEFINED, CONTROL):
        raise ValueError(f"new pieces are user-defined or control pieces, not {TYPE_NAMES.get(piece_type, piece_type)}")
    old = model.table
    scores, types = copy.copy(old.scores), copy.copy(old.types)  # (lists, or compact arrays: kept so)
    scores.extend([0.0] * len(contents))
    types.extend([piece_type] * len(contents))
    table = PieceTable(list(old.pieces) + list(contents), scores, types, byte_fallback=model.byte_fallback)
    if isinstance(model, SentencePieceBPE):
        edited = SentencePieceBPE(table, byte_fallback=model.byte_fallback, treat_whitespace_as_suffix=model.suffix_mode)
    else:
        edited = SentencePieceUnigram(table, byte_fallback=model.byte_fallback)
    edited.edited_from = model.edited_from or model
    norm = SentencePieceNormalizer(
        normalizer.charsmap,
        user_defined=PrefixMatcher(table.user_defined),
        add_dummy_prefix=normalizer.add_dummy_prefix,
        remove_extra_whitespaces=normalizer.remove_extra_whitespaces,
        escape_whitespaces=normalizer.escape_whitespaces,
        treat_whitespace_as_suffix=normalizer.treat_whitespace_as_suffix,
        name=normalizer.name,
    )
    decode = copy.copy(decoder)  # (it holds no state derived from the table)
    decode.table = table
    return edited, norm, decode


def adds_pieces_only(before, after) -> bool:
    """Whether model `after` is sentencepiece model `before` with user-defined or control pieces
    appended (`with_new_pieces`), and nothing else changed."""
    if not isinstance(before, (SentencePieceBPE, SentencePieceUnigram)) or type(after) is not type(before):
        return False
    old, new = before.table, after.table
    n = len(old.pieces)
    same = all(list(getattr(new, a)[:n]) == list(getattr(old, a)) for a in ("pieces", "types", "scores"))
    return (len(new.pieces) > n and same and set(new.types[n:]) <= {USER_DEFINED, CONTROL}
            and after.byte_fallback == before.byte_fallback)
