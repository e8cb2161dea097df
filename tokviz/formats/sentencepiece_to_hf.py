"""A sentencepiece BPE tokenizer (.model) as an HF tokenizers pipeline, for tokenizer.json.

sentencepiece normalizes the whole text in one pass and runs its own model; HF tokenizers has a
component for each step.  The pipeline built here:

- normalizer: the precompiled character map; with remove_extra_whitespaces, spaces trimmed at both
  ends and runs of them squeezed to one (sentencepiece counts only " " as a space here); " " ->
  "▁"; with add_dummy_prefix, a text that already starts with "▁" gets a second one, because the
  Metaspace below adds its "▁" only to a text that does not start with one;
- pre-tokenizer: Metaspace (prepends "▁", never splits), then a Split isolating the user-defined
  pieces, which sentencepiece emits whole;
- model: BPE with the merges every piece can be made of, ranked by the piece's score (as
  sentencepiece merges the pair making the best-scoring piece), taking a user-defined piece
  whole (ignore_merges);
- decoder: "▁" -> " ", byte pieces to text, the first space dropped.

What HF cannot do is refused by `sentencepiece_hf_problem`: Unigram models (sentencepiece adds
their scores in single precision, HF in double, and cuts of equal score fall differently),
treat_whitespace_as_suffix, pieces marked unused, a denormalizer, a "▁" that is not the escaped
space, a character map HF applies differently (`charsmap_hf_problem`), and pieces of equal score
that HF's ranks order otherwise than sentencepiece's leftmost-first rule (`tied_scores_problem`).
What stays different (the tests measure it): control and unknown piece strings typed in the text
(HF matches added special tokens; sentencepiece never does).

HF's Precompiled normalizer applies a character map grapheme cluster by cluster: a cluster under
6 bytes is replaced whole by the rule of its shortest matching start (the rest of the cluster
dropped), a longer one character by character, and no rule reaches across clusters; sentencepiece
takes the longest rule at each position of the text.  The two agree only for a map whose rules
are single characters that never start a longer cluster (or of 4 bytes): in practice a model
without a character map (identity).  The check walks every rule and shows a text that comes out
differently; nmt_nfkc maps fail it (half-width katakana with voiced marks, Hangul jamo, a mapped
character followed by a combining mark).
"""
from __future__ import annotations

import random
import weakref

import regex

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import pre_tokenizers as pre
from ..core.models.bpe import BPE
from ..core.sentencepiece import NORMAL, SentencePieceBPE, SentencePieceNormalizer, SentencePieceUnigram
from ..core.tokenizer import Source, Tokenizer

SPACE = "\u2581"
_REGEX_SPECIAL = set("\\^$.|?*+()[]{}#- \t\n\r\f\v")


def is_sentencepiece(tok: Tokenizer) -> bool:
    """Whether `tok` is a sentencepiece .model tokenizer (normalizer and model of its own)."""
    return isinstance(tok.text_normalizer, SentencePieceNormalizer) and isinstance(
        tok.model, (SentencePieceBPE, SentencePieceUnigram))


def sentencepiece_hf_problem(tok: Tokenizer) -> str | None:
    """Why the sentencepiece tokenizer `tok` cannot be written as tokenizer.json (None: it can)."""
    normalizer, model = tok.text_normalizer, tok.model
    table = model.table
    if isinstance(model, SentencePieceUnigram):
        return ("sentencepiece adds a Unigram model's scores in single precision and HF tokenizers in double, so "
                "cuts of equal score (the same pieces in another order) fall differently: 50 of 15,069 corpus "
                "chunks with an 8k model; keep it as a .model file")
    if normalizer.treat_whitespace_as_suffix:
        return ("this sentencepiece model puts '▁' after words (treat_whitespace_as_suffix); HF's Metaspace "
                "can only put it in front")
    if normalizer.add_dummy_prefix and not normalizer.escape_whitespaces:
        return ("this sentencepiece model adds a space in front of the text without escaping spaces as '▁'; "
                "HF's Metaspace always adds '▁'")
    if table.unused:
        return (f"this sentencepiece model marks {len(table.unused)} pieces as unused (never produced); "
                "HF's models have no such pieces")
    if getattr(tok.decode_fn, "denormalizer", None) is not None:
        return "this sentencepiece model has a denormalizer for decoding, which tokenizer.json cannot express"
    if len(table.vocab) != len(table.pieces):
        return "a piece of this sentencepiece model is listed twice, which tokenizer.json cannot hold"
    if isinstance(model, SentencePieceBPE) and table.user_defined:
        piece = _piece_not_made_whole(model)
        if piece is not None:
            return (f"this sentencepiece BPE has user-defined pieces, which HF can only take whole by taking every "
                    f"piece whole (ignore_merges), but its merges cut the piece {piece!r} differently")
    if normalizer.charsmap is not None:
        problem = charsmap_hf_problem(normalizer.charsmap)
        if problem:
            return problem
    return tied_scores_problem(model)


_CHARSMAP_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_JOINERS = ("\u0301", "\u200d", "\u3099")  # an Extend mark, ZWJ, a kana voicing mark


def charsmap_hf_problem(charsmap) -> str | None:
    """Why HF's Precompiled normalizer does not give what sentencepiece gives with `charsmap`
    (None: it does), with a text showing it.  Every rule is looked at: one of several characters,
    or of a character that a following mark joins in a cluster under 6 bytes, is tried alone and
    followed by such marks, through both normalizers.  (Checked once per map.)"""
    if charsmap in _CHARSMAP_CHECKED:
        return _CHARSMAP_CHECKED[charsmap]
    spm_way = SentencePieceNormalizer(charsmap, add_dummy_prefix=False, remove_extra_whitespaces=False,
                                      escape_whitespaces=False)
    hf_way = norm.Precompiled(charsmap)
    problem = None
    for key, _ in charsmap.rules():
        try:
            text = key.decode("utf-8")
        except UnicodeDecodeError:
            problem = (f"this model's character map has a rule for the bytes {key!r}, which are not whole characters; "
                       "HF's Precompiled normalizer applies rules per grapheme cluster and sentencepiece per byte")
            break
        if len(text) == 1 and (len(key) > 3 or len(regex.findall(r"\X", text + _JOINERS[0])) > 1):
            continue  # a single character no mark joins in a short cluster: both apply it alike
        for witness in (text, *(text + j for j in _JOINERS)):
            ours, theirs = spm_way.normalize_str(witness), hf_way.normalize_str(witness)
            if ours != theirs:
                problem = (f"this model's normalization rules do not carry over to HF's Precompiled normalizer, which "
                           f"applies them per grapheme cluster (a cluster under 6 bytes by the rule of its start, the "
                           f"rest dropped; a longer one character by character; none across clusters) where "
                           f"sentencepiece takes the longest rule anywhere: {_shown(witness)} becomes "
                           f"{_shown(ours)} in sentencepiece and {_shown(theirs)} in HF; keep it as a .model file")
                break
        if problem:
            break
    _CHARSMAP_CHECKED[charsmap] = problem
    return problem


def _shown(text: str) -> str:
    """A short text and its code points (combining marks do not show on their own)."""
    return f"{text!r} ({' '.join(f'U+{ord(c):04X}' for c in text)})"


_TIES_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tied_scores_problem(model) -> str | None:
    """Why HF's BPE, which ranks every merge apart, would merge some word otherwise than
    sentencepiece, which merges the leftmost of pieces of equal score first (None: no word found).
    For each set of pieces made by merges that share a score, words over their characters are
    tried (runs of one character up to 40 long, else 400 seeded random words) by both.
    (Checked once per model.)"""
    if not isinstance(model, SentencePieceBPE):
        return None
    if model in _TIES_CHECKED:
        return _TIES_CHECKED[model]
    table = model.table
    scores = model.merge_scores
    normal = {p: i for i, p in enumerate(table.pieces) if table.types[i] == NORMAL}
    groups: dict[float, list[str]] = {}
    for piece, i in normal.items():
        if any(piece[:k] in normal and piece[k:] in normal for k in range(1, len(piece))):
            groups.setdefault(scores[i], []).append(piece)
    tied = [g for g in groups.values() if len(g) > 1]
    problem = None
    if tied:
        hf = BPE(dict(table.vocab), bpe_merges(table, scores), unk_token=table.pieces[table.unk_id] if table.unk_id >= 0
                 else None, fuse_unk=True, byte_fallback=model.byte_fallback)
        rng = random.Random(0)
        for group in tied[:50]:
            alphabet = sorted(set("".join(group)))
            if len(alphabet) == 1:
                words = [alphabet[0] * k for k in range(2, 41)]
            else:
                words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 12))) for _ in range(400)]
            for word in words:
                ours = [t[0] for t in model.merge(word)]
                theirs = [t[0] for t in hf.tokenize(word)]
                if ours != theirs:
                    problem = (f"pieces of this sentencepiece BPE share a score ({group[0]!r} and {group[1]!r} "
                               f"among them): sentencepiece merges the leftmost of them first, HF's BPE by rank, "
                               f"and {word!r} comes out as {[table.pieces[i] for i in ours]} in "
                               f"sentencepiece but {[table.pieces[i] for i in theirs]} in HF")
                    break
            if problem:
                break
    _TIES_CHECKED[model] = problem
    return problem


_WHOLE_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _piece_not_made_whole(model: SentencePieceBPE) -> str | None:
    """A normal piece that the model's merges do not turn back into that one piece (None: none):
    with ignore_merges HF takes such a piece whole where sentencepiece would not.  (Checked once
    per model.)"""
    if model not in _WHOLE_CHECKED:
        table = model.table
        found = None
        for i, piece in enumerate(table.pieces):
            if table.types[i] == NORMAL and [t[0] for t in model.merge(piece)] != [i]:
                found = piece
                break
        _WHOLE_CHECKED[model] = found
    return _WHOLE_CHECKED[model]


def sentencepiece_as_hf(tok: Tokenizer) -> Tokenizer:
    """A Tokenizer made of HF components that tokenizes as the sentencepiece tokenizer `tok` does
    (see the module doc for the exceptions); call `sentencepiece_hf_problem` first."""
    normalizer, model = tok.text_normalizer, tok.model
    table = model.table
    user_defined = list(table.user_defined)

    steps = []
    if normalizer.charsmap is not None:
        steps.append(norm.Precompiled(normalizer.charsmap))
    if normalizer.remove_extra_whitespaces:
        steps.append(norm.Replace(r"\A +| +\z", "", is_regex=True))
        steps.append(norm.Replace(" {2,}", " ", is_regex=True))
    if normalizer.escape_whitespaces:
        steps.append(norm.Replace(" ", SPACE))
    if normalizer.add_dummy_prefix:
        steps.append(norm.Replace(rf"\A{SPACE}", SPACE * 2, is_regex=True))

    pres = []
    if normalizer.add_dummy_prefix:
        pres.append(pre.Metaspace(SPACE, prepend_scheme="always", split_on_replacement=False))
    if user_defined:
        pres.append(pre.Split(_alternation(user_defined), "Isolated"))

    vocab = dict(table.vocab)
    unk = table.pieces[table.unk_id] if table.unk_id >= 0 else None
    hf_model = BPE(vocab, bpe_merges(table, getattr(model, "merge_scores", None)), unk_token=unk, fuse_unk=True, byte_fallback=model.byte_fallback,
                   ignore_merges=bool(user_defined))

    decoders = [dec.Replace(SPACE, " ")]
    if model.byte_fallback:
        decoders.append(dec.ByteFallback())
    decoders.append(dec.Fuse())
    if normalizer.add_dummy_prefix:
        decoders.append(dec.Strip(" ", 1, 0))

    return Tokenizer(
        hf_model,
        normalizer=norm.Sequence(steps),
        pre_tokenizer=pre.Sequence(pres) if pres else None,
        decoder=dec.Sequence(decoders),
        added_tokens=list(tok.added.tokens),
        source=Source("sentencepiece", tok.source.path, tok.source.name, {}),
    )


def bpe_merges(table, scores=None) -> list[tuple[str, str]]:
    """Every cut of a normal piece into two normal pieces, best-scoring piece first (then by id),
    the cuts of one piece by the ids of their parts: sentencepiece's BPE merges the adjacent pair
    whose concatenation is the normal piece with the highest score.  `scores`: the ranking
    scores (SentencePieceBPE.merge_scores, where NaN ranks first), else the table's."""
    normal = {p: i for i, p in enumerate(table.pieces) if table.types[i] == NORMAL}
    if scores is None:
        scores = table.scores
    found = []
    for piece, i in normal.items():
        for cut in range(1, len(piece)):
            left = normal.get(piece[:cut])
            if left is None:
                continue
            right = normal.get(piece[cut:])
            if right is not None:
                found.append((-scores[i], i, left, right, piece[:cut], piece[cut:]))
    found.sort()
    return [(a, b) for *_, a, b in found]


def _alternation(pieces: list[str]) -> str:
    """A regex matching any of `pieces`, longest first (as sentencepiece's prefix matcher)."""
    def escape(s: str) -> str:
        return "".join("\\" + c if c in _REGEX_SPECIAL else c for c in s)

    return "|".join(escape(p) for p in sorted(set(pieces), key=len, reverse=True))
