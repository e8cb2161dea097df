"""Unigram training: tokviz against sentencepiece's trainer, same corpus, same settings.

    python3 benchmarks/train_unigram.py                 # en.txt + zh.txt, vocab 8000
    python3 benchmarks/train_unigram.py --mb 200        # the training text repeated to 200 MB:
                                                        # time and peak memory (tokviz only)
    python3 benchmarks/train_unigram.py --mb 1000 --synthetic   # 1 GB of made-up words, millions
                                                        # of them distinct: the memory check

Both train on the first 90% of each file of ../shared/corpus (en.txt, zh.txt; cut at a line
break) and are measured on the last 10% (held out): tokens per line summed over the lines, each
library's own encode.  Settings matched: vocab 8000, character_coverage 0.9995, pieces of at most
16 characters, 1M seeds, shrinking factor 0.75, 2 EM steps per round, 2 threads, white space
collapsed (sentencepiece's remove_extra_whitespaces, on by default), NFKC (sentencepiece: its
default nmt_nfkc).  The sentencepiece model is written to /tmp.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def split_held_out(paths: list[Path], out_dir: Path, share: float = 0.9) -> tuple[Path, list[str]]:
    """Writes the first `share` of each file to out_dir/train.txt; returns it and the other lines."""
    train = out_dir / "train.txt"
    held: list[str] = []
    with open(train, "w", encoding="utf-8") as out:
        for p in paths:
            text = p.read_text(encoding="utf-8")
            cut = text.find("\n", int(len(text) * share)) + 1 or len(text)
            out.write(text[:cut])
            held.extend(line for line in text[cut:].splitlines() if line.strip())
    return train, held


def repeat_to(path: Path, mb: int, out_dir: Path) -> Path:
    big = out_dir / f"train_{mb}mb.txt"
    data = path.read_bytes()
    with open(big, "wb") as out:
        written = 0
        while written < mb * 1_000_000:
            out.write(data)
            written += len(data)
    return big


def synthetic_text(out: Path, mb: int, n_types: int = 5_000_000, seed: int = 0) -> Path:
    """`mb` MB of made-up words with Zipf frequencies over n_types kinds (for the memory check: a
    repeated corpus has few distinct words, real text has millions).  Run in a subprocess, so that
    its memory does not count in the trainer's peak."""
    code = f"""
import numpy as np
rng = np.random.default_rng({seed})
syl = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["qu", "th", "sh", "ch"]
def word(i):
    out = []
    while True:
        out.append(syl[i % len(syl)])
        i //= len(syl)
        if i == 0:
            return "".join(out)
types = [word(i * 7919 % {n_types}) for i in range({n_types})]
written = 0
with open({str(out)!r}, "w", encoding="utf-8") as f:
    while written < {mb} * 1_000_000:
        ids = (rng.zipf(1.15, 1_000_000) - 1) % {n_types}
        words = [types[i] for i in ids.tolist()]
        block = chr(10).join(" ".join(words[k:k + 12]) for k in range(0, len(words), 12)) + chr(10)
        f.write(block)
        written += len(block)
"""
    import subprocess

    subprocess.run([sys.executable, "-c", code], check=True)
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def train_tokviz(train: Path, vocab: int, threads: int, verbose: bool):
    from tokviz.train.options import TrainOptions
    from tokviz.train.unigram import train_unigram

    opts = TrainOptions(vocab_size=vocab, character_coverage=0.9995, collapse_whitespace=True)
    last = [0.0]
    gaps = {"last": time.perf_counter(), "longest": 0.0, "where": "", "reports": 0}

    def progress(fraction, message):
        now = time.perf_counter()
        if now - gaps["last"] > gaps["longest"]:
            gaps["longest"], gaps["where"] = now - gaps["last"], message
        gaps["last"] = now
        gaps["reports"] += 1
        if verbose and (fraction - last[0] >= 0.05 or fraction >= 1.0 or "words" in message):
            last[0] = fraction
            print(f"  {fraction:5.1%}  {message}", flush=True)

    t = time.perf_counter()
    tok = train_unigram([train], opts, progress=progress, threads=threads, max_piece_length=16)
    print(f"progress: {gaps['reports']} reports, longest gap {gaps['longest']:.1f} s (before {gaps['where']!r})")
    return tok, time.perf_counter() - t


def train_sentencepiece(train: Path, vocab: int, threads: int, prefix: str):
    import sentencepiece as spm

    t = time.perf_counter()
    spm.SentencePieceTrainer.train(
        input=str(train), model_prefix=prefix, model_type="unigram", vocab_size=vocab,
        character_coverage=0.9995, max_sentencepiece_length=16, seed_sentencepiece_size=1_000_000,
        shrinking_factor=0.75, num_sub_iterations=2, num_threads=threads, minloglevel=2,
    )
    took = time.perf_counter() - t
    return spm.SentencePieceProcessor(model_file=prefix + ".model"), took


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--mb", type=int, default=0, help="repeat the training text to this many MB (tokviz only)")
    ap.add_argument("--synthetic", action="store_true",
                    help="with --mb: made-up words with Zipf frequencies (millions of distinct words) instead of "
                         "the corpus repeated")
    ap.add_argument("--skip-spm", action="store_true", help="train with tokviz only")
    ap.add_argument("-v", "--verbose", action="store_true", help="print tokviz's progress")
    ap.add_argument("--files", nargs="+", default=["en.txt", "zh.txt"], help="files of ../shared/corpus to train on")
    args = ap.parse_args(argv)
    paths = [CORPUS / name for name in args.files]
    if not all(p.exists() for p in paths):
        print(f"corpus not found in {CORPUS}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        train, held = split_held_out(paths, Path(tmp))
        if args.mb:
            if args.synthetic:
                big = synthetic_text(Path(tmp) / "synthetic.txt", args.mb)
                print(f"training text: {big.stat().st_size / 1e6:.0f} MB of made-up words (Zipf over 5M kinds)")
            else:
                big = repeat_to(train, args.mb, Path(tmp))
                print(f"training text: {big.stat().st_size / 1e6:.0f} MB ({train.stat().st_size / 1e6:.1f} MB repeated)")
            rss0 = peak_rss_mb()
            tok, took = train_tokviz(big, args.vocab, args.threads, True)
            print(f"tokviz: {took:.1f} s, vocab {tok.vocab_size}, peak RSS {peak_rss_mb():.0f} MB "
                  f"(before training {rss0:.0f} MB)")
            return 0
        print(f"training text: {train.stat().st_size / 1e6:.1f} MB (first 90% of {' + '.join(args.files)}); "
              f"held out: {len(held)} lines")
        tok, t_tokviz = train_tokviz(train, args.vocab, args.threads, args.verbose)
        print(f"tokviz:        {t_tokviz:6.2f} s  vocab {tok.vocab_size}")
        n_tokviz = sum(len(ids) for ids in tok.encode_ids_batch(held))
        if args.skip_spm:
            print(f"held-out tokens: tokviz {n_tokviz}")
            return 0
        sp, t_spm = train_sentencepiece(train, args.vocab, args.threads, "/tmp/tokviz_bench_unigram")
        print(f"sentencepiece: {t_spm:6.2f} s  vocab {sp.get_piece_size()}  (model: /tmp/tokviz_bench_unigram.model)")
        print(f"time ratio tokviz / sentencepiece: {t_tokviz / t_spm:.2f}")
        n_spm = sum(len(ids) for ids in sp.encode(held))
        print(f"held-out tokens: tokviz {n_tokviz}, sentencepiece {n_spm}, "
              f"difference {100 * (n_tokviz - n_spm) / n_spm:+.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
