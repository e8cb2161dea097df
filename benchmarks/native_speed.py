"""Encoding speed of tokviz's native encoder beside tiktoken and HF tokenizers, same chunks, same run.

    python3 benchmarks/native_speed.py [--mb 2] [--repeat 3] [--json]

Each ../shared/corpus/*.txt (its first --mb megabytes) is cut into 8 KB chunks (at character
boundaries).  For each tokenizer the chunks are encoded one call per chunk and the best of
--repeat runs is reported in MB/s of UTF-8 input (tokviz's piece cache is emptied before each run):

  tokviz ids      Tokenizer.encode_ids(chunk)                   (ids only, like encode_ordinary)
  tokviz enc      Tokenizer.encode(chunk)                       (an Encoding: ids + offsets, lazily listed)
  tokviz ids x2   Tokenizer.encode_ids_batch(chunks, threads=2) (native threads, GIL released)
  tokviz enc x2   Tokenizer.encode_batch(chunks, threads=2)
  reference       tiktoken Encoding.encode_ordinary(chunk) for cl100k_base;
                  HF tokenizers Tokenizer.encode(chunk, add_special_tokens=False) for tokenizer.json

The ids of every chunk are checked against the reference library (a mismatch is reported and
makes the script exit with status 1).  `python` in the output is the pure-Python path, timed on a
smaller sample (--python-kb) for scale.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CHUNK = 8192

sys.path.insert(0, str(ROOT))


def chunks_of(text: str, size: int = CHUNK) -> list[str]:
    """Pieces of about `size` UTF-8 bytes, cut at character boundaries."""
    data = text.encode("utf-8")
    out = []
    start = 0
    while start < len(data):
        end = min(start + size, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:
            end += 1
        out.append(data[start:end].decode("utf-8"))
        start = end
    return out


def best_mbps(fn, nbytes: int, repeat: int, before=None) -> float:
    best = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return nbytes / 1e6 / best


def tiktoken_reference(path: Path):
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from tokviz.core.patterns import TIKTOKEN_PATTERNS

    enc = tiktoken.Encoding(
        name=path.stem, pat_str=TIKTOKEN_PATTERNS[path.stem], mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens={},
    )
    return "tiktoken", enc.encode_ordinary


def hf_reference(path: Path):
    import tokenizers

    tok = tokenizers.Tokenizer.from_file(str(path))
    return "HF tokenizers", lambda text: tok.encode(text, add_special_tokens=False).ids


TOKENIZERS = [
    ("cl100k_base", SHARED / "tokenizers" / "cl100k_base.tiktoken", tiktoken_reference),
    ("qwen2.5", SHARED / "tokenizers" / "qwen2.5" / "tokenizer.json", hf_reference),
    ("llama3", SHARED / "tokenizers" / "llama3" / "tokenizer.json", hf_reference),
]


def run(mb: float, repeat: int, python_kb: int) -> tuple[list[dict], bool]:
    import tokviz
    import tokviz.native

    if not tokviz.native.available:
        print(f"native encoder not available: {tokviz.native.reason}", file=sys.stderr)
    rows = []
    ok = True
    corpora = sorted((SHARED / "corpus").glob("*.txt"))
    for name, path, make_reference in TOKENIZERS:
        if not path.exists():
            print(f"skip {name}: {path} not found", file=sys.stderr)
            continue
        tok = tokviz.load(path)
        try:
            ref_name, ref_encode = make_reference(path)
        except ImportError as exc:
            ref_name, ref_encode = f"(reference not installed: {exc.name})", None
        tok.encode("warm up")  # builds the native tables once
        for corpus in corpora:
            text = corpus.read_text(encoding="utf-8")
            chunks = chunks_of(text.encode("utf-8")[: int(mb * 1e6)].decode("utf-8", "ignore"))
            nbytes = sum(len(c.encode("utf-8")) for c in chunks)
            row = {"tokenizer": name, "corpus": corpus.stem, "MB": round(nbytes / 1e6, 2), "encoder": tok.describe()["encoder"]}
            ids = [tok.encode_ids(c) for c in chunks]
            if ref_encode is not None:
                expected = [ref_encode(c) for c in chunks]
                bad = sum(a != b for a, b in zip(ids, expected))
                row["ids_agree"] = bad == 0
                if bad:
                    ok = False
                    print(f"MISMATCH {name}/{corpus.stem}: {bad} of {len(chunks)} chunks differ from {ref_name}", file=sys.stderr)
            # Each run starts with an empty piece cache: it only helps within the run, as in use.
            cold = tok.clear_cache
            row["tokviz ids"] = best_mbps(lambda: [tok.encode_ids(c) for c in chunks], nbytes, repeat, cold)
            row["tokviz enc"] = best_mbps(lambda: [tok.encode(c) for c in chunks], nbytes, repeat, cold)
            row["tokviz ids x2"] = best_mbps(lambda: tok.encode_ids_batch(chunks, threads=2), nbytes, repeat, cold)
            row["tokviz enc x2"] = best_mbps(lambda: tok.encode_batch(chunks, threads=2), nbytes, repeat, cold)
            if ref_encode is not None:
                row["reference"] = ref_name
                row["ref MB/s"] = best_mbps(lambda: [ref_encode(c) for c in chunks], nbytes, repeat)
            if python_kb:
                sample = chunks[: max(1, python_kb * 1024 // CHUNK)]
                sb = sum(len(c.encode("utf-8")) for c in sample)
                tok.use_native(False)
                row["python"] = best_mbps(lambda: [tok.encode(c) for c in sample], sb, 1)
                tok.use_native(True)
            rows.append(row)
            print_row(row)
    return rows, ok


COLUMNS = ["tokviz ids", "tokviz enc", "tokviz ids x2", "tokviz enc x2", "ref MB/s", "python"]


def print_row(row: dict) -> None:
    if not getattr(print_row, "header", False):
        print(f"{'tokenizer':12} {'corpus':6} " + " ".join(f"{c:>13}" for c in COLUMNS) + "  reference")
        print_row.header = True
    cells = " ".join(f"{row[c]:13.1f}" if c in row else f"{'-':>13}" for c in COLUMNS)
    agree = {True: "ids agree", False: "IDS DIFFER"}.get(row.get("ids_agree"), "")
    print(f"{row['tokenizer']:12} {row['corpus']:6} {cells}  {row.get('reference', '')} {agree}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=2.0, help="megabytes of each corpus file (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts")
    ap.add_argument("--python-kb", type=int, default=64, help="KB timed on the pure-Python path (0: skip)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON at the end")
    args = ap.parse_args(argv)
    rows, ok = run(args.mb, args.repeat, args.python_kb)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
