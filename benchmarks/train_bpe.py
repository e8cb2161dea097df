"""Byte-level BPE training: tokviz against HF tokenizers' BpeTrainer, same configuration, same run.

    python3 benchmarks/train_bpe.py                  # en.txt: train on the first 90%, count on the rest
    python3 benchmarks/train_bpe.py --vocab 8000 --repeat 3
    python3 benchmarks/train_bpe.py --mb 1024 --skip-hf  # 1 GB made by repeating en.txt: time, peak RSS
    python3 benchmarks/train_bpe.py --mb 1024 --skip-hf --scramble  # the same with ~5M distinct words

Both train with the GPT-2 pattern (HF: ByteLevel pre-tokenizer without prefix space, the 256 byte
characters as initial alphabet), the same vocabulary size, min_frequency and special token, on
the same file.  HF is run twice: on the file (it reads it line by line, so no pre-token crosses a
line end: a newline and the next line's indentation are never learned together) and on the text
cut into the chunks tokviz counts (the same pre-tokens as tokviz).  Then the tokenizers encode
the held-out last 10% of the corpus (never trained on) and the script prints the token counts and
their differences.  HF is imported here only: it
is a benchmark oracle, never a tokviz dependency.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tokviz.train import bpe_core  # noqa: E402
from tokviz.train.bytelevel import train_bytelevel_bpe  # noqa: E402
from tokviz.train.options import TrainOptions  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "en.txt"
SPECIAL = "<|endoftext|>"


def split_corpus(path: Path, train_share: float, workdir: Path) -> tuple[Path, str]:
    """(file holding the first `train_share` of the text, cut at a line end; the rest as str)."""
    text = path.read_text(encoding="utf-8")
    cut = text.rfind("\n", 0, int(len(text) * train_share)) + 1
    train = workdir / "train.txt"
    train.write_text(text[:cut], encoding="utf-8")
    return train, text[cut:]


def repeated_corpus(path: Path, megabytes: int, workdir: Path, scramble: bool = False) -> Path:
    """A file of about `megabytes` MB made by repeating `path`; `scramble`: each repetition with its
    own permutation of the ASCII letters, so that it brings new words (as a real corpus of that
    size would) instead of the same few ten thousand over and over."""
    import random
    import string

    text = path.read_text(encoding="utf-8")
    rng = random.Random(0)
    out = workdir / f"repeated_{megabytes}mb.txt"
    target = megabytes << 20
    with open(out, "w", encoding="utf-8") as fh:
        written = 0
        while written < target:
            piece = text
            if scramble:
                lower = list(string.ascii_lowercase)
                rng.shuffle(lower)
                shuffled = "".join(lower)
                piece = text.translate(str.maketrans(string.ascii_letters, shuffled + shuffled.upper()))
            data = piece.encode("utf-8")
            if written + len(data) > target:
                data = data[: target - written]
                data = data[: data.rfind(b"\n") + 1] or data
                piece = data.decode("utf-8", "ignore")
            fh.write(piece)
            written += len(data)
    return out


def train_tokviz(train_file: Path, vocab: int, min_frequency: int, progress_log: list | None = None,
                 split_lines: bool = False):
    options = TrainOptions(vocab_size=vocab, min_frequency=min_frequency, special_tokens=[SPECIAL])
    progress = None
    if progress_log is not None:
        def progress(fraction, message):
            progress_log.append((time.perf_counter(), fraction, message))
    start = time.perf_counter()
    tok = train_bytelevel_bpe([Path(train_file)], options, pattern="gpt2", progress=progress, split_lines=split_lines)
    return tok, time.perf_counter() - start


def time_cli(train_file: Path, vocab: int, min_frequency: int, out_dir: Path) -> float:
    """Wall-clock seconds of a whole `tokviz train` process (start-up and writing included)."""
    import subprocess

    cmd = [sys.executable, "-m", "tokviz", "train", "--model", "bytelevel-bpe", "--vocab-size", str(vocab),
           "--min-frequency", str(min_frequency), "--special-tokens", SPECIAL, "--quiet",
           "-o", str(out_dir / "tokviz.json"), str(train_file)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def train_hf(train_file: Path, vocab: int, min_frequency: int, from_file: bool = True):
    """HF's BpeTrainer on the file (`from_file`: HF reads it line by line, so no pre-token spans a
    line end) or on the same text chunks tokviz counts (bpe_core.cut_text: pieces as tokviz's)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, min_frequency=min_frequency, special_tokens=[SPECIAL],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    start = time.perf_counter()
    if from_file:
        tok.train([str(train_file)], trainer)
    else:
        text = train_file.read_text(encoding="utf-8")
        tok.train_from_iterator(bpe_core.cut_text(text), trainer)
    return tok, time.perf_counter() - start


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class RssSampler:
    """Samples the current resident memory every `interval` s (Linux /proc) in a thread."""

    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._stop.is_set():
            try:
                with open("/proc/self/statm") as fh:
                    rss = int(fh.read().split()[1]) * page / 2**20
                self.samples.append((time.perf_counter(), rss))
            except OSError:
                return
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def run_comparison(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        train_file, held_out = split_corpus(Path(args.corpus), 0.9, Path(tmp))
        size_mb = train_file.stat().st_size / 2**20
        print(f"corpus: first 90% of {args.corpus} ({size_mb:.1f} MB) for training, "
              f"the last 10% ({len(held_out.encode('utf-8')) / 2**20:.1f} MB) held out for counting")
        print(f"byte-level BPE, gpt2 pattern, vocab {args.vocab}, min_frequency {args.min_frequency}, "
              f"C core: {bpe_core.native_available()}")
        times: dict[str, list[float]] = {"tokviz": [], "hf-file": [], "hf-chunks": [], "cli": []}
        for run in range(args.repeat):
            if not args.no_cli:
                times["cli"].append(time_cli(train_file, args.vocab, args.min_frequency, Path(tmp)))
            tv_tok, tv_time = train_tokviz(train_file, args.vocab, args.min_frequency)
            hf_file_tok, hf_file_time = train_hf(train_file, args.vocab, args.min_frequency, from_file=True)
            hf_chunk_tok, hf_chunk_time = train_hf(train_file, args.vocab, args.min_frequency, from_file=False)
            times["tokviz"].append(tv_time)
            times["hf-file"].append(hf_file_time)
            times["hf-chunks"].append(hf_chunk_time)
            cli = f"   `tokviz train` process {times['cli'][-1]:.2f} s" if times["cli"] else ""
            print(f"run {run + 1}: tokviz {tv_time:.2f} s{cli}   HF from the file {hf_file_time:.2f} s "
                  f"(ratio {tv_time / hf_file_time:.2f})   HF on tokviz's chunks {hf_chunk_time:.2f} s "
                  f"(ratio {tv_time / hf_chunk_time:.2f})")
        for key in ("hf-file", "hf-chunks"):
            ratios = [a / b for a, b in zip(times["tokviz"], times[key])]
            print(f"time ratio tokviz / {key}: {min(ratios):.2f} .. {max(ratios):.2f}")
        if times["cli"]:
            ratios = [a / b for a, b in zip(times["cli"], times["hf-file"])]
            print(f"time ratio whole `tokviz train` process / hf-file training alone: "
                  f"{min(ratios):.2f} .. {max(ratios):.2f}")
        tv_count = len(tv_tok.encode(held_out).ids)
        assert tv_tok.decode(tv_tok.encode(held_out).ids) == held_out, "tokviz round trip failed"
        print(f"held-out tokens: tokviz {tv_count:,} (vocab {tv_tok.vocab_size})")
        hf_counts = {}
        for label, hf_tok in (("HF from the file", hf_file_tok), ("HF on tokviz's chunks", hf_chunk_tok)):
            hf_counts[label] = hf_count = len(hf_tok.encode(held_out, add_special_tokens=False).ids)
            diff = 100.0 * (tv_count - hf_count) / hf_count
            print(f"  {label}: {hf_count:,} (vocab {hf_tok.get_vocab_size()}), tokviz differs by {diff:+.2f}%")
        lines_tok, lines_time = train_tokviz(train_file, args.vocab, args.min_frequency, split_lines=True)
        lines_count = len(lines_tok.encode(held_out).ids)
        diff = 100.0 * (lines_count - hf_counts["HF from the file"]) / hf_counts["HF from the file"]
        print(f"tokviz with split_lines=True (each line pre-tokenized apart, as HF reading a file): "
              f"{lines_time:.2f} s, "
              f"{lines_count:,} held-out tokens (vocab {lines_tok.vocab_size}), {diff:+.2f}% from HF from the file")


def run_memory(args) -> None:
    with tempfile.TemporaryDirectory(dir=args.tmpdir) as tmp:
        big = repeated_corpus(Path(args.corpus), args.mb, Path(tmp), args.scramble)
        size = big.stat().st_size
        how = "repeated, each time with its letters permuted" if args.scramble else "repeated"
        print(f"corpus: {big.name} ({size / 2**20:.0f} MB, {args.corpus} {how}); vocab {args.vocab}")
        log: list = []
        with RssSampler() as rss:
            tok, seconds = train_tokviz(big, args.vocab, args.min_frequency, log)
        print(f"tokviz: {seconds:.1f} s ({size / 2**20 / seconds:.0f} MB/s), vocab {tok.vocab_size}, "
              f"peak RSS {peak_rss_mb():.0f} MB (getrusage), highest sampled {max(r for _, r in rss.samples):.0f} MB")
        gaps = [b[0] - a[0] for a, b in zip(log, log[1:])]
        print(f"progress: {len(log)} reports, longest gap between two {max(gaps, default=0):.2f} s, "
              f"first {log[0][2] if log else '-'!r}, last {log[-1][2] if log else '-'!r}")
        if not args.skip_hf:
            _, hf_time = train_hf(big, args.vocab, args.min_frequency)
            print(f"HF BpeTrainer: {hf_time:.1f} s (peak RSS of the process now {peak_rss_mb():.0f} MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--vocab", type=int, default=32768)
    ap.add_argument("--min-frequency", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each trainer")
    ap.add_argument("--no-cli", action="store_true", help="do not time a `tokviz train` process too")
    ap.add_argument("--mb", type=int, default=0, help="train on this many MB made by repeating the corpus")
    ap.add_argument("--scramble", action="store_true",
                    help="with --mb: permute the letters of each repetition (many more distinct words)")
    ap.add_argument("--skip-hf", action="store_true", help="with --mb: do not train HF too")
    ap.add_argument("--tmpdir", default=None, help="with --mb: where to write the repeated corpus")
    args = ap.parse_args()
    if not Path(args.corpus).exists():
        sys.exit(f"no corpus at {args.corpus}")
    if args.mb:
        run_memory(args)
    else:
        run_comparison(args)


if __name__ == "__main__":
    main()
