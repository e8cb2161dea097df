"""Token health beyond reachability: the token kinds of Land & Bartolo 2024 ("Fishing for
Magikarp") and Chizhov et al. 2024 ("BPE Gets Picky").

    >>> th = token_health(tok)                 # or full_health(tok): with `vocab_health` too
    >>> th.counts()  # Qwen2.5
    {'undecodable': 3357, 'unproduced specials': 14, 'intermediate-only': 255, 'added duplicates': 0,
     'same decode': 0, 'stray bytes': 1448}

* undecodable: `decode([id])` encoded again does not give `[id]` — neither the text itself
  ("plain"), nor with a space in front ("space": e.g. a word-start piece whose leading space the
  decoder drops), nor after an anchor token ("after a word": `decode([a, id])` encodes to
  `[a, id]` for one anchor a of "7", "x", "#", "«", which a word-continuation piece such as
  sentencepiece's 'ing' or WordPiece's '##ing' needs).  Each finding lists what every form gave;
  `round_trip` counts which form first succeeded for the others.  Added tokens and
  sentencepiece control, unknown and byte pieces are not tried (they are not text).
* unproduced specials: special added tokens and control pieces that encoding text (special-token
  matching off) never gives: only a template, the post-processor or explicit special-token
  matching puts them in.  The model's unknown token is not one (unknown text gives it).
* intermediate-only: intersection over self (IoS) on a corpus: of the times a merge makes the
  token while encoding the corpus, the share merged again into a longer token; the tokens with
  IoS >= `ios_threshold` made at least `min_count` times (BPE models only).  A vocabulary-only
  variant (every token string as the corpus) is not computed: encoding a reachable token's string
  merges every intermediate token again by definition, so it would flag nearly every merge part.
* added duplicates: added tokens whose content is also a model token with another id.
* same decode: several ids that decode to the same text, by the decoder in context (the text a
  token adds after the anchor, so that a dropped leading space does not count), e.g. byte piece
  <0x41> and 'A'.  Tokens of stray bytes are left out (they decode to U+FFFD).
* stray bytes: tokens whose bytes are not UTF-8 alone, so that decoding token by token differs
  from decoding the sequence; each with where its bytes break ("starts inside a character",
  "ends inside a character", "invalid byte").

Byte pieces (sentencepiece's <0x41>) count in "stray bytes" and "same decode", not as undecodable.
Plain data, no Qt; `progress(done, total)` and `cancel` as in `vocab_health`.
"""
from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.models.bpe import BPE
from ..core.sentencepiece import SentencePieceBPE
from ..messages import QT_TRANSLATE_NOOP, Joined, Message
from .health import HealthReport, _check, vocab_health

ANCHORS = ("7", "x", "#", "«")
# (the names of the forms are Templates: strs, translated where the GUI shows them)
FORMS = (QT_TRANSLATE_NOOP("health", "plain"), QT_TRANSLATE_NOOP("health", "space"),
         QT_TRANSLATE_NOOP("health", "after a word"))
SECTIONS = ("undecodable", "unproduced specials", "intermediate-only", "added duplicates", "same decode",
            "stray bytes")
RESOURCES = Path(__file__).resolve().parents[1].parent / "resources"
DEFAULT_CORPUS = ("sample.txt", "training.txt")
_BATCH = 2048  # (a native batch holds the GIL while it splits: short ones keep the UI responsive)


@dataclass
class TokenHealth:
    model: str
    vocab_size: int
    corpus: str = ""  # what the IoS was measured on
    corpus_chars: int = 0
    ios_threshold: float = 0.9
    min_count: int = 3
    checked: int = 0  # tokens round-tripped
    round_trip: dict[str, int] = field(default_factory=dict)  # form -> tokens that first round-trip so
    undecodable: list[tuple[int, str, str, dict[str, list[int]]]] = field(default_factory=list)  # id, token, decode, form -> ids
    unproduced_specials: list[tuple[int, str, str]] = field(default_factory=list)  # id, content, who inserts it
    intermediate: list[tuple[int, str, float, int, int]] = field(default_factory=list)  # id, token, IoS, made, merged again
    added_duplicates: list[tuple[int, str, int]] = field(default_factory=list)  # added id, content, model token id
    same_decode: list[tuple[str, list[int]]] = field(default_factory=list)  # decoded text, its ids
    stray_bytes: list[tuple[int, str, str, str]] = field(default_factory=list)  # id, token, hex bytes, where it breaks
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return dict(zip(SECTIONS, (len(self.undecodable), len(self.unproduced_specials), len(self.intermediate),
                                   len(self.added_duplicates), len(self.same_decode), len(self.stray_bytes))))

    def ids(self, section: str) -> np.ndarray:
        """The ids a section names (for 'same decode' every id of every group), sorted."""
        rows = {
            "undecodable": [r[0] for r in self.undecodable],
            "unproduced specials": [r[0] for r in self.unproduced_specials],
            "intermediate-only": [r[0] for r in self.intermediate],
            "added duplicates": [i for a, _, m in self.added_duplicates for i in (a, m)],
            "same decode": [i for _, ids in self.same_decode for i in ids],
            "stray bytes": [r[0] for r in self.stray_bytes],
        }[section]
        return np.unique(np.array(rows, np.int64))

    def notes_by_id(self, section: str) -> dict[int, str]:
        """id -> a short text of why a section names it (what a table column shows)."""
        def ids(seq) -> str:
            return ", ".join(map(str, seq))

        if section == "undecodable":
            return {i: "; ".join(f"{form} → [{ids(got)}]" for form, got in f.items()) for i, _, _, f in self.undecodable}
        if section == "unproduced specials":
            return {i: f"only from {who}" for i, _, who in self.unproduced_specials}
        if section == "intermediate-only":
            return {i: f"IoS {ios:.2f}: {k:,} of {n:,} merged again" for i, _, ios, n, k in self.intermediate}
        if section == "added duplicates":
            notes = {a: f"added; also model token {m}" for a, _, m in self.added_duplicates}
            return notes | {m: f"model token; also added token {a}" for a, _, m in self.added_duplicates}
        if section == "same decode":
            return {i: f"decodes as {text!r}, like {ids(j for j in group if j != i)}"
                    for text, group in self.same_decode for i in group}
        if section == "stray bytes":
            return {i: f"[{h}] {why}" for i, _, h, why in self.stray_bytes}
        raise ValueError(f"unknown section {section!r}; the sections: {', '.join(SECTIONS)}")

    def as_dict(self) -> dict:
        return {
            "counts": self.counts(),
            "checked": self.checked,
            "round_trip": self.round_trip,
            "undecodable": [{"id": i, "token": t, "decoded": d, "failed": list(f), "encodes_to": f}
                            for i, t, d, f in self.undecodable],
            "unproduced_specials": [{"id": i, "content": c, "inserted_by": w} for i, c, w in self.unproduced_specials],
            "intermediate": {"corpus": self.corpus, "corpus_chars": self.corpus_chars, "ios_threshold": self.ios_threshold,
                             "min_count": self.min_count,
                             "tokens": [{"id": i, "token": t, "ios": round(s, 4), "made": n, "merged_again": k}
                                        for i, t, s, n, k in self.intermediate]},
            "added_duplicates": [{"id": a, "content": c, "model_id": m} for a, c, m in self.added_duplicates],
            "same_decode": [{"text": t, "ids": ids} for t, ids in self.same_decode],
            "stray_bytes": [{"id": i, "token": t, "bytes": h, "breaks": w} for i, t, h, w in self.stray_bytes],
            "notes": self.notes,
        }


def default_corpus() -> tuple[str, str]:
    """(name, text) of the sample texts shipped in resources/."""
    texts = [(RESOURCES / n).read_text(encoding="utf-8") for n in DEFAULT_CORPUS]
    return "resources/" + " + ".join(DEFAULT_CORPUS), "\n".join(texts)


def full_health(tokenizer, *, corpus: str | None = None, corpus_name: str = "", ios_threshold: float = 0.9,
                min_count: int = 3, progress: Callable[[int, int], None] | None = None, cancel=None) -> HealthReport:
    """`vocab_health` with `token_health` as its `.tokens` (progress over both)."""
    def part(offset: int):
        return None if progress is None else (lambda d, t: progress(offset + d * 500 // max(1, t), 1000))

    report = vocab_health(tokenizer, progress=part(0), cancel=cancel)
    report.tokens = token_health(tokenizer, corpus=corpus, corpus_name=corpus_name, ios_threshold=ios_threshold,
                                 min_count=min_count, progress=part(500), cancel=cancel)
    return report


def token_health(tokenizer, *, corpus: str | None = None, corpus_name: str = "", ios_threshold: float = 0.9,
                 min_count: int = 3, progress: Callable[[int, int], None] | None = None, cancel=None) -> TokenHealth:
    """Find the six token kinds of the module docstring.  `corpus`: the text IoS is measured on
    (default: the shipped sample texts)."""
    if corpus is None:
        corpus_name, corpus = default_corpus()
    th = TokenHealth(tokenizer.model.kind, tokenizer.vocab_size, corpus_name or QT_TRANSLATE_NOOP("health", "the given text"), len(corpus),
                     ios_threshold, min_count)
    report = (lambda d: progress(d, 100)) if progress is not None else (lambda d: None)
    report(0)
    all_ids, all_data = _text_ids(tokenizer, with_byte_pieces=True)  # (byte pieces decode too)
    byte_pieces = _byte_pieces(tokenizer)
    ids = [i for i in all_ids if i not in byte_pieces]
    _check(cancel)
    th.stray_bytes = [(i, tokenizer.id_to_token(i), b.hex(" "), why) for i, b in zip(all_ids, all_data)
                      if (why := stray_kind(b)) is not None]
    stray = {i for i, *_ in th.stray_bytes}
    report(5)
    anchors = _anchors(tokenizer)
    decoded = _decode_each(tokenizer, ids, cancel, lambda d: report(5 + 15 * d))
    th.checked = len(ids)
    th.undecodable, th.round_trip = _undecodable(tokenizer, ids, decoded, anchors, cancel,
                                                 lambda d: report(20 + 40 * d))
    if anchors:
        after = _decode_after(tokenizer, anchors[0], [i for i in all_ids if i not in stray], cancel,
                              lambda d: report(60 + 15 * d))
        th.same_decode = _groups(after)
    else:
        th.notes.append(QT_TRANSLATE_NOOP("health", "no anchor token ('7', 'x', '#' or '«' as one token): 'after a "
                                                    "word' and 'same decode' skipped"))
    th.unproduced_specials = unproduced_specials(tokenizer)
    th.added_duplicates = added_duplicates(tokenizer, {b: i for i, b in zip(all_ids, all_data) if i not in byte_pieces})
    report(80)
    model = tokenizer.model
    if isinstance(model, (BPE, SentencePieceBPE)):
        th.intermediate = intermediate_tokens(tokenizer, corpus, threshold=ios_threshold, min_count=min_count,
                                              cancel=cancel, progress=lambda d: report(80 + 20 * d))
    else:
        th.notes.append(Message(QT_TRANSLATE_NOOP("health", "intermediate-only tokens (IoS) are measured on BPE "
                                                            "merges; not for {model} models"), model=model.kind))
    report(100)
    return th


def _text_ids(tokenizer, *, with_byte_pieces: bool = False) -> tuple[list[int], list[bytes]]:
    """The ids that are text tokens (not added tokens, not sentencepiece control, unknown or, unless
    asked, byte pieces) and their bytes."""
    skip = {t.id for t in tokenizer.added.tokens}
    table = getattr(tokenizer.model, "table", None)
    if table is not None and getattr(table, "types", None) is not None:
        from ..core.sentencepiece import BYTE, CONTROL, UNKNOWN

        kinds = (CONTROL, UNKNOWN) if with_byte_pieces else (CONTROL, UNKNOWN, BYTE)
        skip |= {i for i, t in enumerate(table.types) if t in kinds}
    ids = [i for i in range(tokenizer.vocab_size) if i not in skip and tokenizer.id_to_token(i) is not None]
    return ids, [tokenizer.token_bytes(i) for i in ids]


def _byte_pieces(tokenizer) -> set[int]:
    table = getattr(tokenizer.model, "table", None)
    if table is None or getattr(table, "types", None) is None:
        return set()
    from ..core.sentencepiece import BYTE

    return {i for i, t in enumerate(table.types) if t == BYTE}


def stray_kind(data: bytes) -> str | None:
    """Where `data` stops being UTF-8 alone (None: it is UTF-8)."""
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError:
        pass
    where = []
    if 0x80 <= data[0] <= 0xBF:
        where.append(QT_TRANSLATE_NOOP("health", "starts inside a character"))
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    text = dec.decode(data, final=False)
    if dec.getstate()[0]:
        where.append(QT_TRANSLATE_NOOP("health", "ends inside a character"))
    if "\ufffd" in text and not where:
        where.append(QT_TRANSLATE_NOOP("health", "invalid byte"))
    elif "\ufffd" in text.lstrip("\ufffd") and where:
        where.append(QT_TRANSLATE_NOOP("health", "invalid byte"))
    return Joined(QT_TRANSLATE_NOOP("health", ", "), where)


def _encode_many(tokenizer, texts: list[str]) -> list[list[int]]:
    batch = getattr(tokenizer, "encode_ids_batch", None)
    if batch is not None:
        return batch(texts, allow_special=False)
    return [tokenizer.encode_ids(t, allow_special=False) for t in texts]


def _chunks(items: list, cancel, progress: Callable[[float], None]):
    for start in range(0, len(items), _BATCH):
        _check(cancel)
        progress(start / max(1, len(items)))
        yield items[start : start + _BATCH]
    progress(1.0)


def _decode_each(tokenizer, ids, cancel, progress) -> list[str]:
    out: list[str] = []
    for chunk in _chunks(ids, cancel, progress):
        out.extend(tokenizer.decode([i]) for i in chunk)
    return out


def _anchors(tokenizer) -> list[int]:
    """Ids of the anchor texts that encode to one token."""
    out = []
    for text in ANCHORS:
        got = tokenizer.encode_ids(text, allow_special=False)
        if len(got) == 1 and got[0] not in out:
            out.append(got[0])
    return out


def _undecodable(tokenizer, ids, decoded, anchors, cancel, progress):
    found: dict[int, dict[str, list[int]]] = {}
    round_trip = dict.fromkeys(FORMS, 0)
    todo = list(zip(ids, decoded))
    forms = [("plain", lambda i, s: s), ("space", lambda i, s: " " + s)]
    forms += [("after a word", lambda i, s, a=a: tokenizer.decode([a, i])) for a in anchors]
    for k, (form, make) in enumerate(forms):
        want = (lambda i: [i]) if form != "after a word" else (lambda i, a=anchors[k - 2]: [a, i])
        texts = [make(i, s) for i, s in todo]
        got: list[list[int]] = []
        for chunk in _chunks(texts, cancel, lambda d, k=k: progress((k + d) / len(forms))):
            got.extend(_encode_many(tokenizer, chunk))
        left = []
        for (i, s), g in zip(todo, got):
            if g == want(i):
                round_trip[form] += 1
            else:
                fails = found.setdefault(i, {})
                fails.setdefault(form, g)  # (after a word: what the first anchor gave)
                left.append((i, s))
        todo = left
    todo.sort(key=lambda r: ("\ufffd" in r[1], r[0]))  # stray bytes (U+FFFD) after the surprising ones
    return [(i, tokenizer.id_to_token(i), s, found[i]) for i, s in todo], round_trip


def _decode_after(tokenizer, anchor: int, ids, cancel, progress) -> dict[int, str]:
    """id -> the text `decode([anchor, id])` adds after `decode([anchor])`."""
    head = tokenizer.decode([anchor])
    out = {}
    for chunk in _chunks(ids, cancel, progress):
        for i in chunk:
            text = tokenizer.decode([anchor, i])
            out[i] = text[len(head):] if text.startswith(head) else tokenizer.decode([i])
    return out


def _groups(pieces: dict[int, str]) -> list[tuple[str, list[int]]]:
    ids_of: dict[str, list[int]] = {}
    for i, text in pieces.items():
        ids_of.setdefault(text, []).append(i)
    return [(t, ids) for t, ids in ids_of.items() if len(ids) > 1]


def unproduced_specials(tokenizer) -> list[tuple[int, str, str]]:
    """(id, content, who puts it in) of the special and control tokens that encoding text never
    gives: encoding their own content with special-token matching off does not give them."""
    model = tokenizer.model
    unk = model.vocab.get(model.unk_token) if getattr(model, "unk_token", None) else None
    wrapped: set[int] = set()
    if tokenizer.post_processor is not None:
        before, after = tokenizer.post_processor.wrap()
        wrapped = {i for i, _ in before + after}
    candidates = {t.id: t.content for t in tokenizer.added.tokens if t.special}
    table = getattr(model, "table", None)
    if table is not None and getattr(table, "types", None) is not None:
        from ..core.sentencepiece import CONTROL

        candidates.update({i: table.pieces[i] for i, t in enumerate(table.types) if t == CONTROL and i not in candidates})
    out = []
    for i, content in sorted(candidates.items()):
        if i == unk or not content:
            continue
        if tokenizer.encode_ids(content, allow_special=False) != [i]:
            who = (QT_TRANSLATE_NOOP("health", "the post-processor") if i in wrapped else
                   QT_TRANSLATE_NOOP("health", "templates / special-token matching"))
            out.append((i, content, who))
    return out


def added_duplicates(tokenizer, id_of_bytes: dict[bytes, int] | None = None) -> list[tuple[int, str, int]]:
    """(added id, content, model id) of the added tokens whose content is a model token with
    another id."""
    if id_of_bytes is None:
        ids, data = _text_ids(tokenizer)
        id_of_bytes = dict(zip(data, ids))
    out = []
    for t in tokenizer.added.tokens:
        other = id_of_bytes.get(t.content.encode("utf-8"))
        if other is not None and other != t.id:
            out.append((t.id, t.content, other))
    return out


def ios_counts(tokenizer, text: str, *, cancel=None, progress: Callable[[float], None] | None = None
               ) -> tuple[Counter, Counter]:
    """(made, merged_again): per token, how often encoding `text` makes it (by a merge, or whole
    by an ignore_merges lookup) and how often a later merge takes it as a part."""
    from .merges import trace_bpe
    from .segments import word_spans

    model = tokenizer.model
    words = Counter(w for w, _, _ in word_spans(tokenizer, text))
    if isinstance(model, SentencePieceBPE) and model.by_word:  # (as it encodes: word by word, and fast to trace)
        spans, words = words, Counter()
        for w, n in spans.items():
            for a, b in model._words(w):
                words[w[a:b]] += n
    made: Counter = Counter()
    again: Counter = Counter()
    items = list(words.items())
    for k, (word, n) in enumerate(items):
        if k % 2000 == 0:
            _check(cancel)
            if progress is not None:
                progress(k / max(1, len(items)))
        trace = trace_bpe(model, word)
        if trace.whole_word:
            made[word] += n
            continue
        merged = [False] * len(trace.initial)
        for step in trace.steps:
            p = step.position
            if merged[p]:
                again[step.left] += n
            if merged[p + 1]:
                again[step.right] += n
            merged[p : p + 2] = [True]
            made[step.merged] += n
    return made, again


def intermediate_tokens(tokenizer, text: str, *, threshold: float = 0.9, min_count: int = 3, cancel=None,
                        progress: Callable[[float], None] | None = None) -> list[tuple[int, str, float, int, int]]:
    """(id, token, IoS, made, merged again) of the tokens with IoS >= threshold, made at least
    min_count times in `text`; highest IoS first."""
    made, again = ios_counts(tokenizer, text, cancel=cancel, progress=progress)
    vocab = tokenizer.model.vocab
    out = []
    for token, n in made.items():
        ios = again[token] / n
        if n >= min_count and ios >= threshold and token in vocab:
            out.append((vocab[token], token, ios, n, again[token]))
    out.sort(key=lambda r: (-r[2], -r[3], r[0]))
    return out


def section_lines(th: TokenHealth) -> list[tuple[str, list[str]]]:
    """(section, one line of text per finding) for a text report."""
    def ids(seq):
        return ", ".join(map(str, seq))

    return [
        ("undecodable", [f"{i} {t!r} decodes to {d!r}; " + "; ".join(f"{form} -> [{ids(got)}]" for form, got in f.items())
                         for i, t, d, f in th.undecodable]),
        ("unproduced specials", [f"{i} {c!r}: only from {who}" for i, c, who in th.unproduced_specials]),
        ("intermediate-only", [f"{i} {t!r} IoS {s:.2f} ({k} of {n} merged again)" for i, t, s, n, k in th.intermediate]),
        ("added duplicates", [f"added {a} {c!r} is model token {m}" for a, c, m in th.added_duplicates]),
        ("same decode", [f"{t!r}: ids {ids(group)}" for t, group in th.same_decode]),
        ("stray bytes", [f"{i} {t!r} [{h}] {why}" for i, t, h, why in th.stray_bytes]),
    ]
