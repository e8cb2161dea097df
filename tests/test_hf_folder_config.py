"""A folder with tokenizer.json and tokenizer_config.json (and special_tokens_map.json) is read as
transformers reads it: the config's added tokens, special-token names and extra special tokens
on top of the file, with transformers' precedence and flags.

Folders are built from real tokenizer.json files with configs that add tokens the file lacks,
promote plain vocabulary entries to special tokens, set lstrip / rstrip / normalized, let
special_tokens_map.json and tokenizer_config.json disagree, and name the classes tokviz follows.
transformers' `AutoTokenizer.from_pretrained(folder)` run here is the reference: ids with and
without special tokens, offsets, decode both ways, a chat template's ids, and an export read back
by HF tokenizers.  A bare tokenizer.json stays as HF tokenizers reads it.
"""
from __future__ import annotations

import json
import logging
import lzma
import random
import shutil
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

import tokviz  # noqa: E402
from tokviz.core import chat  # noqa: E402
from tokviz.errors import TokvizError  # noqa: E402

from _shared import sweep  # noqa: E402

transformers.logging.set_verbosity_error()
logging.getLogger("transformers").setLevel(logging.ERROR)

DATA = Path(__file__).parent / "data"
REAL = DATA / "real"
SHARED_LLAMA3 = Path(__file__).parents[1].parent / "shared" / "tokenizers" / "llama3" / "tokenizer.json"


def _tokenizer_json(name: str) -> bytes:
    if name == "mistral-v1":
        return _mistral_v1_tokenizer_json()
    if name == "llama3":
        if not SHARED_LLAMA3.is_file():
            pytest.skip("../shared/tokenizers/llama3 is not here")
        return SHARED_LLAMA3.read_bytes()
    return lzma.decompress((REAL / name / "tokenizer.json.xz").read_bytes())


_MADE: dict[str, bytes] = {}


def _mistral_v1_tokenizer_json() -> bytes:
    """The tokenizer.json transformers writes for Mistral 7B v0.1's sentencepiece model (Metaspace,
    byte fallback), made here once from the real model under tests/data/real."""
    if "mistral-v1" not in _MADE:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            src, out = Path(tmp, "src"), Path(tmp, "out")
            src.mkdir()
            (src / "tokenizer.model").write_bytes(lzma.decompress((REAL / "mistral-v1.model.xz").read_bytes()))
            transformers.LlamaTokenizer.from_pretrained(src).save_pretrained(out)
            _MADE["mistral-v1"] = (out / "tokenizer.json").read_bytes()
    return _MADE["mistral-v1"]


def _entry(content, special=True, **flags):
    return {"content": content, "lstrip": flags.get("lstrip", False), "normalized": flags.get("normalized", False),
            "rstrip": flags.get("rstrip", False), "single_word": flags.get("single_word", False), "special": special}


def _typed(content, **flags):
    return {"__type": "AddedToken", "content": content, "lstrip": flags.get("lstrip", False),
            "normalized": flags.get("normalized", False), "rstrip": flags.get("rstrip", False),
            "single_word": flags.get("single_word", False)}


# name -> (tokenizer_config.json or None, special_tokens_map.json or None)
CONFIGS = {
    "new tokens in added_tokens_decoder": ({
        "tokenizer_class": "LlamaTokenizerFast",
        "added_tokens_decoder": {"900001": _entry("[INST]"), "900002": _entry("[/INST]"),
                                 "900003": _entry("<tool>", special=False, normalized=True),
                                 "900004": _entry("[AVAILABLE_TOOLS]", lstrip=True, rstrip=True)},
    }, None),
    "plain vocab entries named special": ({
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
        "pad_token": "hello", "additional_special_tokens": ["<tool_call>", " world", "[INST]"],
    }, None),
    "typed special tokens with flags": ({
        "bos_token": _typed("<s>", lstrip=True, normalized=True), "eos_token": _typed("</s>", rstrip=True),
        "mask_token": _typed("<mask>", lstrip=True, rstrip=True, single_word=True),
        "image_token": "<image>", "audio_token": _typed("<audio>", rstrip=True),
        "extra_special_tokens": {"video_token": "<video>"},
    }, None),
    "decoder flags win over named flags": ({
        "added_tokens_decoder": {"900010": _entry("<|user|>", lstrip=True), "900011": _entry("<|bot|>", rstrip=True)},
        "bos_token": _typed("<|user|>"), "eos_token": "<|bot|>",
    }, None),
    "special_tokens_map wins without a decoder": ({
        "bos_token": "<s>", "eos_token": "</s>", "additional_special_tokens": ["[A]"],
    }, {
        "bos_token": {"content": "<|start|>", "lstrip": False, "normalized": False, "rstrip": True, "single_word": False},
        "eos_token": "<|stop|>", "additional_special_tokens": ["[B]", "[C]"],
    }),
    "special_tokens_map ignored beside a decoder": ({
        "added_tokens_decoder": {"900020": _entry("<|start|>")}, "bos_token": "<|start|>",
    }, {"bos_token": "<|other|>", "eos_token": "<|stop|>", "additional_special_tokens": ["[B]"]}),
    "only special_tokens_map": (None, {"bos_token": "<s>", "eos_token": "</s>", "additional_special_tokens": ["[X]"]}),
    "split_special_tokens": ({"bos_token": "<s>", "additional_special_tokens": ["[INST]"], "split_special_tokens": True},
                             None),
    "extra beats additional": ({"additional_special_tokens": ["[A]"], "extra_special_tokens": ["[E]", _typed("[F]")]},
                               None),
    "Qwen2 class rebuilds its pipeline": ({
        "tokenizer_class": "Qwen2Tokenizer", "bos_token": None, "eos_token": "<|im_end|>",
        "added_tokens_decoder": {"900030": _entry("<|im_start|>"), "900031": _entry("<|im_end|>")},
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>", "[INST]"],
    }, None),
    "Qwen3.5 class rebuilds its pipeline": ({
        "tokenizer_class": "Qwen3_5Tokenizer", "eos_token": "<|im_end|>", "additional_special_tokens": ["[INST]"],
    }, None),
    "GPT2 class rebuilds its pipeline": ({
        "tokenizer_class": "GPT2Tokenizer", "add_prefix_space": True,
        "added_tokens_decoder": {"900040": _entry("<|end_of_role|>"), "900041": _entry("<tool>", special=False)},
    }, None),
    "a class transformers does not know": ({"tokenizer_class": "NoSuchTokenizer", "bos_token": "[INST]"}, None),
}

TOKEN_STRINGS = ["[CLS]", "[SEP]", "[MASK]", "[ENT]", "[E2]", "[unused1]", "<s>", "</s>", "<unk>", "hello", " world", "[INST]", "[/INST]", "<tool>", "[AVAILABLE_TOOLS]",
                 "<tool_call>", "<mask>", "<image>", "<audio>", "<video>", "<|user|>", "<|bot|>", "<|start|>",
                 "<|stop|>", "<|other|>", "[A]", "[B]", "[C]", "[E]", "[F]", "[X]", "<|im_start|>", "<|im_end|>",
                 "<|end_of_role|>", "<|endoftext|>", "<｜begin▁of▁sentence｜>", "<|begin_of_text|>"]


def _texts() -> list[str]:
    rng = random.Random(40)
    fixed = ["<s>[INST] hi [/INST]", "  <s>  hello world</s>\n", "x<mask>y <mask> z", "[AVAILABLE_TOOLS]  [INST]\t",
             "a <tool> b<tool>c", "<|user|>  question<|bot|>  answer", "中文 <image>\n<audio>  <video>",
             "<|im_start|>user\nhi<|im_end|>\n", "Hello!! it's 123 ", "Héllo , wörld ! isn't it ? [SEP] [MASK]x",
             "中文字 Ünïcödé\u00a0[CLS] [ENT]  [unused1]", "cafe\u0301 नमस्ते 'S 'll x\u0301y", ""]
    pool = TOKEN_STRINGS + [" ", "  ", "\n", "x", "hello", "é", "日本", "!"]
    return fixed + ["".join(rng.choice(pool) for _ in range(rng.randint(1, 12))) for _ in range(30)]


TEXTS = _texts()


def _build(folder: Path, source: str, config, special_map) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tokenizer.json").write_bytes(_tokenizer_json(source))
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    if special_map is not None:
        (folder / "special_tokens_map.json").write_text(json.dumps(special_map), encoding="utf-8")
    return folder


def _compare(folder: Path) -> None:
    ref = transformers.AutoTokenizer.from_pretrained(folder)
    tok = tokviz.load(folder)
    for text in TEXTS:
        for add in (False, True):
            out = ref(text, add_special_tokens=add, return_offsets_mapping=True)
            got = tok.encode(text, add_special_tokens=add)
            assert got.ids == out["input_ids"], (text, add)
            if not add:
                assert got.offsets == [tuple(o) for o in out["offset_mapping"]], text
                assert tok.encode_ids(text) == ref.encode(text, add_special_tokens=False)
        ids = ref(text, add_special_tokens=True)["input_ids"]
        assert tok.decode(ids) == ref.decode(ids), text
        for skip in (False, True):
            assert tok.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), (text, skip)
    assert tok.vocab_size == len(ref)
    assert tok.chat_templates.variables == ref.special_tokens_map  # (what a chat template is rendered with)
    for t in TOKEN_STRINGS:
        expected = ref.convert_tokens_to_ids(t)
        if expected != ref.unk_token_id and tok.id_to_token(expected) == t:  # (a normalized token shows as normalized)
            assert tok.token_to_id(t) == expected, t


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("case", sweep(list(CONFIGS), list(CONFIGS)[:2]))  # (every one with -m slow)
def test_qwen_folder_configs_as_transformers(tmp_path, case):
    _compare(_build(tmp_path / "f", "qwen2.5", *CONFIGS[case]))


@pytest.mark.slow
@pytest.mark.first_cases(2)
@pytest.mark.parametrize("source", ["deepseek-v4", pytest.param("llama3", marks=pytest.mark.slow)])
@pytest.mark.parametrize("case", ["new tokens in added_tokens_decoder", "plain vocab entries named special",
                                  "typed special tokens with flags", "special_tokens_map wins without a decoder",
                                  "GPT2 class rebuilds its pipeline"])
def test_other_real_files_as_transformers(tmp_path, source, case):
    _compare(_build(tmp_path / "f", source, *CONFIGS[case]))


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("source", ["qwen2.5", "deepseek-v4", "bert-minilm", "model2vec-bert"])
def test_shipped_folders_as_transformers(tmp_path, source):
    """Real folders as packages ship them: tokenizer.json with its tokenizer_config.json (and
    special_tokens_map.json): model2vec's has added_tokens_decoder, clean-up and padding."""
    folder = _build(tmp_path / "f", source, None, None)
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        if (REAL / source / name).is_file():
            shutil.copy(REAL / source / name, folder / name)
    _compare(folder)


@pytest.mark.shared
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["qwen2.5", "llama3", "bert-minilm"])
def test_shared_folders_as_transformers(name):
    folder = SHARED_LLAMA3.parents[1] / name
    if not (folder / "tokenizer_config.json").is_file():
        pytest.skip(f"../shared/tokenizers/{name} is not here")
    _compare(folder)


BERT_CONFIGS = {
    "cased, accents kept, no Chinese split": {"tokenizer_class": "BertTokenizer", "do_lower_case": False,
                                              "strip_accents": False, "tokenize_chinese_chars": False},
    "accents stripped, clean-up, new tokens": {
        "tokenizer_class": "BertTokenizerFast", "strip_accents": True, "clean_up_tokenization_spaces": True,
        "added_tokens_decoder": {"30522": _entry("[ENT]"), "30523": _entry("<tool>", special=False, normalized=True)},
        "additional_special_tokens": ["hello", "[E2]"]},
    "other special names": {"tokenizer_class": "BertTokenizer", "cls_token": "[unused1]", "sep_token": "[unused2]",
                            "unk_token": "[unused3]", "mask_token": _typed("[MASK]", lstrip=True)},
}


SENTENCEPIECE_STYLE_CONFIGS = {
    "Llama, legacy": {"tokenizer_class": "LlamaTokenizer", "legacy": True,
                      "added_tokens_decoder": {"32000": _entry("[INST]"), "32001": _entry("[/INST]")}},
    "Llama, not legacy": {"tokenizer_class": "LlamaTokenizerFast", "legacy": False, "bos_token": "<s>",
                          "additional_special_tokens": ["[INST]", "hello"]},
    "Llama, no prefix space": {"tokenizer_class": "LlamaTokenizer", "add_prefix_space": False,
                               "eos_token": _typed("</s>", lstrip=True)},
    "Gemma": {"tokenizer_class": "GemmaTokenizer", "unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>",
              "additional_special_tokens": ["<start_of_turn>", "<end_of_turn>"]},
    "Cohere": {"tokenizer_class": "CohereTokenizerFast", "add_prefix_space": False,
               "additional_special_tokens": ["<|START_OF_TURN_TOKEN|>", _typed("<|USER_TOKEN|>", rstrip=True)]},
    "file as it is": {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                      "additional_special_tokens": ["[INST]"]},
}


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("case", sweep(list(SENTENCEPIECE_STYLE_CONFIGS), list(SENTENCEPIECE_STYLE_CONFIGS)[:3]))
def test_sentencepiece_style_classes_as_transformers(tmp_path, case):
    _compare(_build(tmp_path / "f", "mistral-v1", SENTENCEPIECE_STYLE_CONFIGS[case], None))


def test_llama_class_rebuilds_an_older_style_file(tmp_path):
    """Hub files of Llama 2 / Mistral v0.1 prepend "▁" in the normalizer; LlamaTokenizer replaces that
    pipeline with its Metaspace one."""
    data = json.loads(_mistral_v1_tokenizer_json())
    data["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                              {"type": "Replace", "pattern": {"String": " "},
                                                               "content": "▁"}]}
    data["pre_tokenizer"] = None
    data["model"]["unk_token"] = "<unk>"
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "LlamaTokenizer", "legacy": True}),
                                                  encoding="utf-8")
    _compare(folder)


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("source", ["qwen2.5", "deepseek-v4"])
def test_cohere_class_over_byte_level_files(tmp_path, source):
    _compare(_build(tmp_path / "f", source, SENTENCEPIECE_STYLE_CONFIGS["Cohere"], None))


@pytest.mark.parametrize("case", list(BERT_CONFIGS))
def test_bert_class_configs_as_transformers(tmp_path, case):
    _compare(_build(tmp_path / "f", "bert-minilm", BERT_CONFIGS[case], None))


@pytest.mark.slow
def test_bare_tokenizer_json_stays_as_tokenizers_reads_it(tmp_path):
    folder = _build(tmp_path / "f", "qwen2.5", *CONFIGS["new tokens in added_tokens_decoder"])
    bare = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    as_file = tokviz.load(folder / "tokenizer.json")
    as_folder = tokviz.load(folder)
    assert tokviz.load(as_folder.source.path).encode_ids("[INST]") == as_folder.encode_ids("[INST]")  # (reopened)
    text = "<s>[INST] hi [/INST]</s>"
    assert as_file.encode(text).ids == bare.encode(text, add_special_tokens=False).ids
    assert as_folder.encode(text).ids != as_file.encode(text).ids  # (the config's [INST] is a token)


@pytest.mark.slow
def test_export_writes_what_was_read(tmp_path):
    cases = [("qwen2.5", *CONFIGS[case]) for case in ("new tokens in added_tokens_decoder",
                                                      "plain vocab entries named special",
                                                      "GPT2 class rebuilds its pipeline")]
    cases.append(("bert-minilm", BERT_CONFIGS["other special names"], None))
    for i, (source, config, special_map) in enumerate(cases):
        case = f"{source}-{i}"
        folder = _build(tmp_path / case, source, config, special_map)
        ref = transformers.AutoTokenizer.from_pretrained(folder)
        out = tmp_path / f"{case}.json"
        tokviz.save(tokviz.load(folder), out, format="hf-json")
        back = tokenizers.Tokenizer.from_file(str(out))
        back.no_padding()  # (transformers pads and truncates only when asked)
        back.no_truncation()
        for text in TEXTS:
            assert back.encode(text, add_special_tokens=False).ids == ref.encode(text, add_special_tokens=False), (case, text)


def test_chat_template_ids_with_template_tokens_declared(tmp_path):
    """A Mistral-style template over a folder whose config declares [INST] / [/INST] (the issue's case)."""
    template = (DATA / "chat_templates" / "mistralai-Mistral-Nemo-Instruct-2407.jinja").read_text(encoding="utf-8")
    config = {"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
              "added_tokens_decoder": {"151665": _entry("[INST]"), "151666": _entry("[/INST]"),
                                       "151667": _entry("[AVAILABLE_TOOLS]"), "151668": _entry("[/AVAILABLE_TOOLS]"),
                                       "151669": _entry("[TOOL_CALLS]"), "151670": _entry("[TOOL_RESULTS]"),
                                       "151671": _entry("[/TOOL_RESULTS]")},
              "chat_template": template}
    folder = _build(tmp_path / "f", "qwen2.5", config, None)
    ref = transformers.AutoTokenizer.from_pretrained(folder)
    tok = tokviz.load(folder)
    conversations = [
        [{"role": "user", "content": "hi"}],
        [{"role": "user", "content": "Hello 世界 😀"}, {"role": "assistant", "content": "Hi there"},
         {"role": "user", "content": "And now? [INST] typed"}],
    ]
    for messages in conversations:
        expected = ref.apply_chat_template(messages, tokenize=True, return_dict=False)
        result = chat.count(tok, tok.chat_templates.pick(), chat.Conversation(messages),
                            variables=tok.chat_templates.variables)
        assert result.ids == list(expected)


RANDOM_POOL = ["<s>", "</s>", "<unk>", "hello", " world", "[INST]", "[/INST]", "<tool>", "Tool", "<|im_end|>",
               "<|endoftext|>", "[CLS]", "[SEP]", "[MASK]", "ab", "x y", "<｜end▁of▁sentence｜>", "Ａ", "é", "日本", "<|x|>"]
RANDOM_CLASSES = {
    "qwen2.5": [None, "PreTrainedTokenizerFast", "LlamaTokenizerFast", "Qwen2Tokenizer", "Qwen3_5Tokenizer",
                "GPT2Tokenizer", "CohereTokenizerFast", "GemmaTokenizer", "NoSuchTokenizer"],
    "deepseek-v4": [None, "LlamaTokenizerFast", "Qwen2Tokenizer", "GPT2Tokenizer"],
    "bert-minilm": [None, "BertTokenizer", "BertTokenizerFast"],
    "mistral-v1": [None, "LlamaTokenizer", "GemmaTokenizer", "PreTrainedTokenizerFast"],
}


def _random_flags(rng, keys=("lstrip", "rstrip", "single_word", "normalized", "special")) -> dict:
    return {k: rng.random() < (0.7 if k == "special" else 0.3) for k in keys if rng.random() < 0.85}


def _random_token(rng):
    content = rng.choice(RANDOM_POOL)
    return {"__type": "AddedToken", "content": content, **_random_flags(rng)} if rng.random() < 0.4 else content


def _random_folder(rng, folder: Path) -> tuple[Path, str]:
    source = rng.choice(list(RANDOM_CLASSES))
    config = {}
    if (cls := rng.choice(RANDOM_CLASSES[source])) is not None:
        config["tokenizer_class"] = cls
    if rng.random() < 0.6:
        config["added_tokens_decoder"] = {str(rng.randint(0, 200000)): {"content": rng.choice(RANDOM_POOL),
                                                                        **_random_flags(rng)}
                                          for _ in range(rng.randint(1, 5))}
    for attr in ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"):
        if source in ("bert-minilm", "mistral-v1") and attr in ("unk_token", "cls_token", "sep_token"):
            continue  # (a WordPiece / Gemma unknown token outside the vocabulary is refused)
        r = rng.random()
        config.update({attr: _random_token(rng)} if r < 0.3 else {attr: None} if r < 0.4 else {})
    if rng.random() < 0.3:
        config["image_token"] = _random_token(rng)
    if rng.random() < 0.4:
        config["additional_special_tokens"] = [_random_token(rng) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.2:
        config["extra_special_tokens"] = rng.choice([[rng.choice(RANDOM_POOL)], {"video_token": rng.choice(RANDOM_POOL)}])
    for key, p in (("add_prefix_space", 0.25), ("legacy", 0.2), ("clean_up_tokenization_spaces", 0.15)):
        if rng.random() < p:
            config[key] = rng.random() < 0.5
    special_map = None
    if rng.random() < 0.35:
        special_map = {attr: rng.choice([rng.choice(RANDOM_POOL), {"content": rng.choice(RANDOM_POOL), **_random_flags(
            rng, ("lstrip", "rstrip", "normalized"))}]) for attr in ("bos_token", "eos_token", "pad_token")
            if rng.random() < 0.5}
        if rng.random() < 0.5:
            special_map["additional_special_tokens"] = [rng.choice(RANDOM_POOL) for _ in range(2)]
    return _build(folder, source, config, special_map), source


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("seed", sweep(range(24), range(2)))  # (24 seeds with -m slow)
def test_random_configs_as_transformers(tmp_path, seed):
    """Configs drawn at random (flags, precedence, classes, special_tokens_map) over real files; where
    transformers refuses the folder, tokviz refuses it too."""
    rng = random.Random(seed)
    folder, source = _random_folder(rng, tmp_path / "f")
    try:
        transformers.AutoTokenizer.from_pretrained(folder)
    except Exception:  # noqa: BLE001 (transformers refuses this folder)
        with pytest.raises(TokvizError):
            tokviz.load(folder)
        return
    _compare(folder)


MODEL_TYPES = [  # (source, config.json's model_type, tokenizer_config.json's tokenizer_class)
    ("qwen2.5", "qwen2", "LlamaTokenizer"), ("qwen2.5", "granite", "GPT2Tokenizer"),
    ("qwen2.5", "gemma2", "PreTrainedTokenizerFast"), ("qwen2.5", "gemma2", None), ("qwen2.5", "phi3", "LlamaTokenizer"),
    ("qwen2.5", "cohere", "PreTrainedTokenizerFast"), ("qwen2.5", "qwen3", None), ("qwen2.5", "llama", "Qwen2Tokenizer"),
    ("qwen2.5", "mistral", "LlamaTokenizerFast"), ("qwen2.5", "no_such_model", "GPT2Tokenizer"),
    ("mistral-v1", "mistral", "LlamaTokenizer"), ("mistral-v1", "llama", "LlamaTokenizer"), ("mistral-v1", "gemma", None),
    ("bert-minilm", "bert", None), ("bert-minilm", "distilbert", "PreTrainedTokenizerFast"),
    ("qwen2.5", "qwen2", "only config.json"), ("bert-minilm", "bert", "only config.json"),
]


@pytest.mark.parametrize("source, model_type, cls", sweep(MODEL_TYPES, [t for t in MODEL_TYPES if t[0] != "qwen2.5"][:5]
                                                         + [("qwen2.5", "qwen2", "LlamaTokenizer")]))
def test_model_config_steers_the_class_as_in_transformers(tmp_path, source, model_type, cls):
    """A model folder's config.json: its model_type can make transformers pick another class than
    tokenizer_config.json names (or one where it names none)."""
    config = {"bos_token": "<s>", "additional_special_tokens": ["[INST]"], **({"tokenizer_class": cls} if cls else {})}
    folder = _build(tmp_path / "f", source, None if cls == "only config.json" else config, None)
    (folder / "config.json").write_text(json.dumps({"model_type": model_type}), encoding="utf-8")
    _compare(folder)


def test_class_choice_as_transformers(tmp_path):
    """The class transformers' AutoTokenizer picks for 150 drawn (config.json model_type,
    tokenizer_class) pairs over a small real tokenizer.json, against tokviz's choice."""
    from tokviz.formats.hf_folder_classes import AS_IS, REGISTERED, auto_class, short_name
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    raw = (REAL / "tortoise-tokenizer.json").read_bytes()
    rng = random.Random(40)
    model_types = sorted(REGISTERED) + ["llama", "deepseek_v3", "no_such_model", None]
    classes = [None, "PreTrainedTokenizerFast", "TokenizersBackend", "LlamaTokenizer", "LlamaTokenizerFast",
               "Qwen2Tokenizer", "GPT2Tokenizer", "GemmaTokenizer", "BertTokenizer", "CohereTokenizer", "T5Tokenizer",
               "Phi3Tokenizer", "ElectraTokenizerFast", "BloomTokenizerFast", "Qwen3Tokenizer", "NoSuchTokenizer"]
    compared = 0
    for i in range(150):
        model_type, cls = rng.choice(model_types), rng.choice(classes)
        model_cls = rng.choice([None, None, None, "GPT2Tokenizer", "Qwen2TokenizerFast"])
        folder = tmp_path / str(i)
        folder.mkdir()
        (folder / "tokenizer.json").write_bytes(raw)
        (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": cls} if cls else {}))
        if model_type or model_cls:
            model = {k: v for k, v in (("model_type", model_type), ("tokenizer_class", model_cls)) if v}
            (folder / "config.json").write_text(json.dumps(model))
        try:
            ref = type(transformers.AutoTokenizer.from_pretrained(folder))
        except Exception:  # noqa: BLE001 (the class fails on this vocabulary: nothing to compare)
            continue
        expected = AS_IS if ref is TokenizersBackend else short_name(ref.__name__)
        assert auto_class(cls, model_type, model_cls, lambda: False, lambda: False) == expected, (model_type, cls,
                                                                                              model_cls)
        compared += 1
    assert compared > 100


TEMPLATES = sorted((DATA / "chat_templates").glob("*.jinja"))
_CONTROL = r"<\|[^|<>\s]+\|>|\[/?[A-Z_]{3,}\]|<｜[^｜]+｜>|</?(?:think|tool_call|tool_response|tools)>"
CHATS = [
    [{"role": "user", "content": "hi"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello 世界 😀  two  spaces"},
     {"role": "assistant", "content": "Hi there!"}, {"role": "user", "content": "And now? [INST] <|im_end|> typed"}],
]


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("source", ["qwen2.5", pytest.param("deepseek-v4", marks=pytest.mark.slow)])
@pytest.mark.parametrize("path", sweep(TEMPLATES, TEMPLATES[:2]), ids=[p.stem for p in TEMPLATES])
def test_chat_templates_with_declared_control_tokens(tmp_path, source, path):
    """Each shipped chat template over a folder whose config declares the template's control tokens
    (half in added_tokens_decoder, half as additional_special_tokens): the ids of the rendered
    conversation are transformers' apply_chat_template(tokenize=True)."""
    import re

    template = path.read_text(encoding="utf-8")
    control = sorted(set(re.findall(_CONTROL, template)))
    config = {"tokenizer_class": "LlamaTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
              "added_tokens_decoder": {str(900000 + i): _entry(t) for i, t in enumerate(control[::2])},
              "additional_special_tokens": control[1::2], "chat_template": template}
    folder = _build(tmp_path / "f", source, config, None)
    ref = transformers.AutoTokenizer.from_pretrained(folder)
    tok = tokviz.load(folder)
    compared = 0
    for messages in CHATS:
        for prompt in (False, True):
            try:
                expected = ref.apply_chat_template(messages, tokenize=True, return_dict=False,
                                                   add_generation_prompt=prompt)
            except Exception:  # noqa: BLE001 (the template refuses this conversation: tests/test_chat.py's part)
                continue
            result = chat.count(tok, tok.chat_templates.pick(), chat.Conversation(messages),
                                add_generation_prompt=prompt, variables=tok.chat_templates.variables)
            assert result.ids == list(expected), (messages, prompt)
            compared += 1
    assert compared


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("source, config, special_map", [
    ("mistral-v1", {"tokenizer_class": "LlamaTokenizer", "legacy": False}, None),  # (the class's <s> and </s>)
    ("qwen2.5", None, {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<|im_end|>"}),
    ("qwen2.5", {"tokenizer_class": "Qwen2Tokenizer", "bos_token": None}, None),
])
def test_chat_variables_are_transformers_special_tokens(tmp_path, source, config, special_map):
    """bos_token / eos_token in a template are the names transformers ends with: the class's
    defaults, special_tokens_map.json's values, the config's."""
    folder = _build(tmp_path / "f", source, config, special_map)
    ref = transformers.AutoTokenizer.from_pretrained(folder)
    tok = tokviz.load(folder)
    for path in TEMPLATES:
        template = path.read_text(encoding="utf-8")
        if "bos_token" not in template and "eos_token" not in template:
            continue
        for messages in CHATS:
            expected = ref.apply_chat_template(messages, chat_template=template, tokenize=True, return_dict=False)
            result = chat.count(tok, template, chat.Conversation(messages), variables=tok.chat_templates.variables)
            assert result.ids == list(expected), (path.name, messages)


@pytest.mark.first_cases(2)
@pytest.mark.parametrize("config, names", [
    ({"tokenizer_class": "BertTokenizer"}, "tokenizer_class"),
    ({"tokenizer_class": "GemmaTokenizerFast", "unk_token": "<not in the vocabulary>"}, "unk_token"),
    ({"tokenizer_class": "T5Tokenizer"}, "tokenizer_class"),
    ({"auto_map": {"AutoTokenizer": ["tok.MyTokenizer", None]}}, "auto_map"),
    ({"fix_mistral_regex": True}, "fix_mistral_regex"),
    ({"bos_token": {"content": "<s>"}}, "bos_token"),
    ({"added_tokens_decoder": {"x": _entry("<s>")}}, "added_tokens_decoder"),
])
def test_refused_by_name(tmp_path, config, names):
    folder = _build(tmp_path / "f", "qwen2.5", config, None)
    with pytest.raises(TokvizError, match=names) as err:
        tokviz.load(folder)
    assert "tokenizer_config.json" in str(err.value)


def test_legacy_added_tokens_file_refused(tmp_path):
    folder = _build(tmp_path / "f", "qwen2.5", {"bos_token": "<s>"}, None)
    (folder / "added_tokens.json").write_text('{"[NEW]": 151665}', encoding="utf-8")
    with pytest.raises(TokvizError, match="added_tokens.json"):
        tokviz.load(folder)
