"""Data shipped with tokviz: the default tokenizer (trained by tokviz) and sample texts."""
