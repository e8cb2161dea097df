"""Character-level BPE (Sennrich et al., "Neural Machine Translation of Rare Words with Subword
Units"): words are cut at white space and punctuation, spelled as characters followed by an
end-of-word marker ``</w>``, and the most frequent adjacent pair is merged until the vocabulary is
full.

    >>> tok = train_char_bpe(["corpus.txt"], TrainOptions(vocab_size=4000))
    >>> tok.encode("lowest").pieces
    ['low', 'est</w>']

With the paper's example (low x5, lowest x2, new x6, widest x3) the first merge is (w, </w>), 11
times, then (l, o), 7 times.

end_of_word="separate" (the paper's spelling, the default) keeps ``</w>`` a symbol of its own
until a merge joins it to the character before; "glued" attaches it to each word's last character
from the start, as HF tokenizers' BPE does (its BpeTrainer's end_of_word_suffix), so that the
result can be written as a tokenizer.json; "none" spells words without a marker (a token may then
end a word or not, and decoding cannot tell where words ended).  `marker` names the marker
(``</w>`` by default).

Parameters used (TrainOptions): vocab_size, min_frequency, min_word_count, special_tokens, reserved_tokens,
user_defined_symbols (kept whole as added tokens), split_digits, max_token_length (characters),
character_coverage and limit_alphabet (the rarer characters become the unknown token),
initial_alphabet, byte_fallback (unknown characters as <0xNN> tokens), pad_to_multiple_of, tie_break.
Ignored: collapse_whitespace (white space only separates words here).
"""
from __future__ import annotations

from ..core import decoders as dec
from ..core import pre_tokenizers as pre
from ..core.models.bpe import BPE
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from . import bpe_core
from .charlevel import (SpelledCorpus, assemble_vocab, choose_alphabet, learn_spelled_merges, merge_budget,
                        unk_token_for)
from .options import COUNTING_WORDS, CancelCheck, Progress, TrainOptions, check_cancel, done_message

END_OF_WORD = "</w>"
END_OF_WORD_MODES = ("separate", "glued", "none")
WORD_PATTERN = r"\w+|[^\w\s]+"  # HF's Whitespace pre-tokenizer: words and runs of punctuation


def train_char_bpe(
    corpus,
    options: TrainOptions,
    *,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    threads: int | None = None,
    end_of_word: str = "separate",
    marker: str = END_OF_WORD,
    count=None,
) -> Tokenizer:
    """A character-level BPE Tokenizer trained on `corpus` (file paths and/or texts).  `count`: a
    drop-in for bpe_core.count_corpus (tokviz.cluster.count_corpus_on)."""
    check_end_of_word(end_of_word, marker)
    report = progress or (lambda fraction, message: None)
    report(0.0, COUNTING_WORDS)
    pieces, counts = (count or bpe_core.count_corpus)(
        corpus, WORD_PATTERN, split_digits=options.split_digits, threads=threads, cancel=cancel,
        progress=lambda f: report(0.3 * f, COUNTING_WORDS), dialect="rust", min_count=options.min_word_count,
    )
    words = [p.decode("utf-8") for p in pieces]
    return char_bpe_from_counts(words, counts, options, progress=progress, cancel=cancel, end_of_word=end_of_word,
                                marker=marker, start=0.3)


def check_end_of_word(end_of_word: str, marker: str) -> None:
    """A TokvizError unless `end_of_word` is one of END_OF_WORD_MODES with a usable `marker`."""
    if end_of_word not in END_OF_WORD_MODES:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "end_of_word must be 'separate', 'glued' or 'none', "
                                                             "got {value!r}"), value=end_of_word))
    if end_of_word != "none" and (not marker or any(c.isspace() for c in marker)):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("train", "the end-of-word marker must be a non-empty text "
                                                             "without white space, got {value!r}"), value=marker))


def char_bpe_from_counts(
    words: list[str],
    counts: list[int],
    options: TrainOptions,
    *,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    end_of_word: str = "separate",
    marker: str = END_OF_WORD,
    start: float = 0.0,
    observe=None,
) -> Tokenizer:
    """The trainer after counting: `words` (distinct, in order of first appearance) occurring
    `counts` times.  (Tests give the paper's word counts here directly.)  `observe`: see
    bpe_core.learn_merges (tokviz.train.learn steps through training with it)."""
    check_end_of_word(end_of_word, marker)
    report = progress or (lambda fraction, message: None)
    check_cancel(cancel)
    corpus = spell_words(words, counts, options, end_of_word=end_of_word, marker=marker)
    merges, merged_spell = learn_spelled_merges(
        corpus.word_symbols, corpus.word_counts, corpus.spell, corpus.room, mode="count", join=str.__add__,
        options=options, lengths=corpus.lengths, progress=progress, cancel=cancel, start=start, observe=observe,
    )
    tokenizer = char_bpe_tokenizer(corpus, merges, merged_spell, options, end_of_word=end_of_word, marker=marker)
    report(1.0, done_message(len(merges), tokenizer.vocab_size))
    return tokenizer


def spell_words(words: list[str], counts: list[int], options: TrainOptions, *, end_of_word: str = "separate",
                marker: str = END_OF_WORD) -> SpelledCorpus:
    """`words` as the trainer spells them: characters of the alphabet, then the end-of-word marker
    as a symbol of its own (separate), glued to the last character (glued), or none."""
    glued = end_of_word == "glued"
    marked = end_of_word != "none"
    alphabet = choose_alphabet(words, counts, options)
    fixed = options.fixed_tokens()
    unk = unk_token_for(fixed, options, alphabet_complete=alphabet.complete)
    if unk is not None and unk not in fixed:
        fixed = [unk] + fixed

    # Symbols: the alphabet's characters, then the end-of-word marker (separate) or each
    # character with the marker glued on (glued); merges add more.
    spell: list[str] = list(alphabet.chars)
    if glued:
        spell += [c + marker for c in alphabet.chars]
    elif marked:
        spell.append(marker)
    symbol = {s: i for i, s in enumerate(spell)}
    lengths = [1] * len(alphabet.chars) + ([1] * len(alphabet.chars) if glued else [0] if marked else [])
    word_symbols, word_counts = [], []
    for word, count in zip(words, counts):
        for part, at_end in alphabet.known_runs(word):  # dropped characters split a word
            ids = [symbol[c] for c in part]
            if at_end and marked:
                if glued:
                    ids[-1] = symbol[part[-1] + marker]
                else:
                    ids.append(symbol[marker])
            word_symbols.append(ids)
            word_counts.append(count)

    byte_tokens = [f"<0x{b:02X}>" for b in range(256)] if options.byte_fallback else []
    room = merge_budget(options, len(fixed) + len(options.user_defined_symbols) + len(byte_tokens) + len(spell))
    return SpelledCorpus(fixed, unk, spell, word_symbols, word_counts, lengths, room, byte_tokens)


def char_bpe_tokenizer(corpus: SpelledCorpus, merges: list, merged_spell: list[str], options: TrainOptions, *,
                       end_of_word: str = "separate", marker: str = END_OF_WORD) -> Tokenizer:
    """The Tokenizer of `merges` (bpe_core.Merge over corpus.spell's ids) spelled `merged_spell`."""
    spell = corpus.spell
    glued = end_of_word == "glued"
    marked = end_of_word != "none"

    def spell_of(i: int) -> str:
        return spell[i] if i < len(spell) else merged_spell[i - len(spell)]

    vocab, added = assemble_vocab(corpus.fixed, corpus.before_spell + spell + merged_spell, options)
    model = BPE(
        vocab,
        [(spell_of(m.left), spell_of(m.right)) for m in merges],
        unk_token=corpus.unk,
        byte_fallback=options.byte_fallback,
        end_of_word_suffix=marker if glued else None,
        end_of_word_symbol=marker if end_of_word == "separate" else None,
        merge_counts=[m.count for m in merges],
    )
    splitter = pre.Split(WORD_PATTERN, "Removed", invert=True, dialect="rust")
    pre_tokenizer = pre.Sequence([pre.Digits(True), splitter]) if options.split_digits else pre.Whitespace()
    decoder = dec.BPEDecoder(marker) if marked else None
    if options.byte_fallback:
        decoder = dec.ByteFallback() if decoder is None else dec.Sequence([dec.ByteFallback(), decoder])
    return Tokenizer(
        model,
        pre_tokenizer=pre_tokenizer,
        decoder=decoder,
        added_tokens=added,
        special_in_text=True,
        source=Source("trained", None, "char-bpe", {"trainer": "bpe", "end_of_word": end_of_word,
                                                   "marker": marker if marked else None, "merges": len(merges)}),
    )

