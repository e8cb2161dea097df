"""Time of the round-trip analysis (normalizer changes + decode differences) on 1 MB of text.

    python3 benchmarks/roundtrip.py [--json] [--mb 1] [--corpus PATH] [--nfd] [TOKENIZER...]

For each tokenizer (default: Qwen2.5's 151,643-token byte-level BPE, BERT-MiniLM's WordPiece and the
shared sentencepiece Unigram model): load it, encode the first MB of ../shared/corpus/multi.txt
(Japanese, Russian, German manual pages), then time `tokviz.analysis.roundtrip.round_trip` on it
(encode not included, as in the GUI, which passes the encoding it has).  Goal (issue 23): a few
seconds for 1 MB.  BERT on this text is the worst case: lower-casing, accent stripping (which also
strips the Japanese voicing marks), spaces around every CJK character and punctuation, and many
unknown characters give hundreds of thousands of differences.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

DEFAULT = ["qwen2.5/tokenizer.json", "bert-minilm/tokenizer.json", "sentencepiece/unigram_8k.model"]


def main(argv=None) -> int:
    import tokviz
    from tokviz.analysis.roundtrip import round_trip

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizers", nargs="*")
    ap.add_argument("--corpus", default=str(SHARED / "corpus" / "multi.txt"))
    ap.add_argument("--mb", type=float, default=1.0, help="characters of the corpus to use, in millions")
    ap.add_argument("--nfd", action="store_true", help="also time the text decomposed (NFD): a normalizer "
                                                       "that composes (Qwen2.5's NFC) then changes a lot of it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    original = Path(args.corpus).read_text(encoding="utf-8")[: int(args.mb * 1_000_000)]
    texts = [("text", original)] + ([("NFD", unicodedata.normalize("NFD", original))] if args.nfd else [])
    rows = []
    for path, (form, text) in itertools.product(args.tokenizers or [str(SHARED / "tokenizers" / t) for t in DEFAULT],
                                                texts):
        tok = tokviz.load(path).prepare()
        t0 = time.perf_counter()
        enc = tok.encode(text)
        encode_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = round_trip(tok, text, enc)
        seconds = time.perf_counter() - t0
        row = {"tokenizer": path, "form": form, "vocab_size": tok.vocab_size, "characters": len(text),
               "tokens": len(enc),
               "encode_seconds": round(encode_seconds, 3), "seconds": round(seconds, 3),
               "decode_differences": len(report.decode_differences),
               "normalizer_changes": len(report.normalizer_changes),
               "decode_kinds": report.counts("decode"), "normalizer_kinds": report.counts("normalizer")}
        rows.append(row)
        if not args.json:
            name = Path(path).parent.name if Path(path).name == "tokenizer.json" else Path(path).name
            print(f"{name:<18} {form:<4} vocab {tok.vocab_size:>7,}  {len(text):,} chars, {len(enc):,} tokens  "
                  f"round trip {seconds:6.2f} s (encode {encode_seconds:.2f} s)  "
                  f"{len(report.decode_differences):,} decode differences, "
                  f"{len(report.normalizer_changes):,} normalizer changes")
    if args.json:
        json.dump(rows, sys.stdout, indent=2, ensure_ascii=False)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
