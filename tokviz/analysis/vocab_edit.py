"""Editing a vocabulary safely: each edit makes a new Tokenizer, and `check_edit` says what it would
break before anyone uses it.

    >>> edited = add_merges(tok, [("鲁", "木")], at_rank=0)
    >>> report = check_edit(tok, edited, words=["乌鲁木齐"])
    >>> report.newly_unreachable, report.changed_words
    ([(7, '乌鲁木齐')], [('乌鲁木齐', ['乌鲁木齐'], ['乌', '鲁木', '齐'])])

Edits: add special (or plain added) tokens, add reserved tokens, pad the vocabulary to a multiple
of N with reserved tokens, add BPE merges (their results become tokens; a merge may use what an
earlier one of the same edit made), add tokens matched whole in text, remove tokens (a BPE's merges
that make or use them go too).  The original tokenizer is never changed (the GUI keeps them for
undo).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ..core.added import AddedToken, AddedVocabulary
from ..core.models.bpe import BPE
from ..core.sentencepiece import (
    CONTROL,
    USER_DEFINED,
    SentencePieceBPE,
    SentencePieceNormalizer,
    SentencePieceUnigram,
    adds_pieces_only,
    with_new_pieces,
)
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Joined, Message
from .health import added_token_impact, vocab_health, with_merges
from .segments import words_of

RESERVED = "<|reserved_special_token_{}|>"


def _with_added(tokenizer, tokens: list[AddedToken]):
    edited = copy.copy(tokenizer)
    edited.added = AddedVocabulary(list(tokenizer.added.tokens) + tokens)
    edited._bytes_cache = {}
    edited.inherit_id_tables(tokenizer, [t.id for t in tokens])
    return edited


def _reprs(tokens) -> Joined:
    """'a', 'b', 'c': tokens named in a message."""
    return Joined(QT_TRANSLATE_NOOP("vocab_edit", ", "), map(repr, tokens))


def _next_id(tokenizer) -> int:
    return max(tokenizer.vocab_size, max((t.id + 1 for t in tokenizer.added.tokens), default=0))


def add_special_tokens(tokenizer, contents: list[str], *, special: bool = True):
    """A copy with `contents` added as special (or, special=False, plain added) tokens, new ids.
    A sentencepiece tokenizer gets them as pieces of its model (see `_with_pieces`)."""
    taken = {t.content for t in tokenizer.added.tokens}
    clash = [c for c in contents if c in taken or c in tokenizer.model.vocab]
    if clash:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "already in the vocabulary: {tokens}"),
                                  tokens=_reprs(clash)))
    if "" in contents:
        raise TokvizError(QT_TRANSLATE_NOOP("vocab_edit", "a token cannot be empty"))
    if tokenizer.text_normalizer is not None:
        return _with_pieces(tokenizer, contents, special=special)
    start = _next_id(tokenizer)
    return _with_added(tokenizer, [AddedToken(c, start + k, special=special) for k, c in enumerate(contents)])


def _with_pieces(tokenizer, contents: list[str], *, special: bool):
    """A copy of a sentencepiece tokenizer with `contents` as new pieces: control pieces (special:
    ids only, as <s>), else user-defined pieces, which sentencepiece keeps whole wherever they
    appear in the text.  (Its text is never cut at added tokens, so they would change nothing;
    as pieces, the edit also fits in a .model.)"""
    sentencepiece = isinstance(tokenizer.model, (SentencePieceBPE, SentencePieceUnigram))
    if not sentencepiece or not isinstance(tokenizer.text_normalizer, SentencePieceNormalizer):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "tokens cannot be added to this {model} model: its "
                                                                  "whole-text normalizer is not sentencepiece's"),
                                  model=tokenizer.model.kind))
    if any(t.id >= len(tokenizer.model.table.pieces) for t in tokenizer.added.tokens):
        raise TokvizError(QT_TRANSLATE_NOOP("vocab_edit", "this sentencepiece tokenizer has added tokens outside its "
                                                          "pieces; new pieces would take their ids"))
    spaced = [c for c in contents if any(ch.isspace() for ch in c)]
    if spaced and not special:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "{token!r} holds a space: sentencepiece writes "
                                                                  "spaces as '▁' before it looks for pieces, so a "
                                                                  "piece with a space would never be kept whole"),
                                  token=spaced[0]))
    piece_type = CONTROL if special else USER_DEFINED
    start = len(tokenizer.model.table.pieces)
    edited = copy.copy(tokenizer)
    edited.model, edited.text_normalizer, edited.decode_fn = with_new_pieces(
        tokenizer.model, tokenizer.text_normalizer, tokenizer.decode_fn, contents, piece_type)
    if special:
        edited.added = AddedVocabulary(list(tokenizer.added.tokens)
                                       + [AddedToken(c, start + k, special=True) for k, c in enumerate(contents)])
    _reset(edited)
    return edited


def add_reserved_tokens(tokenizer, count: int):
    """A copy with `count` reserved special tokens (<|reserved_special_token_N|>, N not yet used)."""
    taken = {t.content for t in tokenizer.added.tokens} | set(tokenizer.model.vocab)
    names, k = [], 0
    while len(names) < count:
        name = RESERVED.format(k)
        if name not in taken:
            names.append(name)
        k += 1
    return add_special_tokens(tokenizer, names)


def padding(tokenizer, multiple: int) -> tuple[int, int]:
    """(size, tokens to add): the vocabulary size now (the next free id) and how many reserved
    tokens `pad_to_multiple(tokenizer, multiple)` adds to reach the next multiple."""
    if multiple < 1:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "the multiple must be at least 1, got {multiple}"),
                                  multiple=multiple))
    size = _next_id(tokenizer)
    return size, -size % multiple


def pad_to_multiple(tokenizer, multiple: int):
    """A copy whose vocabulary size is rounded up to a multiple of `multiple` with reserved tokens."""
    _, missing = padding(tokenizer, multiple)
    return add_reserved_tokens(tokenizer, missing) if missing else tokenizer


def add_merges(tokenizer, merges: list[tuple[str, str]], at_rank: int | None = None):
    """A copy of a BPE tokenizer with `merges` (pairs in the model's alphabet) inserted from rank
    `at_rank` on (default: after the last), in the order given, their results added as tokens.
    Each merge may use tokens of the model and results of the merges listed before it
    ("pp le; ĠA pple"); anything else is refused with the reason, as is a merge the model has."""
    model = tokenizer.model
    if not isinstance(model, BPE):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "merges can only be added to a BPE model, not "
                                                                  "{model}"), model=model.kind))
    if not model.has_merge_list:
        raise TokvizError(QT_TRANSLATE_NOOP("vocab_edit", "this BPE ranks its merges by token id (tiktoken style): "
                                                          "add tokens, not merges"))
    if not merges:
        raise TokvizError(QT_TRANSLATE_NOOP("vocab_edit", "no merge given"))
    if at_rank is not None and not 0 <= at_rank <= len(model.merges):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "rank {rank} is outside the merge list (0 to "
                                                                  "{last})"), rank=at_rank, last=len(model.merges)))
    _check_merges(model, merges)
    edited = copy.copy(tokenizer)
    edited.model = with_merges(model, merges, at_rank, first_id=_next_id(tokenizer))
    _reset(edited)
    return edited


def _check_merges(model: BPE, merges: list[tuple[str, str]]) -> None:
    """Raise TokvizError naming every part that is neither a token nor made by an earlier merge
    of the list, and every merge the model (or the list) already has."""
    made_by = {}
    for k, (a, b) in enumerate(merges):
        made_by.setdefault(model._merged(a, b), k)
    known = set(model.vocab)
    unknown: dict[str, None] = {}
    problems = []
    seen = set()
    for k, (a, b) in enumerate(merges):
        for part in (a, b):
            if part in known:
                continue
            if made_by.get(part, -1) > k:
                problems.append(Message(QT_TRANSLATE_NOOP("vocab_edit", "{part!r} is made by merge {maker} ({made}), "
                                                                        "listed after merge {user} ({a} {b}) that uses "
                                                                        "it: list it first"),
                                        part=part, maker=made_by[part] + 1, made=" ".join(merges[made_by[part]]),
                                        user=k + 1, a=a, b=b))
            else:
                unknown[part] = None
        rank = model.rank_of(a, b)
        if rank is not None:
            problems.append(Message(QT_TRANSLATE_NOOP("vocab_edit", "'{a} {b}' is already merge {rank} of this model"),
                                    a=a, b=b, rank=rank))
        elif (a, b) in seen:
            problems.append(Message(QT_TRANSLATE_NOOP("vocab_edit", "'{a} {b}' is listed twice"), a=a, b=b))
        seen.add((a, b))
        known.add(model._merged(a, b))
    if unknown:
        problems.insert(0, Message(QT_TRANSLATE_NOOP("vocab_edit", "not tokens of this model, nor made by an earlier "
                                                                   "merge of this edit: {tokens}"),
                                   tokens=_reprs(unknown)))
    if problems:
        raise TokvizError(Joined(QT_TRANSLATE_NOOP("vocab_edit", "; "), problems))


def remove_tokens(tokenizer, tokens: list[str]):
    """A copy of a BPE tokenizer without `tokens`: the merges that make or use them go too (the
    tokens they made stay, and may now be unreachable: see `check_edit`).  Ids are not renumbered."""
    model = tokenizer.model
    if not isinstance(model, BPE) or model.merges is None:
        raise TokvizError(QT_TRANSLATE_NOOP("vocab_edit", "tokens can only be removed from a BPE model with a merge "
                                                          "list"))
    gone = set(tokens)
    unknown = [t for t in tokens if t not in model.vocab]
    if unknown:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("vocab_edit", "not tokens of this model: {tokens}"),
                                  tokens=_reprs(unknown)))
    vocab = {t: i for t, i in model.vocab.items() if t not in gone}
    merges = [(a, b) for a, b in model.merges if a not in gone and b not in gone and model._merged(a, b) not in gone]
    edited = copy.copy(tokenizer)
    edited.model = BPE(vocab, merges, unk_token=model.unk_token, continuing_subword_prefix=model.prefix or None,
                       end_of_word_suffix=model.suffix or None, fuse_unk=model.fuse_unk,
                       byte_fallback=model.byte_fallback, ignore_merges=model.ignore_merges,
                       end_of_word_symbol=model.end_symbol or None)
    _reset(edited)
    return edited


def _reset(edited) -> None:
    """Drop what the copy shares with the original but must compute again for its new model."""
    edited._native = None
    edited._tables = None
    edited._bytes_cache = {}


@dataclass
class EditReport:
    """What an edit changes: tokens added and removed (id, token in the model's alphabet), tokens
    reachable before and not after, words cut differently, and the size before and after."""

    size_before: int
    size_after: int
    added_tokens: list[tuple[int, str]] = field(default_factory=list)
    removed_tokens: list[tuple[int, str]] = field(default_factory=list)
    newly_unreachable: list[tuple[int, str]] = field(default_factory=list)
    changed_words: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    words_checked: int = 0
    unit: str = "words"  # what changed_words holds: words, or lines of the text

    @property
    def safe(self) -> bool:
        return not self.newly_unreachable

    def summary(self) -> str:
        parts = [f"vocabulary {self.size_before:,} → {self.size_after:,}"]
        if self.added_tokens:
            parts.append(f"{len(self.added_tokens):,} token(s) added")
        if self.removed_tokens:
            parts.append(f"{len(self.removed_tokens):,} token(s) removed")
        if self.newly_unreachable:
            parts.append(f"{len(self.newly_unreachable):,} token(s) become unreachable: "
                         + ", ".join(repr(t) for _, t in self.newly_unreachable[:5]))
        else:
            parts.append("no token becomes unreachable")
        parts.append(f"{len(self.changed_words):,} of {self.words_checked:,} {self.unit} checked cut differently")
        return "; ".join(parts)


def _tokens_by_id(tokenizer) -> dict[int, str]:
    """id -> token of the model's vocabulary and of the added tokens."""
    out = {i: t for t, i in tokenizer.model.vocab.items()}
    out.update((t.id, t.content) for t in tokenizer.added.tokens)
    return out


def check_edit(before, after, *, words: list[str] | None = None, text: str = "") -> EditReport:
    """Compare `after` (an edited copy) with `before`: the tokens added and removed (by id), tokens
    that were reachable and are not any more (health report of both), and which words cut differently — `words` in the model's
    alphabet, plus the words of `text`, plus every token's own string.  An edit that only adds
    tokens matched in text (same model, or new sentencepiece pieces) is checked on the lines of
    `text` instead."""
    report = EditReport(before.vocab_size, after.vocab_size)
    was, now = _tokens_by_id(before), _tokens_by_id(after)
    report.added_tokens = sorted((i, t) for i, t in now.items() if was.get(i) != t)
    report.removed_tokens = sorted((i, t) for i, t in was.items() if now.get(i) != t)
    if after.model is before.model or adds_pieces_only(before.model, after.model):
        # Added tokens only (the model is shared), or pieces added to a sentencepiece model (kept
        # whole where they appear): no token's reachability and no word's merges can change, so
        # the two health checks and the vocabulary's words would find nothing; what changes is
        # the text where the new tokens match, line by line.
        report.unit = "lines of the text"
        lines = list(dict.fromkeys(line for line in text.splitlines() if line.strip()))
        report.words_checked = len(lines)
        report.changed_words = added_token_impact(before, after, lines)
        return report
    unreachable_before = {t for _, t, _ in vocab_health(before).unreachable}
    report.newly_unreachable = [(i, t) for i, t, _ in vocab_health(after).unreachable if t not in unreachable_before]
    candidates = list(words or [])
    if text:
        candidates += [w for w, _ in words_of(before, text)]
    if isinstance(before.model, BPE) and isinstance(after.model, BPE):
        candidates += list(before.model.vocab)
        seen = dict.fromkeys(candidates)
        report.words_checked = len(seen)
        for w in seen:
            a = [s for s, _ in before.model._word(w)]
            b = [s for s, _ in after.model._word(w)]
            if a != b:
                report.changed_words.append((w, a, b))
    elif text:
        report.words_checked = 1
        a, b = before.encode(text).tokens, after.encode(text).tokens
        if a != b:
            report.changed_words.append((text, a, b))
    return report
