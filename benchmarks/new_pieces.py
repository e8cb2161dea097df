"""Where warm-unseen time goes: cached pieces against new ones, tokviz beside fastokens.

    python3 benchmarks/new_pieces.py [--tokenizer PATH] [--corpus en] [--peer fastokens]

Two measurements, each encoder freshly loaded in its own process, one thread, 8 KB chunks:

  hits only   the corpus's cold pass (first 2 MB) is encoded, then the warm-unseen pass (next 2 MB)
              with every piece the cold pass did not have taken out (as tokviz's pre-tokenizer
              cuts them): what a cached piece costs on text not seen;
  all new     2 MB of made-up words (syllables, then random letters), each piece met once: what a
              new piece costs.

MB/s = UTF-8 bytes / seconds; ns a piece for the all-new text.  The ids are not compared here
(peer_speed.py does that); the texts are the same for both encoders.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from peer_speed import ONE_THREAD, SHARED  # noqa: E402  (this folder is on the path of a script)

from tokviz import bench  # noqa: E402

SYLLABLES = "th er on an re he in ed nd ha at en es of or nt ea ti to it st io le is ou ar as de rt ve".split()


def made_up_words(kind: str, words: int, seed: int = 5) -> list[str]:
    """Chunks of 1,100 made-up words (" " + 2-5 syllables, or 3-10 random letters)."""
    rng = random.Random(seed)

    def word() -> str:
        if kind == "letters":
            return " " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
        return " " + "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 5)))

    return ["".join(word() for _ in range(1100)) for _ in range(words // 1100)]


def hits_only(cold: list[str], warm: list[str], tokenizer: Path) -> list[str]:
    """The warm chunks with every piece the cold chunks do not have taken out (pieces as tokviz's
    native pre-tokenizer cuts them)."""
    import tokviz

    encoder = tokviz.load(tokenizer).native_encoder().encoder

    def pieces(chunk: str) -> list[str]:
        return [chunk[a:b] for a, b in encoder.pieces(chunk)]

    seen = {piece for chunk in cold for piece in pieces(chunk)}
    return ["".join(p for p in pieces(chunk) if p in seen) for chunk in warm]


def worker(args) -> dict:
    cold, warm = bench.two_passes(args.corpus, 2, 8)
    if args.worker == "tokviz":
        import tokviz

        encode = tokviz.load(args.tokenizer).encode_ids
    else:
        encode = bench.load_peer(args.worker, bench.source_of(args.tokenizer)).encode
    hits = hits_only(cold, warm, Path(args.tokenizer))
    bench.time_pass(encode, cold)
    record = {"encoder": args.worker, "hits_only_mb_s": bench.utf8_size(hits) / 1e6 / bench.time_pass(encode, hits)[0]}
    for kind in ("syllables", "letters"):
        chunks = made_up_words(kind, 110_000, seed=7 if kind == "letters" else 5)
        seconds, _ = bench.time_pass(encode, chunks)
        record[f"new_{kind}_mb_s"] = bench.utf8_size(chunks) / 1e6 / seconds
        record[f"new_{kind}_ns_a_piece"] = seconds / (len(chunks) * 1100) * 1e9
    return record


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", default=str(SHARED / "tokenizers" / "cl100k_base.tiktoken"))
    ap.add_argument("--corpus", default="en", help="a corpus name under ../shared/corpus")
    ap.add_argument("--peer", default="fastokens")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.corpus = str(SHARED / "corpus" / f"{args.corpus}.txt")
        print(json.dumps(worker(args)))
        return 0
    print(f"{Path(args.tokenizer).name}, {args.corpus}: MB/s (ns a piece)")
    for encoder in ("tokviz", args.peer):
        cmd = [sys.executable, __file__, "--worker", encoder, "--tokenizer", args.tokenizer, "--corpus", args.corpus]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **ONE_THREAD})
        if proc.returncode != 0:
            print(f"  {encoder}: failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"  {encoder:10} hits only {r['hits_only_mb_s']:6.1f}   all new: syllables {r['new_syllables_mb_s']:5.1f} "
              f"({r['new_syllables_ns_a_piece']:.0f})  letters {r['new_letters_mb_s']:5.1f} "
              f"({r['new_letters_ns_a_piece']:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
