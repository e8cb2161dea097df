"""Which transformers class `AutoTokenizer.from_pretrained(folder)` reads a folder with (transformers
5.24): its rules over tokenizer_config.json's `tokenizer_class`, config.json's `model_type` and
`tokenizer_class`, and the class it registers for each model type (the tables below are that
version's, grouped by class; a model type missing from them has no registered class).

Class names are short: "Qwen2" for Qwen2Tokenizer and Qwen2TokenizerFast; "TokenizersBackend" stands
for reading tokenizer.json as it is.
"""
from __future__ import annotations

from collections.abc import Callable

AS_IS = "TokenizersBackend"
_PLAIN = ("TokenizersBackend", "PythonBackend", "PreTrainedTokenizerFast")

_MODEL_TYPES = """
Albert: albert yoso
Bart: florence2
Bert: align bark bert blip bros chinese_clip convbert distilbert electra ernie flava git grounding-dino layoutlm
    megatron-bert mm-grounding-dino nomic_bert squeezebert tvp vilt visual_bert
BertGeneration: bert-generation
BigBird: big_bird
BioGpt: biogpt
Blenderbot: blenderbot
BlenderbotSmall: blenderbot-small
CLIP: aimv2 clip clipseg groupvit omdet-turbo oneformer owlv2 owlvit sam3 sam3_video xclip
CTRL: ctrl
Camembert: camembert
Canine: canine
Clvp: clvp
Cohere: aya_vision cohere cohere2
CpmAnt: cpmant
DPRQuestionEncoder: dpr
Deberta: deberta
DebertaV2: deberta-v2
Dia: dia
Esm: esm
Esmc: esmc esmfold2
FNet: fnet
FSMT: fsmt
Flaubert: flaubert
Funnel: funnel
GPT2: blip-2 codegen dbrx emu3 gpt2 gpt_neo gptj hyperclovax_vision_v2 instructblip instructblipvideo jais2 opt
    phi starcoder2
GPTNeoX: falcon_mamba gpt_neox mamba mamba2 mpt olmo olmoe rwkv xlstm
GPTNeoXJapanese: gpt_neox_japanese
GPTSw3: gpt-sw3
Gemma: diffusion_gemma gemma gemma2 gemma3 gemma3_text gemma3n gemma3n_text recurrent_gemma shieldgemma2 t5gemma
    zaya
LED: led
Lasr: lasr_ctc lasr_encoder
LayoutLMv2: layoutlmv2
LayoutLMv3: layoutlmv3
LayoutXLM: layoutxlm
Llama: idefics idefics2
Luke: luke
Lxmert: lxmert
M2M100: m2m_100
MBart: mbart
MPNet: mpnet
Marian: marian
MarkupLM: markuplm
Mgpstr: mgp-str
MistralCommonBackend: ministral ministral3 mistral mistral3 mistral_large4 mixtral pixtral voxtral
    voxtral_realtime
MobileBert: mobilebert
Mvp: mvp
Nllb: nllb-moe
Nougat: nougat pp_formulanet
OpenAIGPT: openai-gpt
PLBart: plbart
Parakeet: granite_speech5_ctc nemotron3_5_asr nemotron_asr_streaming omniasr_ctc parakeet_ctc parakeet_rnnt
    parakeet_tdt
Pegasus: pegasus
Perceiver: perceiver
ProphetNet: prophetnet
Qwen2: audioflamingo3 colqwen2 cosmos3_omni dots3_note fun_asr_nano hunyuan_vl internvl moss_transcribe_diarize
    ovis2 qianfan_ocr qwen2 qwen2_5_omni qwen2_5_vl qwen2_audio qwen2_moe qwen2_vl qwen3 qwen3_asr qwen3_moe
    qwen3_next qwen3_omni_moe qwen3_vl qwen3_vl_moe
Qwen2TokenizerFast: lighton_ocr vibevoice
Qwen3_5: qwen3_5 qwen3_5_moe qwen3_5_moe_text qwen3_5_text qwen4_exp
Rag: rag
Reformer: reformer
RemBert: rembert
RoCBert: roc_bert
RoFormer: roformer
Roberta: bart bridgetower clap data2vec-text ibert lilt longformer mra roberta roberta-prelayernorm
SeamlessM4T: seamless_m4t seamless_m4t_v2
Siglip: siglip
Siglip2: siglip2
Speech2Text: speech_to_text
SpeechT5: speecht5
Splinter: splinter
T5: mt5 musicgen musicgen_melody switch_transformers t5
Tapas: tapas
Tipsv2: tipsv2
TokenizersBackend: EvollaModel aria beam bigbird_pegasus canary cohere_asr ernie4_5 ernie4_5_moe flex_olmo fuyu
    glm glm4 glm4_moe glm4_moe_lite glm4v glm4v_moe glm_image glmasr got_ocr2 gpt_bigcode gradium_phonon_tts
    granite granitemoe granitemoehybrid granitemoeshared hyperclovax internlm3 iquestcoder jamba kimi_k25
    kimi_linear kosmos-2 llava llava_next mimo_v2_flash minicpm3 minicpm_ocr minicpmv4_6 minicpmv4_7 minimax_m2
    modernbert modernbert-decoder molmo2 nemo_speechlm nemotron nystromformer olmo2 olmo3 olmo_hybrid omniasr
    paddleocr_vl pegasus_x persimmon phi3 phimoe pix2struct pocket_tts smolvlm stablelm umt5 vipllava
    xlm-roberta-xl
Udop: udop
VideoPrism: videoprism
Vits: vits
Wav2Vec2CTC: data2vec-audio hubert unispeech unispeech-sat wav2vec2 wav2vec2-bert wav2vec2-conformer
Whisper: whisper
XGLM: xglm
XLM: xlm
XLMRoberta: gte jina_embeddings_v3 metaclip_2 trocr xlm-roberta xmod
XLNet: xlnet
"""

_OTHER_CLASSES = frozenset("""
Barthez Bartpho BertJapanese Bertweet ByT5 CodeLlama Cpm Herbert MBart50 MLuke MyT5 Phobert Wav2Vec2PhonemeCTC
""".split())

_WRONG_HUB_CLASS = frozenset("""
arctic camembertv2-base chatlm cohere_asr ernie4_5 ernie4_5_moe fuyu h2ovl_chat hyperclovax
hyperclovax_vision_v2 hyperclovax_vlm internlm2 internlm3 iquestcoder jamba llava llava_next minicpm3 minicpmv
minimax_m2 modernbert modernbert-decoder molmo molmo2 nemotron nvfp4 opencua openvla paddleocr_vl phi3 phi3_v
phimoe qwen2 qwen3_5 qwen3_5_moe qwen3_5_moe_text qwen4_exp siglip2 smolvlm step3_vl vipllava
""".split())

_EXPORTED_CLASSES = frozenset("""
Albert Auto Barthez Bartpho Basic Bert BertGeneration BertJapanese Bertweet BigBird BioGpt Blenderbot
BlenderbotSmall ByT5 CLIP CTRL Camembert Canine Character Clvp CodeGen CodeLlama Cohere ConvBert Cpm CpmAnt
DPRContextEncoder DPRQuestionEncoder DPRReader Deberta DebertaV2 Dia DistilBert Esm Esmc FNet FSMT
FastSpeech2Conformer Flaubert Funnel GPT2 GPTNeoX GPTNeoXJapanese GPTSw3 Gemma Herbert Lasr LayoutLMv2
LayoutLMv3 LayoutXLM Llama Luke M2M100 MBart MBart50 MLuke MPNet Marian MarkupLM Mecab Mgpstr
MistralCommonBackend MyT5 Nllb Nougat OpenAIGPT PLBart Parakeet Pegasus Perceiver Phobert Pop2Piano ProphetNet
PythonBackend Qwen2 Qwen3_5 Rag Reformer RemBert RoCBert RoFormer Roberta SeamlessM4T Siglip Siglip2 Speech2Text
SpeechT5 Splinter T5 Tapas Tipsv2 Udop VideoPrism Vits Wav2Vec2CTC Wav2Vec2PhonemeCTC Whisper Wordpiece XGLM XLM
XLMRoberta XLNet
""".split())

# names transformers resolves to another class
_ALIASES = {"Bart": "Roberta", "LED": "Roberta", "Longformer": "Roberta", "Mvp": "Roberta", "Electra": "Bert",
            "LayoutLM": "Bert", "Lxmert": "Bert", "MobileBert": "Bert", "SqueezeBert": "Bert", "Phi3": "Llama",
            "Bloom": AS_IS, "PreTrained": AS_IS}

REGISTERED = {model_type: cls for line in _MODEL_TYPES.replace("\n    ", " ").strip().splitlines()
              for cls, types in [line.split(": ", 1)] for model_type in types.split()}
KNOWN_CLASSES = frozenset(REGISTERED.values()) | _OTHER_CLASSES | _EXPORTED_CLASSES | frozenset(_ALIASES)


def short_name(name: str) -> str:
    """"Qwen2" for Qwen2Tokenizer / Qwen2TokenizerFast; backends keep their names."""
    if name in _PLAIN:
        return AS_IS if name != "PythonBackend" else name
    name = name.removesuffix("Fast")
    return name.removesuffix("Tokenizer") if name.endswith("Tokenizer") else name


def _known(name: str | None) -> str | None:
    """The class transformers finds by this name (with or without "Fast"; an alias gives the class
    it stands for), or None."""
    if name is None:
        return None
    short = short_name(name)
    short = _ALIASES.get(short, short)
    return short if short in KNOWN_CLASSES or short in (AS_IS, "PythonBackend") else None


def auto_class(tokenizer_class: str | None, model_type: str | None, model_tokenizer_class: str | None,
               byte_level: Callable[[], bool], mistral_files: Callable[[], bool]) -> str | None:
    """The short name of the class transformers picks (AS_IS: tokenizer.json as it is), or None
    when transformers finds no class to use (it then fails).

    `tokenizer_class`: tokenizer_config.json's; `model_type` / `model_tokenizer_class`: config.json's
    (None without one); `byte_level()`: whether tokenizer.json mentions "ByteLevel";
    `mistral_files()`: whether the folder holds mistral-common's files (tekken.json, tokenizer.model.v*)."""
    registered = REGISTERED.get(model_type) if model_type else None
    wrong_hub = model_type in _WRONG_HUB_CLASS
    hub = tokenizer_class or model_tokenizer_class
    if (hub is not None and short_name(hub) == "Llama" and registered != "MistralCommonBackend"
            and not wrong_hub and byte_level()):
        return AS_IS  # (a Llama class over a byte-level file)
    if hub is not None and model_type and registered is not None and registered != short_name(hub):
        if registered not in (AS_IS, "MistralCommonBackend"):
            chosen = _known(registered if wrong_hub else hub)
            if chosen is not None and chosen not in (AS_IS, "PythonBackend"):
                return chosen
        if registered == "MistralCommonBackend" and mistral_files():
            return registered
        return AS_IS
    if tokenizer_class is not None:
        chosen = _known(tokenizer_class)
        return AS_IS if chosen in (None, "PythonBackend") else chosen
    if model_tokenizer_class is not None:
        return _known(model_tokenizer_class)
    if registered == "MistralCommonBackend":
        return registered if mistral_files() else AS_IS
    return _ALIASES.get(registered, registered) if registered else AS_IS
