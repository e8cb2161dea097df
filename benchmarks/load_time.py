"""Load time of each shared tokenizer: tokviz beside its reference library, same file, same run.

    python benchmarks/load_time.py [--repeat 5] [--json]

Prints the best of N loads for each (fresh process state is not needed: neither side caches files).
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "tokenizers"


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        obj = fn()
        times.append(time.perf_counter() - t)
        del obj
    return min(times)


def reference_loaders():
    out = {}
    try:
        import tokenizers

        def hf(path):
            return lambda: tokenizers.Tokenizer.from_file(str(path))

        def hf_gpt2(folder):
            def load():
                tok = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
                tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
                return tok
            return load

        def hf_bert(path):
            return lambda: tokenizers.BertWordPieceTokenizer(str(path))

        out.update(
            {
                "qwen2.5/tokenizer.json": ("tokenizers", hf(SHARED / "qwen2.5" / "tokenizer.json")),
                "qwen2.5/vocab.json+merges.txt": ("tokenizers", hf_gpt2(SHARED / "qwen2.5")),
                "llama3/tokenizer.json": ("tokenizers", hf(SHARED / "llama3" / "tokenizer.json")),
                "bert-minilm/tokenizer.json": ("tokenizers", hf(SHARED / "bert-minilm" / "tokenizer.json")),
                "bert-minilm/vocab.txt": ("tokenizers", hf_bert(SHARED / "bert-minilm" / "vocab.txt")),
            }
        )
    except ImportError:
        pass
    try:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe

        from tokviz.core.patterns import CL100K_PATTERN

        def tk():
            return tiktoken.Encoding(
                "cl100k_base", pat_str=CL100K_PATTERN,
                mergeable_ranks=load_tiktoken_bpe(str(SHARED / "cl100k_base.tiktoken")), special_tokens={},
            )

        out["cl100k_base.tiktoken"] = ("tiktoken", tk)
    except ImportError:
        pass
    try:
        import sentencepiece as spm

        for name in ("unigram_8k", "bpe_8k"):
            path = SHARED / "sentencepiece" / f"{name}.model"
            out[f"sentencepiece/{name}.model"] = ("sentencepiece", lambda p=path: spm.SentencePieceProcessor(model_file=str(p)))
    except ImportError:
        pass
    return out


TOKVIZ_PATHS = {
    "qwen2.5/tokenizer.json": SHARED / "qwen2.5" / "tokenizer.json",
    "qwen2.5/vocab.json+merges.txt": SHARED / "qwen2.5" / "vocab.json",
    "llama3/tokenizer.json": SHARED / "llama3" / "tokenizer.json",
    "bert-minilm/tokenizer.json": SHARED / "bert-minilm" / "tokenizer.json",
    "bert-minilm/vocab.txt": SHARED / "bert-minilm" / "vocab.txt",
    "cl100k_base.tiktoken": SHARED / "cl100k_base.tiktoken",
    "sentencepiece/unigram_8k.model": SHARED / "sentencepiece" / "unigram_8k.model",
    "sentencepiece/bpe_8k.model": SHARED / "sentencepiece" / "bpe_8k.model",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not SHARED.exists():
        print(f"shared tokenizers not found at {SHARED}", file=sys.stderr)
        return 1
    import tokviz

    refs = reference_loaders()
    rows = []
    for name, path in TOKVIZ_PATHS.items():
        try:
            tokviz.load(path)
        except Exception as exc:  # report and go on with the others
            print(f"{name}: tokviz cannot load it: {exc}", file=sys.stderr)
            continue
        ours = best_of(lambda: tokviz.load(path), args.repeat)
        lib, ref_fn = refs.get(name, (None, None))
        theirs = best_of(ref_fn, args.repeat) if ref_fn else None
        rows.append({"tokenizer": name, "tokviz_s": round(ours, 5), "reference": lib,
                     "reference_s": round(theirs, 5) if theirs else None,
                     "ratio": round(ours / theirs, 2) if theirs else None})
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
    else:
        print(f"{'tokenizer':34} {'tokviz':>9} {'reference':>24} {'ratio':>6}")
        for r in rows:
            ref = f"{r['reference_s']*1000:.1f} ms ({r['reference']})" if r["reference_s"] else "-"
            ratio = f"{r['ratio']:.2f}" if r["ratio"] else "-"
            print(f"{r['tokenizer']:34} {r['tokviz_s']*1000:8.1f} ms {ref:>26} {ratio:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
