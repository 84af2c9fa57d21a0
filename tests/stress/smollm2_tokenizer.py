"""A Hugging Face tokenizer folder for the embedded SmolLM2 GGUF, built from the file's own vocabulary offline.

lm-eval's ``local-completions`` model counts context tokens with a Hugging Face tokenizer to find where the
continuation starts in the server's echo; transformers reads one from a GGUF file only with torch installed, so
this builds the same byte-level BPE with ``tokenizers`` from the file's tokens and merges, with llama.cpp's
``smollm`` pre-tokenizer (digits one by one, then GPT-2's split). It gives llama.cpp's token ids on every text tried.

One deliberate difference, ``skip``: llama-cpp-python's server leaves the beginning-of-sequence token out of its
echo (the prompts start with SmolLM2's ``<|im_start|>`` so that the echoed log-probabilities are aligned), while
lm-eval counts it as a context token and would then skip the continuation's first token. The tokenizer drops that
text, so that it counts tokens as the server echoes them.
"""

from __future__ import annotations

import re
from pathlib import Path


def write_tokenizer(gguf_path: Path, folder: Path, skip: str = "") -> Path:
    """Write ``tokenizer.json`` and its config for ``gguf_path`` into ``folder``; return the folder.

    ``skip`` is text the tokenizer drops (counts as no token): the BOS text the server leaves out of its echo."""
    from gguf import GGUFReader
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    fields = GGUFReader(str(gguf_path)).fields
    tokens = fields["tokenizer.ggml.tokens"].contents()
    types = fields["tokenizer.ggml.token_type"].contents()
    merges = [tuple(merge.split(" ", 1)) for merge in fields["tokenizer.ggml.merges"].contents()]
    vocab = {token: index for index, token in enumerate(tokens)}
    bpe = models.BPE(vocab=vocab, merges=merges, unk_token=None, fuse_unk=False, byte_fallback=False)
    tokenizer = Tokenizer(bpe)
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    if skip:
        tokenizer.normalizer = normalizers.Replace(Regex(re.escape(skip)), "")
    special = [token for token, kind in zip(tokens, types, strict=True) if kind == 3 and token != skip]
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=tokens[int(fields["tokenizer.ggml.eos_token_id"].contents())],
        unk_token=tokens[int(fields["tokenizer.ggml.unknown_token_id"].contents())],
        additional_special_tokens=special[3:],
    )
    wrapped.save_pretrained(str(folder))
    return folder
