"""Byte-level BPE training (GPT-2 / Llama-3 style), the C core doing the counting and merging.

    >>> from tokviz.train.options import TrainOptions
    >>> tok = train_bytelevel_bpe(["corpus.txt"], TrainOptions(vocab_size=32768, special_tokens=["<|endoftext|>"]))
    >>> tok.decode(tok.encode("Hello world").ids)
    'Hello world'

Layout of the ids (HF tokenizers' BpeTrainer's, so that a tokviz-trained tokenizer and an HF one
line up): the special tokens, then the reserved tokens, then the user-defined symbols, then the
256 byte tokens in the order of their byte-level characters' code points ('!' .. '~', '¡' .. '¬',
'®' .. 'ÿ', then 'Ā' (byte 0) .. 'Ń'), then one token per merge, then the reserved tokens that
pad the vocabulary to `pad_to_multiple_of`.  A merge whose result is already a token (" t" + "he"
and " th" + "e" both spell " the") keeps that token's id, as in HF.

Pre-tokens are cut from the whole text (files are streamed in chunks cut where no piece can
change), as the trained tokenizer will cut text.  HF's trainer reading files cuts them line by line
first, so it never learns a newline together with the next line's indentation (split_lines=True
does the same); trained on the same pieces both give tokenizers within 0.1% in token counts
(benchmarks/train_bpe.py).

The count of each merge when it was made is on the result: `tokenizer.model.merge_counts[i]` is
the count of `tokenizer.model.merges[i]` (what the vocab statistics view plots).
"""
from __future__ import annotations

from collections.abc import Iterable

from ..core import decoders as dec
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken
from ..core.bytelevel import BYTE_TO_CHAR, bytes_to_unicode
from ..core.models.bpe import BPE
from ..core.patterns import GPT2_PATTERN, NAMED_PATTERNS
from ..core.tokenizer import Source, Tokenizer
from ..messages import QT_TRANSLATE_NOOP, Message
from . import bpe_core
from .options import COUNTING_WORDS, CancelCheck, Progress, TrainOptions, merge_message

COUNTING_SHARE = 0.35  # of the progress bar: the rest is merging


def byte_alphabet() -> list[int]:
    """The 256 bytes in the order of their tokens' ids (by the code point of their byte-level
    character, as HF's trainer sorts its alphabet)."""
    return sorted(range(256), key=lambda b: ord(BYTE_TO_CHAR[b]))


def train_bytelevel_bpe(
    corpus_paths_or_texts: Iterable,
    options: TrainOptions,
    *,
    pattern: str = "gpt2",
    progress: Progress | None = None,
    cancel: CancelCheck | None = None,
    threads: int | None = None,
    split_lines: bool = False,
    count=None,
    observe=None,
) -> Tokenizer:
    """A byte-level BPE tokenizer trained on files and/or texts (see bpe_core.count_corpus for which
    items are files: an os.PathLike, or a one-line str naming an existing file).

    `pattern`: "gpt2", "cl100k", "o200k", "llama3", "qwen2" or a regex (HF semantics) cutting the
    text into pre-tokens.  `threads`: for counting (default: all cores).  `split_lines`: pre-tokenize
    each line apart, as HF's trainer does when it reads files (see the module doc).

    TrainOptions used: vocab_size (everything included; if it is smaller than the fixed tokens +
    256 bytes no merge is learned and the vocabulary is bigger than asked), min_frequency, min_word_count,
    special_tokens, reserved_tokens, user_defined_symbols (added tokens, never split; the training
    text is not cut around them), split_digits, max_token_length (in bytes),
    pad_to_multiple_of, tie_break.  Ignored: initial_alphabet and limit_alphabet (every byte is always in a
    byte-level vocabulary, or some text could not be encoded), character_coverage, byte_fallback,
    collapse_whitespace.

    progress(fraction, message) while counting and every few merges; cancel() as often: True
    raises Cancelled.  `count`: what counts the pieces, bpe_core.count_corpus or a drop-in for it
    (tokviz.cluster.count_corpus_on).  `observe`: see bpe_core.learn_merges (tokviz.train.learn)."""
    regex = NAMED_PATTERNS.get(pattern, pattern)
    fixed = options.fixed_tokens() + list(options.user_defined_symbols)
    n_merges = max(0, options.vocab_size - len(fixed) - 256)

    bpe_core.raise_if_cancelled(cancel)
    count_progress = None
    if progress is not None:
        def count_progress(fraction: float) -> None:
            progress(COUNTING_SHARE * fraction, COUNTING_WORDS)

    pieces, counts = (count or bpe_core.count_corpus)(
        corpus_paths_or_texts, regex, split_digits=options.split_digits, split_lines=split_lines, threads=threads,
        progress=count_progress, cancel=cancel, dialect=_dialect(pattern), min_count=options.min_word_count,
    )

    merge_progress = None
    if progress is not None:
        progress(COUNTING_SHARE, Message(QT_TRANSLATE_NOOP("train", "{words:,} distinct words: counting pairs"),
                                          words=len(pieces)))

        def merge_progress(fraction, made, pair, count):
            left, right = (bytes_to_unicode(p) for p in pair)
            progress(COUNTING_SHARE + (1 - COUNTING_SHARE) * fraction, merge_message(made, left, right, count))

    symbol_bytes = [bytes([b]) for b in range(256)]
    rank_of_byte = {b: k for k, b in enumerate(byte_alphabet())}  # (the order of the byte tokens' ids)
    merges = bpe_core.learn_merges(
        pieces, counts, 256, n_merges, min_frequency=options.min_frequency,
        max_token_length=options.max_token_length, symbol_bytes=symbol_bytes,
        progress=merge_progress, progress_every=max(1, n_merges // 200), cancel=cancel, progress_spelled=True,
        tie_break=options.tie_break, ranks=[rank_of_byte[b] for b in range(256)], observe=observe,
    )
    del pieces, counts
    return _build(options, regex, fixed, merges, pattern)


def _dialect(pattern: str) -> str:
    """A named pattern is tiktoken's spelling (possessive X{n,m}+, see core/patterns.py); any other
    regex is read as HF tokenizers reads it."""
    return "rust" if pattern in NAMED_PATTERNS else "onig"


def _build(
    options: TrainOptions, regex: str, fixed: list[str], merges: list[bpe_core.Merge], pattern_name: str
) -> Tokenizer:
    """The Tokenizer for learned `merges` (symbols 0-255: the bytes, 256 + k: the k-th new one)."""
    spelling = [BYTE_TO_CHAR[b] for b in range(256)]
    vocab: dict[str, int] = {}
    added: list[AddedToken] = []
    n_special = len(options.fixed_tokens())
    for i, content in enumerate(fixed):
        added.append(AddedToken(content, i, special=i < n_special))
    for b in byte_alphabet():
        vocab[spelling[b]] = len(fixed) + len(vocab)
    pairs: list[tuple[str, str]] = []
    merge_counts: list[int] = []
    for m in merges:
        left, right = spelling[m.left], spelling[m.right]
        if m.merged == len(spelling):
            spelling.append(left + right)
            vocab[left + right] = len(fixed) + len(vocab)
        pairs.append((left, right))
        merge_counts.append(m.count)
    size = len(fixed) + len(vocab)
    for name in options.padding_names(size):
        added.append(AddedToken(name, size, special=True))
        size += 1

    if options.split_digits or regex != GPT2_PATTERN:
        steps = [pre.Split(regex, "Isolated", dialect=_dialect(pattern_name))]
        if options.split_digits:
            steps.append(pre.Digits(individual_digits=True))
        steps.append(pre.ByteLevel(add_prefix_space=False, use_regex=False))
        pre_tokenizer = pre.Sequence(steps)
    else:
        pre_tokenizer = pre.ByteLevel(add_prefix_space=False, use_regex=True)
    name = pattern_name if pattern_name in NAMED_PATTERNS else "custom"
    return Tokenizer(
        BPE(vocab, pairs, merge_counts=merge_counts),
        pre_tokenizer=pre_tokenizer,
        decoder=dec.ByteLevel(),
        added_tokens=added,
        source=Source(
            "trained", None, f"byte-level BPE {size} ({name})", {"trainer": "byte-level BPE", "pattern": regex}
        ),
    )
