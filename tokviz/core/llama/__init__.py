"""llama.cpp's own tokenizers, for the tokenizers read from GGUF files (formats/gguf.py).

- `vocab`: what llama-vocab.cpp shares between its models: token types and their load-time
  changes, the SPM ("llama"), WPM ("bert") and UGM ("t5") models, its std::regex pre-tokenizer
  and its detokenize.
- `pre`: the pre-tokenizer names' splitters as tokviz pre-tokenizers; `kimi`: Kimi-K2's.
- `bpe`: BPE over UTF-8 pieces with `<0xXX>` fallback (Gemma 4, Sarvam, "whitespace").
- `rwkv`, `plamo2`, `dna`, `hash_chunks`: the "rwkv", "plamo2", "hybriddna" and "test" models.
"""
