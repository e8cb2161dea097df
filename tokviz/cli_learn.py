"""`tokviz learn`: step through training in the terminal, as Markdown tables or JSON.

    tokviz learn --model bpe --words "low:5 lowest:2 new:6 widest:3" --steps 10
    tokviz learn --model wordpiece --text corpus.txt --json
"""
from __future__ import annotations

import json

from .errors import TokvizError


def add_learn_parser(sub) -> None:
    from .train.learn import MODELS
    from .train.learn.words import MERGE_VOCAB_SIZE

    p = sub.add_parser("learn", help="step through training as textbooks do: every merge (or Unigram round) with its "
                                     "tables, as Markdown or JSON")
    p.add_argument("--model", choices=MODELS, default="bpe", help="the trainer (default bpe)")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--words", metavar="LIST", help='word counts: "low:5 lowest:2 new:6 widest:3", or a JSON object')
    given.add_argument("--words-file", metavar="FILE", help="a file of word counts (word:count items, or lines of "
                                                            "'word count', or a JSON object)")
    given.add_argument("--text", metavar="FILE", help="a text file, counted as the trainer counts its corpus")
    p.add_argument("--end-of-word", metavar="MARKER", default="</w>",
                   help='bpe: the end-of-word marker, a symbol of its own (default </w>; "" for none)')
    p.add_argument("--glued", action="store_true",
                   help="bpe: the marker glued to each word's last character, as HF's BpeTrainer's end_of_word_suffix")
    p.add_argument("--pattern", default="gpt2", help="bytelevel-bpe: the split pattern (gpt2, cl100k, o200k, llama3, "
                                                     "qwen2 or a regex)")
    p.add_argument("--vocab-size", type=int, help=f"stop when the vocabulary holds this many tokens (default: "
                                                  f"{MERGE_VOCAB_SIZE:,} for the merge models, so that training stops "
                                                  "when no pair is frequent enough; unigram: <unk>, the characters "
                                                  "and one piece per two distinct words)")
    p.add_argument("--min-frequency", type=int, default=2, help="pairs (pieces) occurring fewer times are never merged "
                                                                "(default 2: training stops when the best pair occurs once)")
    p.add_argument("--tie-break", choices=["hf", "minbpe"], default="hf",
                   help="pairs of equal count: hf (the lowest ids, HF's BpeTrainer) or minbpe (first in the text)")
    p.add_argument("--max-token-length", type=int, help="longest token in characters")
    p.add_argument("--steps", type=int, metavar="N", help="print the first N steps (default: all)")
    p.add_argument("--json", action="store_true", help='one JSON object: {"steps": [...], "merges": [...], ...}')
    p.set_defaults(func=cmd_learn)


def cmd_learn(args) -> int:
    from .train.learn import count_text, learn, parse_word_counts
    from .train.learn.words import count_listed_words, default_vocab_size
    from .train.options import TrainOptions

    if args.steps is not None and args.steps < 0:
        raise TokvizError(f"--steps must be 0 or more, got {args.steps}")
    bpe = args.model == "bpe"
    if not bpe and (args.glued or args.end_of_word != "</w>"):
        raise TokvizError("--end-of-word and --glued apply to --model bpe only")
    if args.glued and not args.end_of_word:
        raise TokvizError("--glued needs a marker (--end-of-word)")
    base = TrainOptions(vocab_size=1, min_frequency=args.min_frequency, tie_break=args.tie_break,
                        max_token_length=args.max_token_length)
    pattern = args.pattern if args.model == "bytelevel-bpe" else None
    if args.text is not None:
        from .cli import _read_input

        words, counts = count_text(args.model, _read_input(args.text), base, pattern=pattern)
    else:
        listed = args.words
        if args.words_file is not None:
            from .cli import _read_input

            listed = _read_input(args.words_file)
        words, counts = count_listed_words(args.model, *parse_word_counts(listed), base, pattern=pattern)
    vocab_size = args.vocab_size or default_vocab_size(args.model, words)
    options = TrainOptions(vocab_size=vocab_size, min_frequency=args.min_frequency, tie_break=args.tie_break,
                           max_token_length=args.max_token_length)
    model_options = {}
    if bpe:
        model_options = {"end_of_word": "glued" if args.glued else "separate" if args.end_of_word else "none",
                         "marker": args.end_of_word or "</w>"}
    elif args.model == "bytelevel-bpe":
        model_options = {"pattern": args.pattern}
    run = learn(args.model, words, counts, options, **model_options)
    if args.json:
        data = run.to_json()
        data["steps_total"] = len(data["steps"])
        if args.steps is not None:
            data["steps"] = data["steps"][: args.steps]
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(run.to_markdown(args.steps), end="")
    return 0
