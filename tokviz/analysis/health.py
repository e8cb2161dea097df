"""Vocabulary health: where a vocabulary is broken, or about to be by an edit.

    >>> report = vocab_health(tok)
    >>> report.counts()
    {'unreachable': 12, 'bad merges': 0, 'partial UTF-8': 1244, 'duplicates': 0, 'split specials': 0}

* unreachable tokens: encoding the token's own string never produces it (an earlier-ranked merge
  takes one of its parts first, as 乌鲁木齐 when 鲁木 merges before 乌鲁 and 木齐);
* bad merges: a merge whose parts are not tokens, whose result is not one, or that needs a part
  only a later-ranked merge makes;
* tokens that are not valid UTF-8 on their own (expected for byte-level BPE: listed apart);
* duplicate strings: several ids for the same bytes;
* added tokens the pre-tokenizer would split if they were not matched whole;
* after an edit, which words segment differently: `edit_impact` for added merges (`with_merges`),
  `added_token_impact` for added tokens (`with_added_tokens`).

Plain data, no Qt; `vocab_health` takes `progress(done, total)` and `cancel` like the other long
jobs (benchmarks/vocab_health.py times it on the shared tokenizers).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.models.bpe import BPE
from ..core.models.unigram import Unigram
from ..errors import Cancelled
from ..messages import QT_TRANSLATE_NOOP, Joined, Message
from .merges import iter_merges, merge_index, merges_making, trace_bpe


@dataclass
class HealthReport:
    model: str
    vocab_size: int
    checked: int = 0  # tokens whose reachability was checked
    unreachable: list[tuple[int, str, list[str]]] = field(default_factory=list)  # id, token, what it encodes to
    bad_merges: list[tuple[int, str, str, str]] = field(default_factory=list)  # rank, left, right, reason
    partial_utf8: list[tuple[int, str]] = field(default_factory=list)  # id, token
    duplicates: list[tuple[str, list[int]]] = field(default_factory=list)  # token string, its ids
    split_specials: list[tuple[int, str, list[str]]] = field(default_factory=list)  # id, content, pieces
    notes: list[str] = field(default_factory=list)
    tokens: object = None  # token_health.TokenHealth, when `full_health` made the report

    def counts(self) -> dict[str, int]:
        counts = {
            "unreachable": len(self.unreachable),
            "bad merges": len(self.bad_merges),
            "partial UTF-8": len(self.partial_utf8),
            "duplicates": len(self.duplicates),
            "split specials": len(self.split_specials),
        }
        return counts if self.tokens is None else {**counts, **self.tokens.counts()}

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "vocab_size": self.vocab_size,
            "checked": self.checked,
            "counts": self.counts(),
            "unreachable": [{"id": i, "token": t, "encodes_to": e} for i, t, e in self.unreachable],
            "bad_merges": [{"rank": r, "left": a, "right": b, "reason": why} for r, a, b, why in self.bad_merges],
            "partial_utf8": [{"id": i, "token": t} for i, t in self.partial_utf8],
            "duplicates": [{"token": t, "ids": ids} for t, ids in self.duplicates],
            "split_specials": [{"id": i, "content": c, "pieces": p} for i, c, p in self.split_specials],
            "notes": self.notes,
        } | ({} if self.tokens is None else self._token_sections())

    def _token_sections(self) -> dict:
        extra = self.tokens.as_dict()
        extra.pop("counts")
        extra["token_checked"] = extra.pop("checked")
        extra["notes"] = self.notes + extra["notes"]
        return extra


def _check(cancel) -> None:
    if cancel is not None and (cancel.is_set() if hasattr(cancel, "is_set") else cancel()):
        raise Cancelled("vocabulary health check cancelled")


def vocab_health(tokenizer, *, progress: Callable[[int, int], None] | None = None, cancel=None) -> HealthReport:
    """Check every token of `tokenizer` (see the module docstring)."""
    model = tokenizer.model
    report = HealthReport(model.kind, tokenizer.vocab_size)
    skip = {t.id for t in tokenizer.added.tokens}
    table = getattr(model, "table", None)  # sentencepiece: control, unknown, byte pieces never match text
    if table is not None and getattr(table, "types", None) is not None:
        from ..core.sentencepiece import NORMAL

        skip |= {i for i, t in enumerate(table.types) if t != NORMAL}
    items = sorted(model.vocab.items(), key=lambda kv: kv[1])
    total = len(items)
    step = max(1, total // 100)
    encode_own = _own_encoder(model)
    if encode_own is None:
        report.notes.append(Message(QT_TRANSLATE_NOOP("health", "reachability is not checked for {model} models "
                                                                "(greedy longest match gives every word-initial token "
                                                                "from its own string)"), model=model.kind))
    if isinstance(model, BPE) and (model.ignore_merges or not model.has_merge_list):
        report.notes.append(QT_TRANSLATE_NOOP("health", "this BPE takes a pre-token that is a token whole "
                                                        "(ignore_merges / tiktoken): unreachable here means no "
                                                        "sequence of merges makes the token, so it only appears when "
                                                        "a whole pre-token equals it"))
    for k, (token, i) in enumerate(items):
        if k % step == 0:
            _check(cancel)
            if progress is not None:
                progress(k, total)
        if i in skip:
            continue
        data = tokenizer.token_bytes(i)
        if tokenizer.byte_level and _partial(data):
            report.partial_utf8.append((i, token))
        if encode_own is not None:
            got = encode_own(token)
            if got is not None:
                report.checked += 1
                if got != [token]:
                    report.unreachable.append((i, token, got))
    report.duplicates = duplicate_tokens(tokenizer)
    if isinstance(model, BPE) and model.has_merge_list:  # (a tiktoken-style ranking lists none)
        _check(cancel)
        report.bad_merges = bad_merges(model)
    report.split_specials = split_added_tokens(tokenizer)
    if progress is not None:
        progress(total, total)
    return report


def _partial(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _own_encoder(model) -> Callable[[str], list[str] | None] | None:
    """token -> the symbols its own string encodes to (None: nothing to check for this token).
    A BPE's merges alone are checked (without ignore_merges' whole-word lookup)."""
    if isinstance(model, BPE):
        def bpe(token: str) -> list[str] | None:
            if len(token) < 2:
                return None  # a base symbol: reachable by definition
            if model.prefix and token.startswith(model.prefix):
                return None  # a continuation token: it is made inside words, not from its own string
            return list(trace_bpe(model, token, whole_words=False).result)
        return bpe
    if isinstance(model, Unigram):
        match = model._match

        def unigram(token: str) -> list[str] | None:
            if token not in match or len(token) < 2:
                return None
            return [model.pieces[i][0] if i >= 0 else token[a:b] for i, a, b in model.viterbi(token)]
        return unigram
    if model.kind == "WordPiece" or not hasattr(model, "tokenize"):
        return None

    def other(token: str) -> list[str] | None:  # e.g. a sentencepiece BPE (merges by piece score)
        if len(token) < 2:
            return None
        try:
            return [model.id_to_token(i) for i, _, _ in model.tokenize(token)]
        except Exception:  # noqa: BLE001 - a piece the model cannot encode alone is not reachable
            return []
    return other


def bad_merges(model: BPE) -> list[tuple[int, str, str, str]]:
    """(rank, left, right, why) of every merge that cannot work as listed."""
    vocab = model.vocab
    making = merges_making(model)
    later = merge_index(model).later_parts().tolist()  # (only these need the lookups below)
    out = []
    for (r, a, b, m), maybe_late in zip(iter_merges(model), later):
        if a not in vocab or b not in vocab:
            missing = [x for x in (a, b) if x not in vocab]
            out.append((r, a, b, Message(QT_TRANSLATE_NOOP("health", "part {part!r} is not a token"), part=missing[0])
                        if len(missing) == 1 else
                        Message(QT_TRANSLATE_NOOP("health", "part {left!r} and {right!r} is not a token"),
                                left=a, right=b)))
        elif m not in vocab:
            out.append((r, a, b, Message(QT_TRANSLATE_NOOP("health", "result {token!r} is not a token"), token=m)))
        elif maybe_late:
            late = [x for x in (a, b) if x in making and making[x][0] > r]
            if late:
                out.append((r, a, b, Message(QT_TRANSLATE_NOOP("health", "part {late}"), late=Joined(
                    QT_TRANSLATE_NOOP("health", " and "),
                    [Message(QT_TRANSLATE_NOOP("health", "{part!r} is only made by merge {rank}"), part=x,
                             rank=making[x][0]) for x in late]))))
    return out


def duplicate_tokens(tokenizer) -> list[tuple[str, list[int]]]:
    """Token strings that several ids stand for."""
    ids_of: dict[str, list[int]] = {}
    for i in range(tokenizer.vocab_size):
        token = tokenizer.id_to_token(i)
        if token is not None:
            ids_of.setdefault(token, []).append(i)
    return [(t, ids) for t, ids in ids_of.items() if len(ids) > 1]


def split_added_tokens(tokenizer) -> list[tuple[int, str, list[str]]]:
    """Added tokens whose text the pre-tokenizer cuts in pieces: if the text were not matched
    whole (special tokens not allowed, or a changed added-token list) they would come apart."""
    from ..core.normalized import NormalizedString

    pre = tokenizer.pre_tokenizer
    if pre is None:
        return []
    out = []
    for t in tokenizer.added.tokens:
        pieces = [p.text for p in pre.split(NormalizedString(t.content)) if p.text]
        if len(pieces) > 1:
            out.append((t.id, t.content, pieces))
    return out


def edit_impact(before: BPE, after: BPE, words: Iterable[str]) -> list[tuple[str, list[str], list[str]]]:
    """(word, segmentation before, after) of every word that `after` cuts differently."""
    out = []
    for w in dict.fromkeys(words):
        a = [s for s, _ in before._word(w)]
        b = [s for s, _ in after._word(w)]
        if a != b:
            out.append((w, a, b))
    return out


def with_merges(model: BPE, added: list[tuple[str, str]], at_rank: int | None = None,
                first_id: int | None = None) -> BPE:
    """A copy of `model` with merges added (at the end, or from rank `at_rank` on), and their
    results added to the vocabulary (new ids from `first_id`, default after the model's last):
    the edit `edit_impact` compares."""
    if not model.has_merge_list:
        raise ValueError("a tiktoken-style BPE ranks merges by token id: add tokens, not merges")
    merges = list(model.merges)
    where = len(merges) if at_rank is None else at_rank
    merges[where:where] = added
    vocab = dict(model.vocab)
    next_id = max(max(vocab.values(), default=-1) + 1, first_id or 0)
    for a, b in added:
        if model._merged(a, b) not in vocab:
            vocab[model._merged(a, b)] = next_id
            next_id += 1
    return BPE(vocab, merges, unk_token=model.unk_token, continuing_subword_prefix=model.prefix or None,
               end_of_word_suffix=model.suffix or None, fuse_unk=model.fuse_unk, byte_fallback=model.byte_fallback,
               ignore_merges=model.ignore_merges, end_of_word_symbol=model.end_symbol or None)


def with_added_tokens(tokenizer, tokens: list) -> object:
    """A copy of `tokenizer` that also matches `tokens` (AddedToken) in text: the other edit
    `added_token_impact` compares.  The model and its native encoder are shared."""
    import copy

    from ..core.added import AddedVocabulary

    edited = copy.copy(tokenizer)
    edited.added = AddedVocabulary(list(tokenizer.added.tokens) + list(tokens))
    edited.inherit_id_tables(tokenizer, [t.id for t in tokens])
    return edited


def added_token_impact(before, after, texts: Iterable[str]) -> list[tuple[str, list[str], list[str]]]:
    """(text, tokens before, tokens after) of every text that `after` (e.g. `with_added_tokens`)
    encodes differently from `before`."""
    out = []
    for text in dict.fromkeys(texts):
        a = before.encode(text).tokens
        b = after.encode(text).tokens
        if a != b:
            out.append((text, a, b))
    return out
