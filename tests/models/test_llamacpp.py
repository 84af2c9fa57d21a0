"""The llama.cpp backend on the embedded SmolLM2: exact log-probabilities, prefix reuse, generation, errors."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pfungst.data import Benchmark, Item
from pfungst.errors import BackendUnavailable, ConfigError, ContextOverflow, MissingDependency, RequestFailed
from pfungst.models.embedded import embedded_model_path
from pfungst.models.llamacpp import LlamaCppModel, file_fingerprint
from pfungst.models.requests import GenerateRequest, LoglikelihoodRequest, NextTokenRequest
from pfungst.stress import score

CONTEXT = "Question: Which of these is a source of light?\nA. a rock\nB. the sun\nC. a spoon\nD. sand\nAnswer:"
OPTIONS = (" a rock", " the sun", " a spoon", " sand")


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaCppModel]:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    loaded = LlamaCppModel(embedded_model_path(), n_ctx=512, n_threads=1)
    yield loaded
    loaded.close()


@pytest.fixture(scope="module")
def converted_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh folder for converted weights, as ``$PFUNGST_MODELS``, for this module's tests."""
    folder = tmp_path_factory.mktemp("converted")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PFUNGST_MODELS", str(folder))
        yield folder


@pytest.fixture(scope="module")
def f16_model(converted_folder: Path) -> Iterator[LlamaCppModel]:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    loaded = LlamaCppModel(embedded_model_path(), n_ctx=512, n_threads=1, weights="f16")
    yield loaded
    loaded.close()


def _slow_loglikelihood(path: Path, context: str, continuation: str) -> tuple[float, int]:
    """Evaluate context + continuation from scratch in a fresh llama.cpp and sum the log-softmax by hand."""
    import llama_cpp

    llama = llama_cpp.Llama(model_path=str(path), n_ctx=512, logits_all=True, verbose=False)
    whole = llama.tokenize((context + continuation).encode(), add_bos=True, special=True)
    start = len(llama.tokenize(context.encode(), add_bos=True, special=True))
    llama.eval(whole)
    total = 0.0
    for position in range(start, len(whole)):
        logits = np.asarray(llama.scores[position - 1], dtype=np.float64)
        total += logits[whole[position]] - np.log(np.exp(logits - logits.max()).sum()) - logits.max()
    llama.close()
    return total, len(whole) - start


# -- errors and fingerprint (no llama.cpp needed) --------------------------------------------------------------------


def test_a_missing_model_file_is_unavailable_and_named(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match=r"Cannot open the model file .*nowhere\.gguf"):
        LlamaCppModel(tmp_path / "nowhere.gguf")


def test_a_file_that_is_not_gguf_is_unavailable_and_named(tmp_path: Path) -> None:
    path = tmp_path / "weights.bin"
    path.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(BackendUnavailable, match=r"weights\.bin is not a GGUF model file"):
        LlamaCppModel(path)


def test_without_llama_cpp_the_install_line_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
    with pytest.raises(MissingDependency, match=r"pip install 'pfungst\[llama\]' \(llama-cpp-python compiles"):
        LlamaCppModel(embedded_model_path())


def test_fingerprint_holds_name_size_and_sha256_never_the_path_and_follows_content(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    old, new = b"GGUF" + b"\0" * 100, b"GGUF" + b"\1" * 101
    path.write_bytes(old)
    first = file_fingerprint(path)
    path.write_bytes(new)

    second = file_fingerprint(tmp_path / "." / "m.gguf")

    assert first == f"llamacpp:m.gguf:104:{hashlib.sha256(old).hexdigest()}"
    assert second == f"llamacpp:m.gguf:105:{hashlib.sha256(new).hexdigest()}"
    assert str(tmp_path) not in first  # privacy: the name, never the folder


def test_a_trie_setting_other_than_the_weight_types_default_is_named_in_the_fingerprint(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 100)
    named = {
        (weights, trie): file_fingerprint(path, weights, trie).split(":")[1]
        for weights in ("stored", "f16")
        for trie in (None, True, False)
    }

    assert named == {
        ("stored", None): "m.gguf",
        ("stored", False): "m.gguf",
        ("stored", True): "m.gguf+trie",
        ("f16", None): "m.gguf@f16",
        ("f16", True): "m.gguf@f16",
        ("f16", False): "m.gguf@f16+no-trie",
    }


def test_unknown_weights_are_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"Unknown weights 'q4' for a llama.cpp model. Available: stored, f16, f32"):
        LlamaCppModel(embedded_model_path(), weights="q4")


def test_an_unwritable_folder_for_converted_weights_is_named_with_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PFUNGST_MODELS", str(blocker / "models"))
    with pytest.raises(BackendUnavailable, match=r"Cannot write the f16 copy of .*PFUNGST_MODELS.*weights='stored'"):
        LlamaCppModel(embedded_model_path(), n_threads=1, weights="f16")


# -- converted weights ----------------------------------------------------------------------------------------------


def test_f16_weights_are_converted_once_named_in_the_fingerprint_and_pick_the_same_options(
    model: LlamaCppModel, f16_model: LlamaCppModel, converted_folder: Path
) -> None:
    (copy,) = converted_folder.glob("*.f16.gguf")
    written = copy.stat().st_mtime_ns
    again = LlamaCppModel(embedded_model_path(), n_ctx=512, n_threads=1, weights="f16")
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]

    stored = [result.logprob for result in model.loglikelihood(requests)]
    converted = [result.logprob for result in f16_model.loglikelihood(requests)]

    assert copy.stat().st_mtime_ns == written  # the second model reads the copy the first one wrote
    assert again.fingerprint == f16_model.fingerprint == model.fingerprint.replace(".gguf:", ".gguf@f16:", 1)
    assert again.loglikelihood(requests) == f16_model.loglikelihood(requests)
    assert int(np.argmax(converted)) == int(np.argmax(stored))
    assert converted != stored and np.allclose(converted, stored, atol=1.5)  # other arithmetic, the same model
    again.close()


def test_f16_results_do_not_depend_on_batch_order_and_differ_from_one_by_one_by_rounding_only(
    f16_model: LlamaCppModel,
) -> None:
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]
    requests += [LoglikelihoodRequest("Question: 2 + 2 =", " 4"), LoglikelihoodRequest(CONTEXT + " the", " sun")]
    forward = f16_model.loglikelihood(requests)

    backward = f16_model.loglikelihood(requests[::-1])[::-1]
    one_by_one = [f16_model.loglikelihood([request])[0] for request in requests]

    assert backward == forward  # the same requests are decoded in the same chunks
    # decoded beside other sequences or alone: float products summed in another order (quantized weights are summed
    # in integers, exactly); the differences stay far below those between the weight types
    assert [r.logprob for r in one_by_one] == pytest.approx([r.logprob for r in forward], abs=2e-2)
    (whole,) = f16_model.loglikelihood([LoglikelihoodRequest(CONTEXT, " the sun")])
    assert whole.logprob == pytest.approx(_slow_loglikelihood(f16_model.weights_path, CONTEXT, " the sun")[0], abs=1e-9)


# -- log-likelihood -------------------------------------------------------------------------------------------------


@pytest.mark.slow  # evaluates every prefix one at a time
def test_loglikelihood_equals_the_per_token_log_softmax_sum_computed_the_slow_way(model: LlamaCppModel) -> None:
    expected, n_tokens = _slow_loglikelihood(model.path, CONTEXT, " the sun")

    (result,) = model.loglikelihood([LoglikelihoodRequest(CONTEXT, " the sun")])

    assert result.logprob == pytest.approx(expected, abs=1e-9)
    assert (result.n_tokens, result.n_bytes) == (n_tokens, 8)
    assert result.logprob < 0


def test_continuation_tokens_are_those_of_the_whole_text_after_the_context(model: LlamaCppModel) -> None:
    context, continuation = "The capital of France is", " Paris, of course."
    whole, alone = model.tokenize(context + continuation), model.tokenize(context)

    (result,) = model.loglikelihood([LoglikelihoodRequest(context, continuation)])

    assert whole[: len(alone)] == alone
    assert result.n_tokens == len(whole) - len(alone)


def test_trailing_space_of_the_context_moves_to_the_continuation_as_in_lm_eval(model: LlamaCppModel) -> None:
    moved, plain = model.loglikelihood([LoglikelihoodRequest("Answer: ", "B"), LoglikelihoodRequest("Answer:", " B")])
    assert moved.logprob == pytest.approx(plain.logprob, abs=1e-6)


def test_an_empty_context_is_conditioned_on_a_start_token(model: LlamaCppModel) -> None:
    (result,) = model.loglikelihood([LoglikelihoodRequest("", "Hello world")])
    assert result.n_tokens == len(model.tokenize("Hello world")) and result.logprob < 0


def test_an_empty_continuation_has_log_probability_zero(model: LlamaCppModel) -> None:
    (result,) = model.loglikelihood([LoglikelihoodRequest(CONTEXT, "")])
    assert (result.logprob, result.n_tokens, result.n_bytes) == (0.0, 0, 0)


def test_options_sharing_a_context_evaluate_it_once(model: LlamaCppModel) -> None:
    model.loglikelihood([LoglikelihoodRequest("Unrelated text to move the cache away.", " x")])
    # every token of each option but its last is fed (nothing is predicted after the last one)
    fed = [tuple(model.tokenize(CONTEXT + option))[:-1] for option in OPTIONS]
    minimum = len({sequence[:end] for sequence in fed for end in range(1, len(sequence) + 1)})
    before = model.stats.tokens_evaluated

    model.loglikelihood([LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS])

    # each distinct prefix once, plus at most one re-evaluated token per option (no lone-token decode)
    assert minimum <= model.stats.tokens_evaluated - before <= minimum + len(OPTIONS)
    assert minimum == len(model.tokenize(CONTEXT)) + 2  # " a rock" and " a spoon" share " a"


def test_float_weights_decode_each_contexts_continuations_in_one_call(f16_model: LlamaCppModel) -> None:
    contexts = [CONTEXT, "Question: 2 + 2 =", "Which animal barks?"]
    requests = [LoglikelihoodRequest(context, option) for context in contexts for option in OPTIONS]
    f16_model.loglikelihood([LoglikelihoodRequest("Unrelated text to move the cache away.", " x")])
    calls = f16_model.stats.calls

    together = f16_model.loglikelihood(requests)

    assert f16_model.stats.calls - calls == len(contexts)
    by_item = [f16_model.loglikelihood(requests[first : first + 4]) for first in range(0, len(requests), 4)]
    assert together == [result for results in by_item for result in results]  # other items change nothing


def test_stored_weights_in_one_call_per_context_on_request_named_in_the_fingerprint(model: LlamaCppModel) -> None:
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]
    trie = LlamaCppModel(model.path, n_ctx=512, n_threads=1, prefix_trie=True)

    shared = trie.loglikelihood(requests)

    assert trie.stats.calls == 1 and "prefix_trie=True" in repr(trie)
    assert trie.fingerprint == model.fingerprint.replace(".gguf:", ".gguf+trie:", 1)
    exact = model.loglikelihood(requests)
    assert [r.logprob for r in shared] == pytest.approx([r.logprob for r in exact], abs=1.0)  # llama.cpp's rounding
    trie.close()


def test_a_trie_longer_than_the_batch_is_fed_in_several_calls_with_the_same_results(model: LlamaCppModel) -> None:
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]
    requests.append(LoglikelihoodRequest("Say it:", " the sun rises in the east and sets in the west, every day"))
    small = LlamaCppModel(model.path, n_ctx=512, n_batch=8, n_threads=1)

    in_pieces = small.loglikelihood(requests)

    assert small.stats.calls > len(model.tokenize(CONTEXT)) // 8
    assert in_pieces == model.loglikelihood(requests)
    small.close()


def test_results_are_bit_identical_whatever_the_batch_order_or_what_was_evaluated_before(model: LlamaCppModel) -> None:
    requests = [LoglikelihoodRequest(CONTEXT, option) for option in OPTIONS]
    requests += [LoglikelihoodRequest("Question: 2 + 2 =", " 4"), LoglikelihoodRequest(CONTEXT + " the", " sun")]
    forward = model.loglikelihood(requests)
    fresh = LlamaCppModel(model.path, n_ctx=512, n_threads=1)

    backward = fresh.loglikelihood(requests[::-1])[::-1]
    one_by_one = [fresh.loglikelihood([request])[0] for request in requests]

    assert backward == forward
    assert one_by_one == forward
    fresh.close()


def test_extending_the_evaluated_prefix_by_one_token_gives_the_whole_text_value(model: LlamaCppModel) -> None:
    # llama.cpp decodes a lone token with other kernels (different logits); the backend must not do that
    (whole,) = model.loglikelihood([LoglikelihoodRequest(CONTEXT, " the sun")])  # as part of a longer call
    fresh = LlamaCppModel(model.path, n_ctx=512, n_threads=1)
    fresh.next_token_logprobs([NextTokenRequest(CONTEXT, (" A",))])  # evaluates exactly the context
    before = fresh.stats.tokens_evaluated

    (extended,) = fresh.loglikelihood([LoglikelihoodRequest(CONTEXT, " the sun")])  # needs one more token: " the"

    assert fresh.stats.tokens_evaluated - before <= 3  # " the", and no call of a lone token: the context's last two
    assert extended == whole
    fresh.close()


def test_a_token_spanning_the_context_boundary_belongs_to_the_continuation(model: LlamaCppModel) -> None:
    context = "Answer: x"
    assert len(model.tokenize(context + "y")) == len(model.tokenize(context))  # " x" + "y" is one token " xy"

    (result,) = model.loglikelihood([LoglikelihoodRequest(context, "y")])

    assert result.n_tokens == 1 and result.logprob < 0


def test_a_sequence_longer_than_the_context_window_fails_with_the_numbers(model: LlamaCppModel) -> None:
    small = LlamaCppModel(model.path, n_ctx=32, n_threads=1)
    with pytest.raises(RequestFailed, match=r"tokens does not fit the context window of 32 tokens"):
        small.loglikelihood([LoglikelihoodRequest(CONTEXT * 3, " the sun")])
    small.close()


def test_a_question_longer_than_the_context_window_is_named_or_skipped(model: LlamaCppModel) -> None:
    """Issue 15: the overflow named no item and ended the run; now it names the item, or skips it and goes on."""
    items = (Item("short", "Sky?", ("blue", "red"), 0), Item("long", CONTEXT * 3, ("blue", "red"), 0))
    small = LlamaCppModel(model.path, n_ctx=32, n_threads=1)
    try:
        with pytest.raises(ContextOverflow, match=r"item 'long' .*does not fit the context window of 32 tokens"):
            score(Benchmark("window", items), small, cache=False)
        result = score(Benchmark("window", items), small, cache=False, on_error="skip")
    finally:
        small.close()
    assert [outcome.status for outcome in result.outcomes] == ["ok", "skipped"]
    assert result.n_skipped == 1


# -- next-token log-probabilities -------------------------------------------------------------------------------------


def test_next_token_logprobs_equal_the_loglikelihood_of_each_candidate(model: LlamaCppModel) -> None:
    candidates = (" A", " B", "B", " the sun")  # " the sun" spans several tokens
    (letters,) = model.next_token_logprobs([NextTokenRequest(CONTEXT, candidates)])

    cloze = model.loglikelihood([LoglikelihoodRequest(CONTEXT, candidate) for candidate in candidates])

    assert letters.logprobs == pytest.approx([r.logprob for r in cloze], abs=1e-6)
    assert cloze[-1].n_tokens > 1


def test_single_token_candidates_cost_one_pass_over_the_context(model: LlamaCppModel) -> None:
    model.loglikelihood([LoglikelihoodRequest("Something else entirely.", " x")])
    before = model.stats.tokens_evaluated

    (result,) = model.next_token_logprobs([NextTokenRequest(CONTEXT, (" A", " B", " C", " D"))])

    assert model.stats.tokens_evaluated - before == len(model.tokenize(CONTEXT))
    assert np.exp(result.logprobs).sum() <= 1.0


# -- generation -------------------------------------------------------------------------------------------------------


def test_greedy_generation_is_deterministic_and_is_the_greedy_continuation(model: LlamaCppModel) -> None:
    request = GenerateRequest("The capital of France is", max_tokens=6)
    first, second = model.generate([request, request])

    (scored,) = model.loglikelihood([LoglikelihoodRequest(request.prompt, first.text)])

    assert first == second and first.finish_reason == "length"
    assert scored.greedy and scored.n_tokens == 6


def test_generation_stops_at_a_stop_string_without_including_it(model: LlamaCppModel) -> None:
    (free,) = model.generate([GenerateRequest("Count: 1, 2, 3, 4,", max_tokens=12)])
    stop = free.text.strip()[:1]

    (stopped,) = model.generate([GenerateRequest("Count: 1, 2, 3, 4,", max_tokens=12, stop=(stop,))])

    assert stopped.finish_reason == "stop"
    assert stopped.text == free.text[: free.text.index(stop)]


def test_sampled_generation_is_reproducible_for_a_seed(model: LlamaCppModel) -> None:
    requests = [GenerateRequest("Once upon a time", max_tokens=16, temperature=1.0, seed=seed) for seed in (1, 1, 2)]
    first, again, other = model.generate(requests)
    assert first == again
    assert first != other
