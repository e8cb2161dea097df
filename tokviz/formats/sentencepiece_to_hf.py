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
space.  What stays different (the tests measure it on real text): control and unknown piece
strings typed in the text (HF matches added special tokens; sentencepiece never does), and HF
applying the character map per grapheme rather than by longest match (stacked combining marks;
the same on the corpora tested).
"""
from __future__ import annotations

import weakref

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
    return None


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
    unk = table.pieces[table.unk_id]
    hf_model = BPE(vocab, bpe_merges(table), unk_token=unk, fuse_unk=True, byte_fallback=model.byte_fallback,
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


def bpe_merges(table) -> list[tuple[str, str]]:
    """Every cut of a normal piece into two normal pieces, best-scoring piece first (then by id),
    the cuts of one piece by the ids of their parts: sentencepiece's BPE merges the adjacent pair
    whose concatenation is the normal piece with the highest score."""
    normal = {p: i for i, p in enumerate(table.pieces) if table.types[i] == NORMAL}
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
