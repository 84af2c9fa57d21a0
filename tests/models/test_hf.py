"""The transformers backend on SmolLM2: exact log-probabilities, prefix sharing, generation, errors, parity."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pfungst.errors import BackendUnavailable, ConfigError, MissingDependency, RequestFailed
from pfungst.models.hf import HFModel, folder_fingerprint
from pfungst.models.packing import Scoring, pack_row
from pfungst.models.registry import load_model
from pfungst.models.requests import GenerateRequest, LoglikelihoodRequest, NextTokenRequest
from tests.models.hf_folder import smollm2_hf_folder

CONTEXT = "Question: Which of these is a source of light?\nA. a rock\nB. the sun\nC. a spoon\nD. sand\nAnswer:"
OPTIONS = (" a rock", " the sun", " a spoon", " sand")
OTHERS = [("Question: 2 + 2 =", " 4"), ("Pick one.", " The moon, naïve"), (CONTEXT + " the", " sun")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return smollm2_hf_folder(tmp_path_factory)


@pytest.fixture(scope="module")
def model(folder: Path) -> Iterator[HFModel]:
    yield HFModel(folder, n_threads=1)  # one thread: steady timing on a busy 2-core machine


def _config_folder(tmp_path: Path) -> Path:
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    return tmp_path


def _slow_loglikelihood(model: HFModel, context: str, continuation: str) -> tuple[float, int]:
    """A plain forward pass over the whole text and a sum of log-softmax at the continuation's positions."""
    import torch

    whole, start = model.tokenize(context + continuation), len(model.tokenize(context))
    with torch.inference_mode():
        logits = model._model(input_ids=torch.tensor([whole])).logits[0].double()
    logprobs = torch.log_softmax(logits, dim=-1)
    return sum(float(logprobs[p - 1, whole[p]]) for p in range(start, len(whole))), len(whole) - start


# -- errors, fingerprint and registry (no torch needed) ---------------------------------------------------------------


def test_a_missing_folder_is_unavailable_and_named(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match=r"Cannot open the model folder .*nowhere: it is not a folder"):
        HFModel(tmp_path / "nowhere")


def test_a_folder_without_config_json_is_not_a_model_folder(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match=r"is not a transformers model folder \(it has no config\.json\)"):
        HFModel(tmp_path)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dtype": "int8"}, r"Unknown dtype 'int8'\. Available: float32, bfloat16, float16, auto"),
        ({"batch_size": 0}, r"batch_size must be a positive integer, not 0"),
    ],
)
def test_invalid_options_are_config_errors(tmp_path: Path, options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        HFModel(_config_folder(tmp_path), **options)


def test_without_torch_the_install_line_is_given_through_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(MissingDependency, match=r"The 'hf' backend needs: pip install 'pfungst\[hf\]'"):
        load_model(str(_config_folder(tmp_path)))


def test_fingerprint_follows_config_tokenizer_weights_and_dtype_but_not_other_files(tmp_path: Path) -> None:
    folder = _config_folder(tmp_path)
    weights = folder / "model.safetensors"
    weights.write_bytes(b"\0" * 10)
    first = folder_fingerprint(folder, "float32")
    (folder / "README.md").write_text("notes")
    unchanged = folder_fingerprint(folder / ".", "float32")
    weights.write_bytes(b"\1" * 10)
    os.utime(weights, ns=(1, 1))  # same size, rewritten: the modification time tells
    rewritten = folder_fingerprint(folder, "float32")
    (folder / "tokenizer.json").write_text("{}")
    with_tokenizer = folder_fingerprint(folder, "float32")

    assert first.startswith(f"hf:{folder.name}:float32:")
    assert str(folder.parent) not in first  # privacy: the name, never the path
    assert unchanged == first
    assert len({first, rewritten, with_tokenizer, folder_fingerprint(folder, "bfloat16")}) == 4


def test_packed_rows_share_every_common_prefix_once() -> None:
    scorings = [Scoring((1, 2, 3, 4), 3), Scoring((1, 2, 3, 5, 6), 3), Scoring((1, 2, 7), 2)]
    row = pack_row([0, 1, 2], scorings)
    assert row.tokens == [1, 2, 3, 5] and row.positions == [0, 1, 2, 3] and row.parents == [-1, 0, 1, 2]
    assert row.targets == {0: [(2, 4)], 1: [(2, 5), (3, 6)], 2: [(1, 7)]}


# -- log-likelihood -------------------------------------------------------------------------------------------------


def test_loglikelihood_equals_a_plain_forward_pass_summed_by_hand(model: HFModel) -> None:
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]
    requests += [LoglikelihoodRequest(context, continuation) for context, continuation in OTHERS]
    expected = [_slow_loglikelihood(model, r.context, r.continuation) for r in requests]

    results = model.loglikelihood(requests)

    assert [r.logprob for r in results] == pytest.approx([value for value, _ in expected], abs=1e-4)
    assert [r.n_tokens for r in results] == [n for _, n in expected]
    assert results[5].n_bytes == len(" The moon, naïve".encode())


def test_shared_prefix_batching_gives_the_one_by_one_numbers(model: HFModel) -> None:
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]
    requests += [LoglikelihoodRequest(context, continuation) for context, continuation in OTHERS]
    batch = model.loglikelihood(requests)

    alone = [model.loglikelihood([request])[0] for request in requests]
    backward = model.loglikelihood(requests[::-1])[::-1]

    assert [r.logprob for r in alone] == pytest.approx([r.logprob for r in batch], abs=1e-4)
    assert [r.logprob for r in backward] == pytest.approx([r.logprob for r in batch], abs=1e-4)
    assert [r.greedy for r in alone] == [r.greedy for r in batch]


def test_options_sharing_a_context_evaluate_it_once_in_one_call(model: HFModel) -> None:
    fed = [tuple(model.tokenize(CONTEXT + option))[:-1] for option in OPTIONS]
    minimum = len({sequence[:end] for sequence in fed for end in range(1, len(sequence) + 1)})
    before, calls = model.stats.tokens_evaluated, model.stats.calls

    model.loglikelihood([LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS])

    assert model.stats.tokens_evaluated - before == minimum == len(model.tokenize(CONTEXT)) + 2  # " a" shared
    assert model.stats.calls - calls == 1


def test_without_prefix_sharing_the_numbers_are_the_same_and_each_sequence_is_fed_whole(folder: Path) -> None:
    shared = HFModel(folder, batch_size=3)
    separate = HFModel(folder, batch_size=3)
    separate.prefix_sharing = False  # what a model that ignores custom attention masks falls back to
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]

    assert [r.logprob for r in separate.loglikelihood(requests)] == pytest.approx(
        [r.logprob for r in shared.loglikelihood(requests)], abs=1e-4
    )
    assert separate.stats.tokens_evaluated == sum(len(shared.tokenize(CONTEXT + option)) - 1 for option in OPTIONS)
    assert shared.prefix_sharing and separate.stats.calls == 2  # four rows, three per call


def test_trailing_space_of_the_context_moves_to_the_continuation(model: HFModel) -> None:
    moved, plain = model.loglikelihood([LoglikelihoodRequest("Answer: ", "B"), LoglikelihoodRequest("Answer:", " B")])
    assert moved.logprob == pytest.approx(plain.logprob, abs=1e-6)


def test_an_empty_context_is_conditioned_on_a_start_token_and_an_empty_continuation_is_certain(
    model: HFModel,
) -> None:
    empty_context, empty_continuation = model.loglikelihood(
        [LoglikelihoodRequest("", "Hello world"), LoglikelihoodRequest(CONTEXT, "")]
    )
    assert empty_context.n_tokens == len(model.tokenize("Hello world")) and empty_context.logprob < 0
    assert (empty_continuation.logprob, empty_continuation.n_tokens, empty_continuation.greedy) == (0.0, 0, True)


def test_a_sequence_longer_than_max_length_fails_with_the_numbers(folder: Path) -> None:
    short = HFModel(folder, max_length=32)
    with pytest.raises(RequestFailed, match=r"tokens does not fit the maximum length of 32 tokens"):
        short.loglikelihood([LoglikelihoodRequest(CONTEXT * 2, " the sun")])


# -- next-token log-probabilities -------------------------------------------------------------------------------------


def test_next_token_logprobs_equal_the_loglikelihood_of_each_candidate(model: HFModel) -> None:
    candidates = (" A", " B", "B", " the sun")
    (letters,) = model.next_token_logprobs([NextTokenRequest(CONTEXT, candidates)])

    cloze = model.loglikelihood([LoglikelihoodRequest(CONTEXT, candidate) for candidate in candidates])

    assert letters.logprobs == pytest.approx([r.logprob for r in cloze], abs=1e-4)
    assert cloze[-1].n_tokens > 1


def test_single_token_candidates_cost_one_pass_over_the_context(model: HFModel) -> None:
    before, calls = model.stats.tokens_evaluated, model.stats.calls

    (result,) = model.next_token_logprobs([NextTokenRequest(CONTEXT, (" A", " B", " C", " D"))])

    assert (model.stats.tokens_evaluated - before, model.stats.calls - calls) == (len(model.tokenize(CONTEXT)), 1)
    assert 0 < np.exp(result.logprobs).sum() <= 1.0


# -- generation -------------------------------------------------------------------------------------------------------


def test_greedy_generation_is_deterministic_and_is_the_greedy_continuation(model: HFModel) -> None:
    request = GenerateRequest("The capital of France is", max_tokens=6)
    first, second = model.generate([request, request])

    (scored,) = model.loglikelihood([LoglikelihoodRequest(request.prompt, first.text)])

    assert first == second and first.finish_reason == "length"
    assert scored.greedy and scored.n_tokens == 6


def test_generation_stops_at_a_stop_string_without_including_it(model: HFModel) -> None:
    (free,) = model.generate([GenerateRequest("Count: 1, 2, 3, 4,", max_tokens=12)])
    stop = free.text.strip()[:1]

    (stopped,) = model.generate([GenerateRequest("Count: 1, 2, 3, 4,", max_tokens=12, stop=(stop,))])

    assert stopped.finish_reason == "stop"
    assert stopped.text == free.text[: free.text.index(stop)]


def test_sampled_generation_is_reproducible_for_a_seed(model: HFModel) -> None:
    requests = [GenerateRequest("Once upon a time", max_tokens=12, temperature=1.0, seed=seed) for seed in (1, 1, 2)]
    first, again, other = model.generate(requests)
    assert first == again and first != other


# -- parity with llama.cpp on real items ------------------------------------------------------------------------------


def _arc_cloze(shared_data: Path, count: int) -> list[tuple[str, tuple[str, ...]]]:
    """The first ``count`` ARC-Easy items as (context ending in 'Answer:', options with a leading space)."""
    with (shared_data / "llm_foundry" / "arc_easy.jsonl").open(encoding="utf-8") as lines:
        records = [json.loads(line) for _, line in zip(range(count), lines, strict=False)]
    return [(f"{r['query']}\nAnswer:", tuple(f" {choice}" for choice in r["choices"])) for r in records]


def test_cloze_choices_agree_with_llamacpp_on_arc_easy(model: HFModel, shared_data: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pfungst.models.embedded import smollm2

    groups = _arc_cloze(shared_data, 20)
    requests = [LoglikelihoodRequest(context, option) for context, options in groups for option in options]
    reference = smollm2(n_ctx=512, n_threads=1)

    ours, theirs = iter(model.loglikelihood(requests)), iter(reference.loglikelihood(requests))
    agree = 0
    for _, options in groups:
        mine, other = [next(ours).logprob for _ in options], [next(theirs).logprob for _ in options]
        agree += int(np.argmax(mine) == np.argmax(other))

    reference.close()
    assert agree >= 17, f"the backends chose the same option on {agree} of 20 items"
