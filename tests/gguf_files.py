"""Vocab-only GGUF files laid out as llama.cpp's converter (convert_hf_to_gguf.py --vocab-only)
lays them out, for the tests of tokviz.formats.gguf.

The writers read the Hugging Face files themselves (``*.xz`` copies too, so tests/data/real works
on a fresh clone) and write with gguf.GGUFWriter; the special ids, add_*_token flags and chat
template come from the gguf package's own SpecialVocab; sentencepiece models are read with the
sentencepiece library, as the converter reads them. llama.cpp opens a file with
``vocab_only=True`` from general.architecture and the tokenizer.* keys alone; the few
hyper-parameters written here only make the file look like a converted one.
"""
from __future__ import annotations

import json
import lzma
from pathlib import Path

# gguf.TokenType values, as stored in tokenizer.ggml.token_type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

SPECIAL_TYPES = ("bos", "eos", "unk", "sep", "pad", "cls", "mask")
# GGUF key of each special id the converter can write (it has no key for "cls")
ID_KEYS = {
    "bos": "tokenizer.ggml.bos_token_id",
    "eos": "tokenizer.ggml.eos_token_id",
    "unk": "tokenizer.ggml.unknown_token_id",
    "sep": "tokenizer.ggml.seperator_token_id",
    "pad": "tokenizer.ggml.padding_token_id",
    "mask": "tokenizer.ggml.mask_token_id",
    "eot": "tokenizer.ggml.eot_token_id",
    "eom": "tokenizer.ggml.eom_token_id",
}
ADD_KEYS = {t: f"tokenizer.ggml.add_{t}_token" for t in ("bos", "eos", "sep")}


def _read(path: Path) -> bytes:
    data = Path(path).read_bytes()
    return lzma.decompress(data) if str(path).endswith(".xz") else data


def _sources(src) -> dict[str, Path]:
    """Known file name (without .xz) -> path, from a folder, one file or a list of files."""
    if isinstance(src, (str, Path)) and Path(src).is_dir():
        paths = [p for p in Path(src).iterdir() if p.is_file()]
    elif isinstance(src, (str, Path)):
        paths = [Path(src)]
    else:
        paths = [Path(p) for p in src]
    out = {}
    for p in paths:
        name = p.name[:-3] if p.name.endswith(".xz") else p.name
        if name.endswith(".model"):
            name = "tokenizer.model"
        out[name] = p
    return out


def _json(files: dict[str, Path], name: str):
    return json.loads(_read(files[name])) if name in files else None


def looks_special(text: str) -> bool:
    """The converter's guess that an added token not marked special is a control token."""
    return (text in ("<pad>", "<mask>", "<2mass>", "[@BOS@]")
            or (text.startswith("<|") and text.endswith("|>"))
            or (text.startswith("<\uff5c") and text.endswith("\uff5c>"))
            or (text.startswith("<unused") and text.endswith(">")))


def special_vocab(files: dict[str, Path], n_vocab: int | None = None) -> dict:
    """The keys gguf.SpecialVocab writes (special ids, add_*_token flags, the chat template), from
    the folder's files unpacked into a temporary folder (SpecialVocab reads files by name)."""
    import tempfile

    import gguf

    with tempfile.TemporaryDirectory() as folder:
        for name in ("tokenizer.json", "tokenizer_config.json", "config.json", "chat_template.jinja",
                     "chat_template.json"):
            if name in files:
                (Path(folder) / name).write_bytes(_read(files[name]))
        vocab = gguf.SpecialVocab(folder, load_merges=False, n_vocab=n_vocab)
    kv: dict = {ID_KEYS[t]: i for t, i in vocab.special_token_ids.items() if t in ID_KEYS}
    kv.update({ADD_KEYS[t]: v for t, v in vocab.add_special_token.items() if t in ADD_KEYS})
    if isinstance(vocab.chat_template, str):
        kv["tokenizer.chat_template"] = vocab.chat_template
    return kv


def _merges(tok: dict) -> list[str]:
    merges = tok.get("model", {}).get("merges") or []
    if merges and not isinstance(merges[0], str):  # pairs (tokenizers >= 0.20): spaces become U+0120
        merges = [" ".join(part.replace(" ", "\u0120") for part in pair) for pair in merges]
    return list(merges)


def bpe_vocab(files: dict[str, Path], vocab_size: int | None = None) -> tuple[list[str], list[int]]:
    """Tokens and token types in the converter's order: holes are [PAD{i}] (UNUSED); added tokens
    are CONTROL when special or special-looking, else USER_DEFINED with U+2581 turned into spaces."""
    tok = _json(files, "tokenizer.json")
    by_id = {i: t for t, i in tok["model"]["vocab"].items()}
    added = {a["id"]: a for a in tok.get("added_tokens", [])}
    by_id.update({i: a["content"] for i, a in added.items()})
    added_text = {a["content"] for a in added.values()}
    conf = _json(files, "config.json") or {}
    size = vocab_size or conf.get("vocab_size") or len(by_id)
    tokens, types = [], []
    for i in range(size):
        text = by_id.get(i)
        if text is None:
            tokens.append(f"[PAD{i}]")
            types.append(UNUSED)
        elif text in added_text and i in added:
            if added[i].get("special") or looks_special(text):
                types.append(CONTROL)
            else:
                text = text.replace("\u2581", " ")
                types.append(USER_DEFINED)
            tokens.append(text)
        else:
            tokens.append(text)
            types.append(NORMAL)
    return tokens, types


def _head(arch: str, name: str, context_length: int) -> dict:
    return {"general.type": "model", "general.name": name,
            f"{arch}.block_count": 1, f"{arch}.context_length": context_length}


def write_gguf(out_path, arch: str, kv: dict) -> Path:
    """Write a tensor-less GGUF: bool -> BOOL, int -> UINT32, float -> FLOAT32, str -> STRING,
    lists -> arrays (str/bytes -> STRING, int -> INT32, float -> FLOAT32); None values are left out."""
    import gguf

    out_path = Path(out_path)
    writer = gguf.GGUFWriter(str(out_path), arch)
    for key, value in kv.items():
        if value is None:
            continue
        if isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value)
        elif isinstance(value, float):
            writer.add_float32(key, value)
        elif isinstance(value, str):
            writer.add_string(key, value)
        elif key == "tokenizer.ggml.precompiled_charsmap":
            writer.add_precompiled_charsmap(bytes(value))  # (a UINT8 array)
        else:
            writer.add_array(key, list(value))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    return out_path


# (source files' names, paths, sizes and times, vocab_size) -> what bpe_kv reads from them
_BPE_READ: dict = {}


def _bpe_read(files: dict[str, Path], vocab_size: int | None) -> tuple:
    """bpe_vocab's tokens and types, the merges and special_vocab's keys of `files`, read once per
    session for files as they are now (reading Qwen2.5's takes a second; many tests write variants)."""
    key = (tuple(sorted((n, str(p), p.stat().st_size, p.stat().st_mtime_ns) for n, p in files.items())), vocab_size)
    if key not in _BPE_READ:
        tokens, types = bpe_vocab(files, vocab_size)
        _BPE_READ[key] = (tuple(tokens), tuple(types), tuple(_merges(_json(files, "tokenizer.json"))),
                          special_vocab(files))
    return _BPE_READ[key]


def bpe_kv(src, pre: str | None, arch: str = "llama", *, vocab_size: int | None = None,
           name: str | None = None, context_length: int = 4096) -> dict:
    """The key/values write_bpe_gguf writes (edit them to write variants: each call returns a new
    dict and new lists)."""
    files = _sources(src)
    tokens, types, merges, special = _bpe_read(files, vocab_size)
    kv = _head(arch, name or _default_name(src), context_length)
    kv.update({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": pre,
               "tokenizer.ggml.tokens": list(tokens), "tokenizer.ggml.token_type": list(types),
               "tokenizer.ggml.merges": list(merges)})
    kv.update(special)
    return kv


def write_bpe_gguf(src, out_path, pre: str | None, arch: str = "llama", *, vocab_size: int | None = None,
                   name: str | None = None, kv: dict | None = None) -> Path:
    """A byte-level BPE tokenizer.json (folder, file or list of files, *.xz allowed) as a "gpt2"
    GGUF; pre=None leaves tokenizer.ggml.pre out. kv adds or replaces keys (None removes one)."""
    return write_gguf(out_path, arch, {**bpe_kv(src, pre, arch, vocab_size=vocab_size, name=name), **(kv or {})})


def spm_vocab(files: dict[str, Path], vocab_size: int | None = None) -> tuple[list[bytes], list[float], list[int]]:
    """Tokens, scores and types as the converter's _create_vocab_sentencepiece makes them."""
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_proto=_read(files["tokenizer.model"]))
    conf = _json(files, "config.json") or {}
    size = vocab_size or conf.get("vocab_size") or sp.vocab_size()
    tokens = [f"[PAD{i}]".encode() for i in range(size)]
    scores = [-10000.0] * size
    types = [UNUSED] * size
    for i in range(min(size, sp.vocab_size())):
        tokens[i], scores[i] = sp.IdToPiece(i).encode("utf-8"), sp.GetScore(i)
        types[i] = (UNKNOWN if sp.IsUnknown(i) else CONTROL if sp.IsControl(i)
                    else UNUSED if sp.IsUnused(i) else BYTE if sp.IsByte(i) else NORMAL)
    for text, i in (_json(files, "added_tokens.json") or {}).items():
        if i < size:
            tokens[i], scores[i], types[i] = text.encode("utf-8"), -1000.0, USER_DEFINED
    decoder = (_json(files, "tokenizer_config.json") or {}).get("added_tokens_decoder", {})
    for key, data in decoder.items():
        i, text = int(key), data["content"]
        if i >= size:
            continue
        if data.get("special") or looks_special(text):
            types[i] = CONTROL
        else:
            text, types[i] = text.replace("\u2581", " "), USER_DEFINED
        tokens[i], scores[i] = text.encode("utf-8"), -1000.0
    return tokens, scores, types


def spm_kv(src, arch: str = "llama", *, vocab_size: int | None = None, name: str | None = None,
           context_length: int = 4096) -> dict:
    """The key/values write_spm_gguf writes (edit them to write variants)."""
    files = _sources(src)
    tokens, scores, types = spm_vocab(files, vocab_size)
    kv = _head(arch, name or _default_name(src), context_length)
    prefix = (_json(files, "tokenizer_config.json") or {}).get("add_prefix_space")
    kv["tokenizer.ggml.add_space_prefix"] = prefix if arch == "llama" and isinstance(prefix, bool) else None
    kv.update({"tokenizer.ggml.model": "llama", "tokenizer.ggml.pre": "default", "tokenizer.ggml.tokens": tokens,
               "tokenizer.ggml.scores": scores, "tokenizer.ggml.token_type": types})
    kv.update(special_vocab(files, n_vocab=len(tokens)))
    return kv


def write_spm_gguf(src, out_path, arch: str = "llama", *, vocab_size: int | None = None,
                   name: str | None = None, kv: dict | None = None) -> Path:
    """A sentencepiece model (a *.model[.xz] file, or a folder or list of files holding one beside
    tokenizer_config.json / tokenizer.json / added_tokens.json / config.json) as a "llama" GGUF.
    A bare model gets no special ids nor add_* keys (llama.cpp's defaults then apply: bos 1,
    eos 2, unk 0, add_bos true, add_space_prefix true). kv adds or replaces keys (None removes one)."""
    return write_gguf(out_path, arch, {**spm_kv(src, arch, vocab_size=vocab_size, name=name), **(kv or {})})


def wpm_kv(src, arch: str = "bert", *, name: str | None = None, context_length: int = 512) -> dict:
    """The key/values of a WordPiece tokenizer.json as llama.cpp's BERT converter writes them:
    tokens in "phantom space" form (a word-initial token gets U+2581, a "##" continuation loses its
    marker; control tokens stay), the normalizer's lowercase / strip_accents."""
    files = _sources(src)
    tokens, types = bpe_vocab(files)
    tokens = [t if k == CONTROL else t[2:] if t.startswith("##") else "\u2581" + t for t, k in zip(tokens, types)]
    kv = _head(arch, name or _default_name(src), context_length)
    kv.update({"tokenizer.ggml.model": "bert", "tokenizer.ggml.pre": "default", "tokenizer.ggml.tokens": tokens,
               "tokenizer.ggml.token_type": types, f"{arch}.attention.causal": False})
    normalizer = (_json(files, "tokenizer.json") or {}).get("normalizer") or {}
    for step in normalizer.get("normalizers", [normalizer]):
        if step.get("type") == "BertNormalizer":
            for key in ("lowercase", "strip_accents"):
                if step.get(key) is not None:
                    kv[f"tokenizer.ggml.normalizer.{key}"] = bool(step[key])
    kv.update(special_vocab(files, n_vocab=len(tokens)))
    return kv


def write_wpm_gguf(src, out_path, arch: str = "bert", *, name: str | None = None, kv: dict | None = None) -> Path:
    """A BERT tokenizer.json folder as a "bert" GGUF (see wpm_kv); kv adds or replaces keys."""
    return write_gguf(out_path, arch, {**wpm_kv(src, arch, name=name), **(kv or {})})


def t5_kv(model_path, arch: str = "t5", *, name: str | None = None, context_length: int = 512) -> dict:
    """The key/values of a sentencepiece Unigram model as llama.cpp's T5 converter writes them:
    tokens, scores and types from the sentencepiece library, add_space_prefix and
    remove_extra_whitespaces from its normalizer spec, the precompiled charsmap."""
    from tokviz.formats.sentencepiece import parse_model_proto

    files = _sources(model_path)
    tokens, scores, types = spm_vocab(files)
    spec = parse_model_proto(_read(files["tokenizer.model"]))["normalizer_spec"]
    kv = _head(arch, name or _default_name(model_path), context_length)
    kv.update({"tokenizer.ggml.model": "t5", "tokenizer.ggml.pre": "default", "tokenizer.ggml.tokens": tokens,
               "tokenizer.ggml.scores": scores, "tokenizer.ggml.token_type": types,
               "tokenizer.ggml.add_space_prefix": bool(spec["add_dummy_prefix"]),
               "tokenizer.ggml.remove_extra_whitespaces": bool(spec["remove_extra_whitespaces"]),
               "tokenizer.ggml.precompiled_charsmap": spec["precompiled_charsmap"] or None})
    kv.update(special_vocab(files, n_vocab=len(tokens)))
    return kv


def write_t5_gguf(model_path, out_path, arch: str = "t5", *, name: str | None = None, kv: dict | None = None) -> Path:
    """A sentencepiece Unigram model (*.model[.xz]) as a "t5" GGUF (see t5_kv); kv adds or replaces keys."""
    return write_gguf(out_path, arch, {**t5_kv(model_path, arch, name=name), **(kv or {})})


def _default_name(src) -> str:
    if isinstance(src, (str, Path)):
        p = Path(src)
        return p.name if p.is_dir() else p.name.split(".")[0]
    return Path(next(iter(src))).parent.name


def llama_detokenize(llm, ids, remove_special: bool = False, unparse_special: bool = False) -> bytes:
    """llama.cpp's own llama_detokenize for a llama_cpp.Llama (its Llama.detokenize is a Python loop
    over token_to_piece that drops one leading space after BOS instead)."""
    import ctypes

    import llama_cpp

    arr = (llama_cpp.llama_token * max(1, len(ids)))(*ids)
    size = 64 + 8 * len(ids)
    while True:
        buf = ctypes.create_string_buffer(size)
        n = llama_cpp.llama_detokenize(llm._model.vocab, arr, len(ids), buf, size, remove_special, unparse_special)
        if n >= 0:
            return buf.raw[:n]
        size = -n + 1


def llama_piece(llm, token: int, special: bool = False, lstrip: int = 0) -> bytes:
    """llama.cpp's llama_token_to_piece for one id."""
    import ctypes

    import llama_cpp

    size = 64
    while True:
        buf = ctypes.create_string_buffer(size)
        n = llama_cpp.llama_token_to_piece(llm._model.vocab, token, buf, size, lstrip, special)
        if n >= 0:
            return buf.raw[:n]
        size = -n + 1


def rwkv_kv(vocab_path, arch: str = "rwkv6", *, name: str = "rwkv-world", vocab_size: int = 65536) -> dict:
    """The key/values of an RWKV world vocabulary (rwkv_vocab_v20230424.txt) as llama.cpp's
    converter writes them: '<s>' (control) first, each token as the escaped repr of its bytes,
    [PAD{i}] up to the vocabulary size, bos = eos = 0 and '\\n\\n' (261) as the EOT token."""
    import ast

    tokens, types = ["<s>"], [CONTROL]
    for line in _read(Path(vocab_path)).decode("utf-8").splitlines(keepends=True):
        parts = line.split(" ")
        token = ast.literal_eval(" ".join(parts[1:-1]))
        token = token.encode("utf-8") if isinstance(token, str) else token
        tokens.append(repr(token)[2:-1])
        types.append(NORMAL)
    for i in range(len(tokens), vocab_size):
        tokens.append(f"[PAD{i}]")
        types.append(UNUSED)
    kv = _head(arch, name, 4096)
    kv.update({"tokenizer.ggml.model": "rwkv", "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": types,
               "tokenizer.ggml.bos_token_id": 0, "tokenizer.ggml.eos_token_id": 0, "tokenizer.ggml.eot_token_id": 261})
    return kv


def plamo2_kv(model_path, arch: str = "plamo2", *, name: str = "plamo2-test") -> dict:
    """A PLaMo-2 vocabulary laid out as llama.cpp's converter lays out PLaMo's tokenizer.jsonl,
    made from a sentencepiece Unigram model (the real PLaMo-2 vocabulary is not bundled): the
    <|plamo:unk|> <|plamo:bos|> <|plamo:eos|> <|plamo:pad|> control tokens, the 256 <0xXX> byte
    tokens, the model's pieces with spaces written as spaces and their scores, and [PAD{i}] tokens
    scoring -1000 as the converter pads."""
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_proto=_read(Path(model_path)))
    tokens = ["<|plamo:unk|>", "<|plamo:bos|>", "<|plamo:eos|>", "<|plamo:pad|>"]
    scores = [0.0] * 4
    types = [CONTROL] * 4
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        scores.append(0.0)
        types.append(BYTE)
    seen = set(tokens)
    for i in range(sp.vocab_size()):
        if sp.IsControl(i) or sp.IsUnknown(i) or sp.IsByte(i):
            continue
        text = sp.IdToPiece(i).replace("\u2581", " ")
        if text in seen:
            continue
        seen.add(text)
        tokens.append(text)
        scores.append(sp.GetScore(i))
        types.append(NORMAL)
    for k in range(1, 4):
        tokens.append(f"[PAD{k}]")
        scores.append(-1000.0)
        types.append(UNUSED)
    kv = _head(arch, name, 2048)
    kv.update({"tokenizer.ggml.model": "plamo2", "tokenizer.ggml.pre": "default", "tokenizer.ggml.tokens": tokens,
               "tokenizer.ggml.scores": scores, "tokenizer.ggml.token_type": types,
               "tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.eos_token_id": 2, "tokenizer.ggml.padding_token_id": 3,
               "tokenizer.ggml.unknown_token_id": 0})
    return kv


def unpack_xz(src, out_dir) -> Path:
    """A copy of `src` in `out_dir`, decompressed if it ends in .xz."""
    src = Path(src)
    out = Path(out_dir) / (src.name[:-3] if src.name.endswith(".xz") else src.name)
    if not out.exists():
        out.write_bytes(_read(src))
    return out


def tokenizer_kv(gguf_path) -> dict:
    """The general.* and tokenizer.* key/values of a GGUF file as write_gguf takes them back
    (numpy arrays as lists; token types as INT32 arrays, scores as FLOAT32 arrays)."""
    from tokviz.formats.gguf_meta import read_metadata

    meta = read_metadata(gguf_path, lambda k: k.startswith(("tokenizer.", "general.")))
    kv = {}
    for key, value in meta.items():
        if key in ("GGUF.version", "general.architecture", "tokenizer.ggml.precompiled_charsmap"):
            continue
        if hasattr(value, "tolist"):
            value = value.tolist()
            if key == "tokenizer.ggml.scores":
                value = [float(v) for v in value]
        kv[key] = value
    return kv


def utf8_bpe_kv(model_path, *, model: str = "gemma4", pre: str | None = None, arch: str = "gemma3") -> dict:
    """A BPE vocabulary written with '▁' for spaces and <0xXX> byte tokens, as Gemma 4's: the
    pieces and types of a sentencepiece BPE model with byte fallback (e.g. mistral-v1.model.xz),
    and as merges every split of a piece into two pieces, ranked by the piece's id (made for the
    tests: llama.cpp and tokviz read the same file)."""
    files = _sources(model_path)
    tokens, _scores, types = spm_vocab(files)
    tokens = [t.decode("utf-8") for t in tokens]
    index = {t: i for i, t in enumerate(tokens)}
    merges = []
    for i, t in enumerate(tokens):
        if types[i] != NORMAL or len(t) < 2:
            continue
        for k in range(1, len(t)):
            if index.get(t[:k], len(tokens)) < i and index.get(t[k:], len(tokens)) < i \
                    and " " not in t and "\n" not in t:
                merges.append(f"{t[:k]} {t[k:]}")
    kv = _head(arch, "utf8-bpe", 4096)
    kv.update({"tokenizer.ggml.model": model, "tokenizer.ggml.pre": pre, "tokenizer.ggml.tokens": tokens,
               "tokenizer.ggml.token_type": types, "tokenizer.ggml.merges": merges,
               "tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.eos_token_id": 2,
               "tokenizer.ggml.unknown_token_id": 0})
    return kv


_POOLS = [
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
    '0123456789',
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\n\n',
    '\r',
    '\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2003\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff',
    "'s 'S 't 're 'Ve 'm 'LL 'd n't I'm ",
    '.,;:!?()[]{}<>"\'`~@#$%^&*-_=+/\\|…—–«»“”¡¿§',
    'éèêëàäçñøåæœßÉÄÖÜİıſǅ',
    'éàöņ̃⃝ͅ',
    'ДЖЗабвгдёя',
    'αβγδΣΩ',
    '的一是不了人我在有他这中',
    'あいうアイウーッ',
    '한국어가나ㄱㄴㅏ',
    'ابتثج،؟',
    'אבג',
    'अआइकख्ाि',
    'กขคะัา',
    '٠١٢０１２①②¼²Ⅻ',
    '😀🦙👍🏽👨\u200d👩\u200d👧❤️✨',
    '€£¥©®™°±×÷∑∞≈≠→',
    '\u0378\u0379\U000e0080\u2fe0\ue000\uf8ff\x00\x01\x07\x7f\u200d\u200e\xad',
    'ＡＢａ！？',
    'ℌℕ𝐀𝔸',
    'IMGIMGABZ <sentinel:12> <dna>ACGT</dna>',
    '1234567 12 123 12345678901',
]
_WORDS = [
    'Hello', 'world', 'the', "don't", "I've", '3.14', '1,000,000', 'foo_bar', 'x=y+1', 'def f():', '   ',
    'Straße', 'naïve', '東京', '안녕', 'Привет', '🦙.cpp', '\n\n\n', '\t\t',
]


def mixed_texts(count: int, seed: int = 1) -> list[str]:
    """Random texts mixing scripts, digits, whitespace runs, punctuation, emoji, CJK, combining marks,
    unassigned and control characters."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.3:
                parts.append(rng.choice(_WORDS))
            else:
                pool = rng.choice(_POOLS)
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
            if rng.random() < 0.4:
                parts.append(rng.choice([" ", "  ", "\n", "", "\t", " \n "]))
        out.append("".join(parts))
    return out


def hybriddna_kv(base: dict, tag_type: int = NORMAL) -> dict:
    """A "hybriddna" vocabulary as llama.cpp's converter lays one out: `base`'s BPE vocabulary, then
    <dna> </dna> (of type `tag_type`) and <oov>, then every DNA 6-mer followed by U+E000."""
    from itertools import product

    kv = dict(base)
    tokens = list(kv["tokenizer.ggml.tokens"]) + ["<dna>", "</dna>", "<oov>"]
    types = list(kv["tokenizer.ggml.token_type"]) + [tag_type, tag_type, CONTROL]
    for letters in product("ACGT", repeat=6):
        tokens.append("".join(letters) + "\ue000")
        types.append(NORMAL)
    kv.update({"tokenizer.ggml.model": "hybriddna", "tokenizer.ggml.tokens": tokens,
               "tokenizer.ggml.token_type": types})
    return kv
