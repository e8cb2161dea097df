"""llama.cpp's pre-tokenizer for each tokenizer.ggml.pre name of a BPE GGUF tokenizer, as
llama-cpp-python 0.3.36's llama.cpp (src/llama-vocab.cpp) sets it up.

`TYPES`: each pre-tokenizer type's regexes (applied one after another; the texts llama.cpp has,
which `core.llama.pre.split_steps` turns into tokviz pre-tokenizers) and whether the pieces are
GPT-2 byte-level encoded before the merges (else BPE runs on the UTF-8 text with <0xXX> byte
tokens).  `NAMES`: each name llama.cpp accepts, its type and the settings it changes from the BPE
defaults (ignore_merges, add_bos, clean_spaces, escape_whitespaces, no BOS id, the normalizer's
lowercase).  llama.cpp refuses any other name ("unknown pre-tokenizer type").
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.llama.pre import (DIGIT_GROUP_SPLITTERS, GPT2_SPLITTER, KIMI_K2_SPLITTER, LLAMA3_SPLITTERS,
                              NEWLINES_SPLITTER, QWEN2_SPLITTER, QWEN35_SPLITTER)

TYPES: dict[str, tuple[tuple[str, ...], bool]] = {
    **dict.fromkeys(('llama3', 'dbrx', 'smaug', 'chatglm4'), (
        (
            LLAMA3_SPLITTERS[1],
        ), True)),
    'jais2': (
        (
            ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
             '{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!'
             '\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|'
             '\\s{1}'),
        ), True),
    'deepseek_llm': (
        (
            '[\r\n]',
            ('\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-'
             'Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-'
             'ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+'),
            '\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+',
            '\\s+$',
            '[一-龥ࠀ-一가-\ud7ff]+',
            '\\p{N}+',
        ), True),
    **dict.fromkeys(('deepseek3_llm', 'hunyuan_dense', 'joyai_llm', 'hy_v4'), (
        (
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            ('[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]'
             '+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+'),
        ), True)),
    'spark2_5': (
        (
            '\\p{N}{1,3}',
            '[一-龥\u3040-ゟ゠-ヿ]+',
            ('[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]'
             '+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+'),
            '\\p{N}',
        ), True),
    'youtu': (
        (
            '[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥\u3040-ゟ゠-ヿ]+',
            ("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'["
             "sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p"
             "{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL"
             "][lL]|'[dD])?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"),
        ), True),
    'deepseek_coder': (
        (
            '[\r\n]',
            '\\s?\\p{L}+',
            '\\s?\\p{P}+',
            '[一-龥ࠀ-一가-\ud7ff]+',
            '\\p{N}',
        ), True),
    'falcon': (
        (
            '[\\p{P}\\$\\+<=>\\^~\\|`]+',
            GPT2_SPLITTER,
            '[0-9][0-9][0-9]',
        ), True),
    **dict.fromkeys(('starcoder', 'refact', 'command_r', 'smollm', 'codeshell', 'exaone', 'minerva', 'mellum2'), (
        (
            '\\p{N}',
            GPT2_SPLITTER,
        ), True)),
    **dict.fromkeys(('gpt2', 'mpt', 'olmo', 'jais', 'trillion', 'granite_docling'), (
        (
            GPT2_SPLITTER,
        ), True)),
    **dict.fromkeys(('stablelm2', 'qwen2', 'hunyuan', 'solar_open', 'grok_2'), (
        (
            QWEN2_SPLITTER,
        ), True)),
    'qwen35': (
        (
            QWEN35_SPLITTER,
        ), True),
    **dict.fromkeys(('poro', 'bloom', 'gpt3_finnish'), (
        (
            ' ?[^(\\s|.,!?…。，、।۔،)]+',
        ), True)),
    'viking': (
        (
            ' ?[^(\\s|.,!?…。，、।۔،)]+',
            '\\p{N}',
        ), True),
    'tekken': (
        (
            ('[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?'
             '=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n'
             ']+|\\s+(?!\\S)|\\s+'),
        ), True),
    'chameleon': (
        (
            '<sentinel:[0-9]+>',
            '(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z',
            '([\\t\\n]|    |  )',
            '\\p{N}',
            '[\\p{P}!-/:-@\\[-`{-~]',
            GPT2_SPLITTER,
        ), True),
    **dict.fromkeys(('gpt4o', 'minimax_m2'), (
        (
            ("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'"
             "[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^"
             "A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p"
             '{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'),
        ), True)),
    'granite_emb_multi': (
        (
            ("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]"
             "|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z])"
             ")+((?=[\\p{L}\\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{"
             'N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'),
        ), True),
    'tiny_aya': (
        (
            DIGIT_GROUP_SPLITTERS[1],
            ("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'["
             "sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p"
             "{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL"
             "][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"),
        ), True),
    'kimi_k2': (
        (
            KIMI_K2_SPLITTER,
        ), True),
    'superbpe': (
        (
            '\\p{N}+',
            '(?=(\\d{3})+(?!\\d))',
        ), True),
    'bailingmoe': (
        (
            ("'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}"
             '\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+'),
        ), True),
    'seed_coder': (
        (
            ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
             '{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'),
        ), True),
    'ufakzeka': (
        (
            ('[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|'
             '\\s+'),
        ), True),
    'afmoe': (
        (
            DIGIT_GROUP_SPLITTERS[0],
            '[一-鿿㐀-䶿豈-\ufaff\u3040-ゟ゠-ヿ･-ﾟ⼀-\u2fdfเ-\u0e7f\u0e80-\u0effក-\u17ffက-႟ꩠ-ꩿꧠ-\ua9ff가-\ud7afᄀ-ᇿ]+',
            ('[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M'
             '}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'),
        ), True),
    'laguna': (
        (
            NEWLINES_SPLITTER,
            QWEN2_SPLITTER,
        ), True),
    'exaone_moe': (
        (
            ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M"
             '}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+'),
        ), True),
    **dict.fromkeys(('gemma4', 'sarvam_moe'), (
        (
            NEWLINES_SPLITTER,
        ), False)),
    'minicpm5': (
        (
            '\\p{N}{1,3}',
            ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}"
             '+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+'),
        ), True),
    'whitespace': (
        (
            '\\S+',
        ), False),
    'default': (
        (
            '[\\p{P}\\$\\+<=>\\^~\\|]+',
            GPT2_SPLITTER,
            '\\p{N}+',
            '[0-9][0-9][0-9]',
        ), True),
}


@dataclass(frozen=True)
class PreSettings:
    """A tokenizer.ggml.pre name's type and what it changes from llama.cpp's BPE defaults."""

    type: str
    ignore_merges: bool = False
    add_bos: bool = False
    clean_spaces: bool = True
    escape_whitespaces: bool = False
    no_bos: bool = False  # (the default BOS id is none: only the file's own bos_token_id counts)
    lowercase: bool | None = None  # (the WordPiece-style lowercase default, where the name sets it)

    @property
    def regexes(self) -> tuple[str, ...]:
        return TYPES[self.type][0]

    @property
    def byte_encode(self) -> bool:
        return TYPES[self.type][1]


def _p(kind: str, **settings) -> PreSettings:
    return PreSettings(kind, **settings)


NAMES: dict[str, PreSettings] = {
    'default': _p('default'),
    'minicpm5': _p('minicpm5', ignore_merges=True),
    'llama3': _p('llama3', ignore_merges=True, add_bos=True),
    'llama-v3': _p('llama3', ignore_merges=True, add_bos=True),
    'llama-bpe': _p('llama3', ignore_merges=True, add_bos=True),
    'falcon3': _p('llama3', ignore_merges=True, add_bos=True),
    'falcon-h1': _p('llama3', ignore_merges=True, add_bos=True),
    'pixtral': _p('llama3', ignore_merges=True, add_bos=True),
    'midm-2.0': _p('llama3', ignore_merges=True, add_bos=True),
    'lfm2': _p('llama3', ignore_merges=True, add_bos=True),
    'jina-v5-nano': _p('llama3', ignore_merges=True, add_bos=True),
    'deepseek-llm': _p('deepseek_llm', clean_spaces=False),
    'deepseek-coder': _p('deepseek_coder', clean_spaces=False),
    'deepseek-v3': _p('deepseek3_llm', clean_spaces=False),
    'spark2_5': _p('spark2_5', clean_spaces=False),
    'youtu': _p('youtu', clean_spaces=False, ignore_merges=True),
    'falcon': _p('falcon'),
    'mpt': _p('mpt'),
    'starcoder': _p('starcoder'),
    'gpt-2': _p('gpt2'),
    'phi-2': _p('gpt2'),
    'jina-es': _p('gpt2'),
    'jina-de': _p('gpt2'),
    'gigachat': _p('gpt2'),
    'jina-v2-es': _p('gpt2'),
    'jina-v2-de': _p('gpt2'),
    'a.x-4.0': _p('gpt2'),
    'mellum': _p('gpt2'),
    'modern-bert': _p('gpt2'),
    'jais-2': _p('jais2'),
    'gemma4': _p('gemma4', escape_whitespaces=True),
    'granite-embed-multi-311m': _p('gemma4', escape_whitespaces=True),
    'sarvam-moe': _p('sarvam_moe', escape_whitespaces=True, clean_spaces=False),
    'jina-v1-en': _p('gpt2'),
    'jina-v2-code': _p('gpt2'),
    'roberta-bpe': _p('gpt2'),
    'whitespace': _p('whitespace', lowercase=False),
    'refact': _p('refact'),
    'command-r': _p('command_r', clean_spaces=False),
    'qwen2': _p('qwen2', clean_spaces=False),
    'deepseek-r1-qwen': _p('qwen2', clean_spaces=False),
    'kormo': _p('qwen2', clean_spaces=False),
    'f2llmv2': _p('qwen2', clean_spaces=False),
    'qwen35': _p('qwen35', clean_spaces=False),
    'stablelm2': _p('stablelm2'),
    'olmo': _p('olmo'),
    'dbrx': _p('dbrx'),
    'smaug-bpe': _p('smaug'),
    'poro-chat': _p('poro', clean_spaces=False),
    'chatglm-bpe': _p('chatglm4', no_bos=True),
    'glm4': _p('chatglm4', no_bos=True, ignore_merges=True),
    'glm5': _p('chatglm4', no_bos=True, ignore_merges=True),
    'viking': _p('viking', clean_spaces=False),
    'jais': _p('jais'),
    'tekken': _p('tekken', clean_spaces=False, ignore_merges=True, add_bos=True),
    'smollm': _p('smollm', clean_spaces=False),
    'codeshell': _p('codeshell'),
    'bloom': _p('bloom'),
    'gpt3-finnish': _p('gpt3_finnish'),
    'exaone': _p('exaone'),
    'exaone4': _p('gpt2'),
    'exaone-moe': _p('exaone_moe'),
    'chameleon': _p('chameleon', add_bos=True, clean_spaces=False),
    'minerva-7b': _p('minerva'),
    'megrez': _p('qwen2'),
    'gpt-4o': _p('gpt4o', clean_spaces=False),
    'llama4': _p('gpt4o', clean_spaces=False),
    'kanana2': _p('gpt4o', clean_spaces=False),
    'talkie': _p('gpt4o', clean_spaces=False),
    'granite-embed-multi-97m': _p('granite_emb_multi', clean_spaces=False, ignore_merges=True),
    'tiny_aya': _p('tiny_aya', clean_spaces=False),
    'cohere2moe': _p('tiny_aya', clean_spaces=False),
    'superbpe': _p('superbpe', clean_spaces=False),
    'trillion': _p('trillion', clean_spaces=False),
    'granite-docling': _p('granite_docling', clean_spaces=False),
    'bailingmoe': _p('bailingmoe', clean_spaces=False),
    'bailingmoe2': _p('bailingmoe', clean_spaces=False),
    'llada-moe': _p('bailingmoe', clean_spaces=False),
    'seed-coder': _p('seed_coder', clean_spaces=False),
    'hunyuan': _p('hunyuan', clean_spaces=False),
    'hunyuan-dense': _p('hunyuan_dense', clean_spaces=False),
    'hy_v4': _p('hy_v4', clean_spaces=False),
    'joyai-llm': _p('joyai_llm', clean_spaces=False),
    'kimi-k2': _p('kimi_k2', clean_spaces=False),
    'ufakzeka': _p('ufakzeka', clean_spaces=False),
    'grok-2': _p('grok_2', clean_spaces=False),
    'afmoe': _p('afmoe', clean_spaces=False),
    'laguna': _p('laguna', clean_spaces=False),
    'minimax-m2': _p('minimax_m2', clean_spaces=False),
    'solar-open': _p('solar_open', clean_spaces=False),
    'mellum2': _p('mellum2'),
}
