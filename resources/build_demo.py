"""Rebuild the default tokenizer shipped with tokviz: `python resources/build_demo.py`.

A byte-level BPE trained by tokviz on `training.txt` (text written for this project), with the
GPT-2 split regex and two special tokens, saved in the minbpe format.
"""
from pathlib import Path

from tokviz.core.patterns import GPT2_PATTERN
from tokviz.formats.minbpe import write_minbpe
from tokviz.train.bpe import train_bytelevel_bpe

HERE = Path(__file__).resolve().parent
VOCAB_SIZE = 768
SPECIALS = ["<|endoftext|>", "<|pad|>"]

if __name__ == "__main__":
    text = (HERE / "training.txt").read_text(encoding="utf-8")
    result = train_bytelevel_bpe([text], VOCAB_SIZE, pattern=GPT2_PATTERN, special_tokens=SPECIALS, min_frequency=2)
    write_minbpe(HERE / "tokviz-demo.model", result.pattern, result.merges, result.special_tokens)
    print(f"{len(result.merges)} merges, vocab {256 + len(result.merges) + len(SPECIALS)}")
