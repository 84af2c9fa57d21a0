"""A Hugging Face tokenizer folder for the embedded SmolLM2 GGUF, built from the file's own vocabulary offline.

lm-eval's ``local-completions`` model counts context tokens with a Hugging Face tokenizer to find where the
continuation starts in the server's echo; transformers reads one from a GGUF file only with torch installed, so
this builds the same byte-level BPE with ``tokenizers`` from the file's tokens and merges, with llama.cpp's
``smollm`` pre-tokenizer (digits one by one, then GPT-2's split). It gives llama.cpp's token ids on every text tried.

One deliberate difference, ``counted_as_one``: llama-cpp-python's server leaves the first (beginning-of-sequence)
token out of its echo, and echoes misaligned log-probabilities unless the prompt starts with SmolLM2's
``<|im_start|>``; lm-eval counts every context token and so would skip the continuation's first token. Prompts
therefore start with ``<|im_start|>`` twice, which this tokenizer counts as one token (it decodes back to both):
lm-eval's count then matches the echo.
"""

from __future__ import annotations

from pathlib import Path


def write_tokenizer(gguf_path: Path, folder: Path, counted_as_one: str = "") -> Path:
    """Write ``tokenizer.json`` and its config for ``gguf_path`` into ``folder``; return the folder.

    ``counted_as_one``: a text of two tokens that this tokenizer counts as one (see the module docstring)."""
    from gguf import GGUFReader
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
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
    special = [token for token, kind in zip(tokens, types, strict=True) if kind == 3]
    if counted_as_one:
        special.append(counted_as_one)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=tokens[int(fields["tokenizer.ggml.eos_token_id"].contents())],
        unk_token=tokens[int(fields["tokenizer.ggml.unknown_token_id"].contents())],
        additional_special_tokens=special[3:],
    )
    wrapped.save_pretrained(str(folder))
    return folder
