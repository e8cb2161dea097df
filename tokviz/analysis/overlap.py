"""Provenance: how much two tokenizers' vocabularies overlap, and whether one's merges are the
other's, in the same order — "was this tokenizer derived from that one?".

    >>> report = overlap({"cl100k": cl100k, "llama3": llama3})
    >>> pair = report.pairs[0]
    >>> pair.a_in_b, pair.same_id_prefix, pair.merges.a_ordered_in_b
    (1.0, 100256, 100000)
    >>> pair.verdict
    "llama3 extends cl100k: ..."

Tokens are compared by what they stand for in text, not by how a vocabulary writes them: the bytes
of `Tokenizer.token_bytes` (byte-level BPE's 'Ġthe', sentencepiece's '▁the' and <0x20> all stand
for b' the' or b' '), a continuation piece (WordPiece's '##ing') kept apart from the word-initial
'ing'.  Special and other added tokens (and sentencepiece's control pieces) are compared on their
own, by their text.

Merges are compared as sequences of (left bytes, right bytes): a BPE's merge list as listed; a BPE
without one (tiktoken's ranks, sentencepiece's scores) as each token's merge derived from its rank
(`merges.iter_merges`).  A WordPiece or Unigram model has none: reported as such.

Everything per pair is numpy on integer codes (one code per distinct token across the tokenizers
compared, a merge coded as left * n + right): 150k-token vocabularies compare in well under a
second once loaded.  Plain data, no Qt: `tokviz overlap` prints it, the Overlap view shows it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core.bytelevel import unicode_to_bytes
from ..core.encoding import display_string
from ..core.models.bpe import BPE
from ..core.sentencepiece import SentencePieceBPE
from ..errors import Cancelled
from ..messages import QT_TRANSLATE_NOOP, Joined, Message
from .merges import merge_index
from .vocab_stats import CATEGORIES, decoded_rows, text_categories

CONTINUATION = "##"  # the first element of a continuation piece's key: (CONTINUATION, bytes)
SCATTER_POINTS = 20_000  # most points of the rank-in-A vs rank-in-B sample


@dataclass
class TokenizerSummary:
    name: str
    model: str  # BPE, WordPiece, Unigram...
    tokens: int  # distinct normal tokens (by what they stand for)
    special: int  # special and other added tokens, control pieces
    merges: int  # 0 when there is no merge list to compare
    merge_source: str  # "merge list", "derived from ranks" or "none (<model>)"

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class MergeAgreement:
    """Two BPEs' merges as sequences of (left bytes, right bytes), A's against B's."""

    merges_a: int
    merges_b: int
    derived_a: bool  # A has no merge list: its merges are derived from its ranks
    derived_b: bool
    common_prefix: int  # the longest common prefix of the two sequences
    shared: int  # distinct merges in both
    a_in_b: float  # share of A's distinct merges that B has
    b_in_a: float
    spearman: float | None  # rank correlation of the shared merges' positions (None: fewer than 2)
    a_ordered_in_b: int  # A's first n merges are all in B, in A's order
    b_ordered_in_a: int
    first_difference: tuple[int, str, str] | None = None  # (rank, A's merge, B's merge) where they part
    rank_a: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)  # a sample of the
    rank_b: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)  # shared merges

    @property
    def a_prefix_of_b(self) -> bool:
        return self.common_prefix == self.merges_a

    @property
    def b_prefix_of_a(self) -> bool:
        return self.common_prefix == self.merges_b

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("rank_a", "rank_b", "first_difference")}
        d["a_prefix_of_b"] = self.a_prefix_of_b
        d["b_prefix_of_a"] = self.b_prefix_of_a
        if self.first_difference is not None:
            rank, ma, mb = self.first_difference
            d["first_difference"] = {"rank": rank, "a": ma, "b": mb}
        return d


@dataclass
class PairOverlap:
    a: str
    b: str
    tokens_a: int
    tokens_b: int
    shared: int
    jaccard: float
    a_in_b: float  # share of A's tokens that B has
    b_in_a: float
    same_id: int  # shared tokens with the same id in both
    same_id_prefix: int  # ids 0 .. n-1 stand for the same tokens in both
    special_shared: int
    special_only_a: int
    special_only_b: int
    scripts: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # category -> (shared, only A, only B)
    merges: MergeAgreement | None = None
    merges_note: str = ""  # why there is no merge comparison (a Message)
    verdict: str = ""  # (a Message: the English text, translatable where shown)

    def row(self) -> dict:
        """The table row: the figures people compare."""
        m = self.merges
        return {
            "A": self.a, "B": self.b, "shared": self.shared, "Jaccard": round(self.jaccard, 4),
            "A in B": round(self.a_in_b, 4), "B in A": round(self.b_in_a, 4),
            "same id": self.same_id,
            "common merge prefix": m.common_prefix if m else None,  # (None: no merges to compare)
            "merges A in B": round(m.a_in_b, 4) if m else None,
            "rank correlation": round(m.spearman, 4) if m and m.spearman is not None else None,
            "verdict": self.verdict,
        }

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("merges", "scripts")}
        d["scripts"] = {k: {"shared": s, "only_a": oa, "only_b": ob} for k, (s, oa, ob) in self.scripts.items()}
        d["merges"] = self.merges.as_dict() if self.merges else None
        return d


@dataclass
class OverlapReport:
    tokenizers: list[TokenizerSummary]
    pairs: list[PairOverlap]
    seconds: float = 0.0

    def rows(self) -> list[dict]:
        return [p.row() for p in self.pairs]

    def as_dict(self) -> dict:
        d = {"tokenizers": [t.as_dict() for t in self.tokenizers], "pairs": [p.as_dict() for p in self.pairs],
             "seconds": round(self.seconds, 3)}
        if len(self.pairs) == 1:  # (two tokenizers: the pair's headline figures at the top)
            d["jaccard"] = self.pairs[0].jaccard
            d["verdict"] = self.pairs[0].verdict
        return d


# ---- one tokenizer ------------------------------------------------------------------------------
class _Side:
    """One tokenizer reduced to what is compared: normal tokens by key, special ones by text, and
    its merges as token ids (from the model's merge index)."""

    def __init__(self, name: str, tok):
        from ..core.sentencepiece import CONTROL, UNKNOWN

        self.name = name
        self.tok = tok
        model = tok.model
        self.kind = getattr(model, "kind", type(model).__name__)
        prefix = getattr(model, "prefix", "") or ""
        self.special: dict[str, int] = {}
        for t in tok.added.tokens:
            self.special.setdefault(t.content, t.id)
        types = getattr(getattr(model, "table", None), "types", None)
        ids = np.unique(np.fromiter(model.vocab.values(), np.int64, len(model.vocab)))
        keep = ~np.isin(ids, np.fromiter(self.special.values(), np.int64, len(self.special)))
        if types is not None:
            kinds = np.asarray(bytes(types) if not isinstance(types, (bytes, bytearray)) else types, np.uint8)
            inside = ids < len(kinds)
            control = np.zeros(len(ids), bool)
            control[inside] = np.isin(kinds[ids[inside]], [CONTROL, UNKNOWN])
            for i in ids[control & keep].tolist():
                self.special.setdefault(model.id_to_token(i), i)
            keep &= ~control
        self.ids = ids[keep]
        name_of, data_of = model.id_to_token, tok.token_bytes
        keys: list = []
        for i in self.ids.tolist():
            data = data_of(i)
            piece = name_of(i)
            if prefix and piece.startswith(prefix) and piece != prefix:
                keys.append((CONTINUATION, data))
            else:
                keys.append(data)
        self.keys = keys
        self.merge_source = "none (%s)" % self.kind
        self.derived = False
        self.merge_left = self.merge_right = None
        self.odd: dict[int, tuple] = {}  # merge entry -> (left key, right key) for strings no id names
        if isinstance(model, (BPE, SentencePieceBPE)):
            index = merge_index(model)
            self.merge_left, self.merge_right = index.left, index.right
            self.derived = not getattr(model, "has_merge_list", False)
            self.merge_source = "derived from ranks" if self.derived else "merge list"
            for k, (a, b, _m) in index.odd.items():
                self.odd[k] = (self._string_key(a, prefix), self._string_key(b, prefix))

    def _string_key(self, s: str, prefix: str):
        """The key of a merge part given as a string (one no id names: built like token_bytes)."""
        tok = self.tok
        i = tok.model.vocab.get(s)
        cont = bool(prefix) and s.startswith(prefix) and s != prefix
        if i is not None:
            data = tok.token_bytes(i)
        else:
            data = unicode_to_bytes(s) if tok.byte_level else None
            if data is None:
                t = s[len(prefix):] if cont else s
                data = (t.replace(tok.space_marker, " ") if tok.space_marker else t).encode("utf-8")
        return (CONTINUATION, data) if cont else data

    @property
    def has_merges(self) -> bool:
        return self.merge_left is not None and len(self.merge_left) > 0


@dataclass(eq=False)
class _Coded:
    """A side in the shared code space."""

    codes: np.ndarray  # distinct token codes, sorted
    lowest_id: np.ndarray  # the lowest id of each
    category: np.ndarray  # CATEGORIES index of each
    by_id: np.ndarray  # id -> code (specials: their own codes; -1: no token)
    merges: np.ndarray | None  # merge codes in rank order


def _categories(keys: list) -> np.ndarray:
    blobs = [k[1] if isinstance(k, tuple) else k for k in keys]
    n_bytes = np.fromiter(map(len, blobs), np.int32, len(blobs))
    text, starts = decoded_rows(blobs, n_bytes)
    return text_categories(text, starts)[0]


def _code(side: _Side, codes: dict) -> _Coded:
    own = np.fromiter((codes[k] for k in side.keys), np.int64, len(side.keys))
    uniq, first = np.unique(own, return_index=True)  # (ids ascend: the first is the lowest id)
    lowest = side.ids[first]
    category = _categories([side.keys[j] for j in first.tolist()])
    size = max(int(side.ids[-1]) + 1 if len(side.ids) else 0, max(side.special.values(), default=-1) + 1)
    by_id = np.full(size, -1, np.int64)
    by_id[side.ids] = own
    for content, i in side.special.items():
        if i >= 0:
            by_id[i] = codes[("special", content)]
    merges = None
    if side.has_merges:
        n = len(codes)
        left = side.merge_left.astype(np.int64)
        right = side.merge_right.astype(np.int64)
        lc = np.where(left >= 0, by_id[np.clip(left, 0, size - 1)], -1)
        rc = np.where(right >= 0, by_id[np.clip(right, 0, size - 1)], -1)
        for k, (ka, kb) in side.odd.items():
            lc[k], rc[k] = codes[ka], codes[kb]
        merges = lc * n + rc
    return _Coded(uniq, lowest, category, by_id, merges)


# ---- a pair ---------------------------------------------------------------------------------------
def _ordered_prefix(positions: np.ndarray) -> int:
    """How many leading entries are found (>= 0) at strictly increasing positions."""
    bad = positions < 0
    bad[1:] |= positions[1:] <= positions[:-1]
    hit = np.flatnonzero(bad)
    return int(hit[0]) if len(hit) else len(positions)


def _positions(seq: np.ndarray, other: np.ndarray) -> np.ndarray:
    """For each entry of seq, its first position in `other`, -1 when absent."""
    uniq, first = np.unique(other, return_index=True)
    at = np.searchsorted(uniq, seq)
    at = np.minimum(at, len(uniq) - 1) if len(uniq) else at
    found = (uniq[at] == seq) if len(uniq) else np.zeros(len(seq), bool)
    return np.where(found, first[at] if len(uniq) else -1, -1)


def _spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 2:
        return None
    rx = np.empty(len(x), np.float64)
    rx[np.argsort(x, kind="stable")] = np.arange(len(x))
    ry = np.empty(len(y), np.float64)
    ry[np.argsort(y, kind="stable")] = np.arange(len(y))
    rx -= rx.mean()
    ry -= ry.mean()
    denom = np.sqrt((rx * rx).sum() * (ry * ry).sum())
    return float((rx * ry).sum() / denom) if denom else None


def _merge_agreement(a: _Coded, b: _Coded, sa: _Side, sb: _Side, key_of: Callable[[int], str]) -> MergeAgreement:
    ma, mb = a.merges, b.merges
    n = min(len(ma), len(mb))
    differ = np.flatnonzero(ma[:n] != mb[:n])
    prefix = int(differ[0]) if len(differ) else n
    ua, fa = np.unique(ma, return_index=True)
    ub, fb = np.unique(mb, return_index=True)
    both, ia, ib = np.intersect1d(ua, ub, assume_unique=True, return_indices=True)
    pa, pb = fa[ia], fb[ib]
    order = np.argsort(pa, kind="stable")
    pa, pb = pa[order], pb[order]
    step = max(1, len(pa) // SCATTER_POINTS)
    first = None
    if prefix < max(len(ma), len(mb)):
        first = (prefix, key_of(int(ma[prefix])) if prefix < len(ma) else "—",
                 key_of(int(mb[prefix])) if prefix < len(mb) else "—")
    return MergeAgreement(
        merges_a=len(ma), merges_b=len(mb), derived_a=sa.derived, derived_b=sb.derived,
        common_prefix=prefix, shared=len(both),
        a_in_b=len(both) / len(ua) if len(ua) else 0.0, b_in_a=len(both) / len(ub) if len(ub) else 0.0,
        spearman=_spearman(pa, pb),
        a_ordered_in_b=_ordered_prefix(_positions(ma, mb)), b_ordered_in_a=_ordered_prefix(_positions(mb, ma)),
        first_difference=first, rank_a=pa[::step].copy(), rank_b=pb[::step].copy())


def _pair(sa: _Side, sb: _Side, a: _Coded, b: _Coded, key_of) -> PairOverlap:
    both, ia, ib = np.intersect1d(a.codes, b.codes, assume_unique=True, return_indices=True)
    shared, na, nb = len(both), len(a.codes), len(b.codes)
    union = na + nb - shared
    in_b = np.zeros(na, bool)
    in_b[ia] = True
    in_a = np.zeros(nb, bool)
    in_a[ib] = True
    k = len(CATEGORIES)
    counts = (np.bincount(a.category[ia], minlength=k), np.bincount(a.category[~in_b], minlength=k),
              np.bincount(b.category[~in_a], minlength=k))
    scripts = {CATEGORIES[c]: (int(counts[0][c]), int(counts[1][c]), int(counts[2][c]))
               for c in range(k) if counts[0][c] or counts[1][c] or counts[2][c]}
    n = min(len(a.by_id), len(b.by_id))
    differ = np.flatnonzero(a.by_id[:n] != b.by_id[:n])
    id_prefix = int(differ[0]) if len(differ) else n
    specials_a, specials_b = set(sa.special), set(sb.special)
    pair = PairOverlap(
        a=sa.name, b=sb.name, tokens_a=na, tokens_b=nb, shared=shared,
        jaccard=shared / union if union else 1.0, a_in_b=shared / na if na else 0.0, b_in_a=shared / nb if nb else 0.0,
        same_id=int(np.count_nonzero(a.lowest_id[ia] == b.lowest_id[ib])), same_id_prefix=id_prefix,
        special_shared=len(specials_a & specials_b), special_only_a=len(specials_a - specials_b),
        special_only_b=len(specials_b - specials_a), scripts=scripts)
    if a.merges is not None and b.merges is not None:
        pair.merges = _merge_agreement(a, b, sa, sb, key_of)
    else:
        missing = [s for s, c in ((sa, a), (sb, b)) if c.merges is None]
        pair.merges_note = merges_note([(s.name, s.kind) for s in missing])
    pair.verdict = verdict(pair)
    return pair


def merges_note(missing: list[tuple[str, str]]) -> Message:
    """Why a pair's merges are not compared: (name, model kind) of the tokenizers without merges."""
    return Message(QT_TRANSLATE_NOOP("overlap", "{models} (no merge list)"),
                   models=Joined(QT_TRANSLATE_NOOP("overlap", ", "),
                                 [Message(QT_TRANSLATE_NOOP("overlap", "{name} is a {model}"), name=name, model=kind)
                                  for name, kind in missing]))


def _pct(x: float) -> str:
    return "100 %" if x == 1.0 else f"{x:.1%}".replace("%", " %")


def verdict(p: PairOverlap) -> Message:
    """The answer to "was one derived from the other?", in words, from a pair's figures (a Message:
    the English text, translatable where the GUI shows it)."""
    m = p.merges
    if p.shared == p.tokens_a == p.tokens_b and (m is None or m.common_prefix == m.merges_a == m.merges_b):
        if p.same_id == p.shared:
            template = (QT_TRANSLATE_NOOP("overlap", "{a} and {b} are the same vocabulary: the same {shared:,} tokens "
                                                     "with the same ids and the same {merges:,} merges in the same "
                                                     "order.") if m else
                        QT_TRANSLATE_NOOP("overlap", "{a} and {b} are the same vocabulary: the same {shared:,} tokens "
                                                     "with the same ids."))
        else:
            template = (QT_TRANSLATE_NOOP("overlap", "{a} and {b} are the same vocabulary: the same {shared:,} tokens, "
                                                     "with other ids and the same {merges:,} merges in the same "
                                                     "order.") if m else
                        QT_TRANSLATE_NOOP("overlap", "{a} and {b} are the same vocabulary: the same {shared:,} tokens, "
                                                     "with other ids."))
        return Message(template, a=p.a, b=p.b, shared=p.shared, **({"merges": m.merges_a} if m else {}))
    # the smaller vocabulary is the candidate base
    a_base = p.tokens_a <= p.tokens_b
    base, other = (p.a, p.b) if a_base else (p.b, p.a)
    contained = p.a_in_b if a_base else p.b_in_a
    base_size = min(p.tokens_a, p.tokens_b)
    said: list[Message] = []
    extends = in_order = False
    if m is not None:
        shorter, longer = (p.a, p.b) if m.merges_a <= m.merges_b else (p.b, p.a)
        fewest, most = sorted((m.merges_a, m.merges_b))
        run, first, second = max((m.a_ordered_in_b, p.a, p.b), (m.b_ordered_in_a, p.b, p.a))
        derived = (m.derived_a if first == p.a else m.derived_b)
        if m.common_prefix == fewest and most > fewest:
            extends = True
            said.append(Message(QT_TRANSLATE_NOOP("overlap", "{longer}'s first {fewest:,} merges are {shorter}'s, in "
                                                             "{shorter}'s order; {longer} adds {more:,} more"),
                                longer=longer, shorter=shorter, fewest=fewest, more=most - fewest))
        elif run > 0 and run >= 0.5 * fewest:
            in_order = True
            total = m.merges_a if first == p.a else m.merges_b
            if run == total:
                template = (QT_TRANSLATE_NOOP("overlap", "all {run:,} of {first}'s merges (derived from its ranks) are "
                                                         "{second}'s too, in the same order") if derived else
                            QT_TRANSLATE_NOOP("overlap", "all {run:,} of {first}'s merges are {second}'s too, in the "
                                                         "same order"))
            else:
                template = (QT_TRANSLATE_NOOP("overlap", "{first}'s first {run:,} merges (of {total:,}) (derived from "
                                                         "its ranks) are all {second}'s too, in the same order")
                            if derived else
                            QT_TRANSLATE_NOOP("overlap", "{first}'s first {run:,} merges (of {total:,}) are all "
                                                         "{second}'s too, in the same order"))
            said.append(Message(template, run=run, first=first, second=second, total=total))
        elif m.shared:
            if m.spearman is not None:
                said.append(Message(QT_TRANSLATE_NOOP("overlap", "they share {shared:,} merges, rank correlation "
                                                                 "{rho:.2f}; the merge lists part at merge {prefix:,}"),
                                    shared=m.shared, rho=m.spearman, prefix=m.common_prefix))
            else:
                said.append(Message(QT_TRANSLATE_NOOP("overlap", "they share {shared:,} merges; the merge lists part at "
                                                                 "merge {prefix:,}"),
                                    shared=m.shared, prefix=m.common_prefix))
    said.append(Message(QT_TRANSLATE_NOOP("overlap", "{other}'s vocabulary holds {share} of {base}'s {size:,} tokens"),
                        other=other, share=_pct(contained), base=base, size=base_size))
    if p.same_id_prefix >= 256:
        said.append(Message(QT_TRANSLATE_NOOP("overlap", "ids 0–{last:,} stand for the same tokens in both"),
                            last=p.same_id_prefix - 1))
    elif p.shared and p.same_id / p.shared > 0.5:
        said.append(Message(QT_TRANSLATE_NOOP("overlap", "{n:,} shared tokens have the same id"), n=p.same_id))
    names = dict(a=p.a, b=p.b, other=other, base=base)
    if extends:
        head = Message(QT_TRANSLATE_NOOP("overlap", "{longer} extends {shorter}"), longer=longer, shorter=shorter)
    elif contained >= 0.95 and (in_order or (m is None and p.same_id_prefix >= 0.5 * base_size)):
        head = Message(QT_TRANSLATE_NOOP("overlap", "{other} was very likely derived from {base}"), **names)
    elif in_order:
        head = Message(QT_TRANSLATE_NOOP("overlap", "{a} and {b} very likely share an ancestor"), **names)
    elif contained >= 0.95:
        head = Message(QT_TRANSLATE_NOOP("overlap", "{other} holds nearly all of {base}'s tokens, but not in {base}'s "
                                                    "order: related, or trained on similar data"), **names)
    elif p.jaccard >= 0.5:
        head = Message(QT_TRANSLATE_NOOP("overlap", "{a} and {b} share most tokens (Jaccard {jaccard:.2f}) but neither "
                                                    "contains the other"), jaccard=p.jaccard, **names)
    elif contained >= 0.5:
        head = Message(QT_TRANSLATE_NOOP("overlap", "Probably not derived, though {other} holds most of {base}'s tokens "
                                                    "(neither follows the other's merge order; similar training text?)"),
                       **names)
    else:
        head = Message(QT_TRANSLATE_NOOP("overlap", "No sign that one was derived from the other"))
        said.insert(0, Message(QT_TRANSLATE_NOOP("overlap", "they share {shared:,} tokens (Jaccard {jaccard:.2f}), what "
                                                            "tokenizers trained on similar text all learn"),
                               shared=p.shared, jaccard=p.jaccard))
    text = Message(QT_TRANSLATE_NOOP("overlap", "{head}: {findings}."), head=head,
                   findings=Joined(QT_TRANSLATE_NOOP("overlap", "; "), said))
    if p.merges_note:
        text = Message(QT_TRANSLATE_NOOP("overlap", "{verdict} Merges not compared: {note}."), verdict=text,
                       note=p.merges_note)
    return text


# ---- the whole comparison -------------------------------------------------------------------------
def overlap(tokenizers: dict[str, object], *, progress: Callable[[int, int], None] | None = None,
            cancel=None) -> OverlapReport:
    """Compare every pair of `tokenizers` (name -> Tokenizer, in display order): see the module
    docstring.  `progress(done, total)` counts tokenizers prepared and pairs compared; `cancel` (a
    threading.Event) stops it with Cancelled."""
    import time

    start = time.perf_counter()
    names = list(tokenizers)
    total = len(names) + len(names) * (len(names) - 1) // 2
    done = 0

    def step() -> None:
        nonlocal done
        if cancel is not None and (cancel.is_set() if hasattr(cancel, "is_set") else cancel()):
            raise Cancelled("overlap cancelled")
        done += 1
        if progress is not None:
            progress(done, total)

    sides = []
    for name in names:
        sides.append(_Side(name, tokenizers[name]))
        step()
    codes: dict = {}
    for s in sides:
        for k in s.keys:
            codes.setdefault(k, len(codes))
        for content in s.special:
            codes.setdefault(("special", content), len(codes))
        for ka, kb in s.odd.values():
            codes.setdefault(ka, len(codes))
            codes.setdefault(kb, len(codes))
    coded = [_code(s, codes) for s in sides]
    key_list = None

    def merge_text(code: int) -> str:
        nonlocal key_list
        if key_list is None:
            key_list = list(codes)
        n = len(key_list)
        if code < 0:  # (a part no token names)
            return "?"
        return f"{_key_text(key_list[code // n])} + {_key_text(key_list[code % n])}"

    pairs = []
    for x in range(len(sides)):
        for y in range(x + 1, len(sides)):
            pairs.append(_pair(sides[x], sides[y], coded[x], coded[y], merge_text))
            step()
    summaries = [TokenizerSummary(s.name, s.kind, len(c.codes), len(s.special),
                                  len(c.merges) if c.merges is not None else 0, s.merge_source)
                 for s, c in zip(sides, coded)]
    return OverlapReport(summaries, pairs, time.perf_counter() - start)


def _key_text(key) -> str:
    """A key as people read it: the text (bytes that are not UTF-8 as ⟨e6⟩), '##' before a
    continuation piece, spaces as '␣'."""
    if isinstance(key, tuple):
        if key[0] == "special":
            return key[1]
        return CONTINUATION + display_string(key[1]).replace(" ", "␣")
    return display_string(key).replace(" ", "␣")
