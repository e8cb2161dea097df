"""WordPiece training: BERT-style words (white space and punctuation cut, lower-cased, accents
stripped), spelled as a first character and ``##``-prefixed continuing characters; the pair with
the best score count(ab) / (count(a) * count(b)) is merged until the vocabulary is full.

    >>> tok = train_wordpiece(["corpus.txt"], TrainOptions(vocab_size=8000,
    ...                       special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    >>> tok.encode("unaffable").pieces
    ['una', '##ff', '##able']

The score prefers pairs whose parts are rare on their own (a likelihood gain), where BPE takes the
most frequent pair.  (HF tokenizers' WordPieceTrainer trains BPE merges instead; this one follows
the WordPiece description.)  Ties go to the pair seen first in the corpus.

Parameters used (TrainOptions): vocab_size, min_frequency (of the pair), min_word_count,
special_tokens (the post-processor adds [CLS] ... [SEP] when both are given), reserved_tokens,
user_defined_symbols (added tokens), split_digits, max_token_length (characters, without '##'),
character_coverage, limit_alphabet, initial_alphabet, pad_to_multiple_of, tie_break.  Ignored: byte_fallback
(WordPiece has no byte tokens), collapse_whitespace (white space only separates words).
"""
from __future__ import annotations

from ..core import decoders as dec
from ..core.bert_fast import BertFastPath, bert_word_pattern
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.models.wordpiece import WordPiece
from ..core.tokenizer import Source, Tokenizer
from ..messages import QT_TRANSLATE_NOOP, Message
from . import bpe_core
from .charlevel import (SpelledCorpus, assemble_vocab, choose_alphabet, learn_spelled_merges, merge_budget,
                        unk_token_for)
from .options import COUNTING_WORDS, CancelCheck, Progress, TrainOptions, check_cancel, done_message

PREFIX = "##"


def train_wordpiece(
    corpus,
    options: TrainOptions,
    *,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    threads: int | None = None,
    lowercase: bool = True,
    count=None,
) -> Tokenizer:
    """A WordPiece Tokenizer (BertNormalizer, BertPreTokenizer) trained on `corpus` (paths and/or
    texts).  `count`: a drop-in for bpe_core.count_corpus (tokviz.cluster.count_corpus_on)."""
    report = progress or (lambda fraction, message: None)
    normalizer = norm.BertNormalizer(lowercase=lowercase)
    report(0.0, COUNTING_WORDS)
    pieces, counts = (count or bpe_core.count_corpus)(
        corpus, bert_word_pattern()[0].pattern, split_digits=options.split_digits, threads=threads, cancel=cancel,
        progress=lambda f: report(0.3 * f, COUNTING_WORDS), normalize=BertText(lowercase),
        min_count=options.min_word_count,
    )
    words = [p.decode("utf-8") for p in pieces]
    report(0.3, Message(QT_TRANSLATE_NOOP("train", "{words} distinct words"), words=len(words)))
    return wordpiece_from_counts(words, counts, options, normalizer=normalizer, progress=progress, cancel=cancel,
                                 start=0.3)


class BertText:
    """text -> its BERT-normalized form (what the words are counted in).  A plain object, so that
    it can be sent to the workers of a cluster."""

    def __init__(self, lowercase: bool = True):
        self.lowercase = lowercase
        self._fast = None

    def __call__(self, text: str) -> str:
        if self._fast is None:  # training needs the normalized words, not their offsets
            self._fast = BertFastPath(norm.BertNormalizer(lowercase=self.lowercase))
        return self._fast.normalize_str(text)

    def __getstate__(self):
        return {"lowercase": self.lowercase}

    def __setstate__(self, state):
        self.lowercase, self._fast = state["lowercase"], None


def wordpiece_from_counts(
    words: list[str],
    counts: list[int],
    options: TrainOptions,
    *,
    normalizer: norm.Normalizer | None = None,
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    start: float = 0.0,
    observe=None,
) -> Tokenizer:
    """The trainer after counting: distinct normalized `words` occurring `counts` times.
    `observe`: see bpe_core.learn_merges (tokviz.train.learn steps through training with it)."""
    report = progress or (lambda fraction, message: None)
    check_cancel(cancel)
    corpus = spell_words(words, counts, options)
    merges, merged_spell = learn_spelled_merges(
        corpus.word_symbols, corpus.word_counts, corpus.spell, corpus.room, mode="wordpiece", join=join_pieces,
        options=options, lengths=corpus.lengths, progress=progress, cancel=cancel, start=start, observe=observe,
    )
    tokenizer = wordpiece_tokenizer(corpus, merges, merged_spell, options, normalizer=normalizer)
    report(1.0, done_message(len(merges), tokenizer.vocab_size))
    return tokenizer


def join_pieces(left: str, right: str) -> str:
    """'un' + '##aff' -> 'unaff'."""
    return left + right[len(PREFIX):]


def spell_words(words: list[str], counts: list[int], options: TrainOptions) -> SpelledCorpus:
    """`words` as the trainer spells them: a first character, then '##'-prefixed ones."""
    alphabet = choose_alphabet(words, counts, options)
    fixed = options.fixed_tokens()
    unk = unk_token_for(fixed, options, alphabet_complete=alphabet.complete, default="[UNK]")
    if unk not in fixed:
        fixed = [unk] + fixed

    # Symbols: each character as a word start and as a continuation, in the forms that occur.
    firsts, nexts = set(), set()
    runs = []
    for word, count in zip(words, counts):
        for part, _ in alphabet.known_runs(word):
            firsts.add(part[0])
            nexts.update(part[1:])
            runs.append((part, count))
    spell = sorted(firsts) + [PREFIX + c for c in sorted(nexts)]
    symbol = {s: i for i, s in enumerate(spell)}
    word_symbols = [[symbol[part[0]]] + [symbol[PREFIX + c] for c in part[1:]] for part, _ in runs]
    word_counts = [count for _, count in runs]
    lengths = [len(s) - (len(PREFIX) if s.startswith(PREFIX) and len(s) > len(PREFIX) else 0) for s in spell]
    room = merge_budget(options, len(fixed) + len(options.user_defined_symbols) + len(spell))
    return SpelledCorpus(fixed, unk, spell, word_symbols, word_counts, lengths, room)


def wordpiece_tokenizer(corpus: SpelledCorpus, merges: list, merged_spell: list[str], options: TrainOptions, *,
                        normalizer: norm.Normalizer | None = None) -> Tokenizer:
    """The Tokenizer of the symbols and of `merges` spelled `merged_spell`."""
    vocab, added = assemble_vocab(corpus.fixed, corpus.spell + merged_spell, options)
    processor = None
    if "[CLS]" in vocab and "[SEP]" in vocab:
        processor = post.BertProcessing(sep=(vocab["[SEP]"], "[SEP]"), cls=(vocab["[CLS]"], "[CLS]"))
    pre_tokenizer = pre.BertPreTokenizer()
    if options.split_digits:
        pre_tokenizer = pre.Sequence([pre.BertPreTokenizer(), pre.Digits(True)])
    return Tokenizer(
        WordPiece(vocab, unk_token=corpus.unk, continuing_subword_prefix=PREFIX),
        normalizer=normalizer or norm.BertNormalizer(),
        pre_tokenizer=pre_tokenizer,
        post_processor=processor,
        decoder=dec.WordPiece(PREFIX),
        added_tokens=added,
        special_in_text=True,
        source=Source("trained", None, "wordpiece", {"trainer": "wordpiece", "merges": len(merges),
                                                    "merge_counts": [m.count for m in merges]}),
    )

