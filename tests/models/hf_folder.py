"""A plain transformers folder of the embedded SmolLM2, for the tests of the 'hf' backend.

``PFUNGST_HF_MODEL_DIR`` names a prepared folder; where it is unset or lacks ``config.json`` and torch, transformers
and gguf are installed, the folder is built once per test run from the embedded GGUF (about 20 s on an idle core):
dequantised to float32 by transformers, then saved with ``save_pretrained`` (the recipe of
/work/shared/NOTES-models.md). Under pytest-xdist the workers share it: the first to need it builds it under a file
lock in the run's temporary folder, the others wait and read it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

ENVIRONMENT_VARIABLE = "PFUNGST_HF_MODEL_DIR"


def smollm2_hf_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SmolLM2 transformers folder: the configured one, else one built once for the whole run.

    Skips with a reason where torch or transformers is missing.
    """
    pytest.importorskip("torch", reason="torch is not installed (the 'hf' extra)")
    pytest.importorskip("transformers", reason="transformers is not installed (the 'hf' extra)")
    configured = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if configured and (Path(configured) / "config.json").is_file():
        return Path(configured)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base  # xdist: pytest-N/popen-gwK
    folder = shared / "smollm2-hf"
    with open(shared / "smollm2-hf.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / "config.json").is_file():
            _convert(folder)
    return folder


def _convert(folder: Path) -> Path:
    pytest.importorskip("gguf", reason=f"gguf is not installed and {ENVIRONMENT_VARIABLE} names no model folder")
    import transformers

    from pfungst.errors import MissingDependency
    from pfungst.models.embedded import embedded_model_path

    try:
        gguf = embedded_model_path()
    except MissingDependency as exc:
        pytest.skip(f"no model folder in {ENVIRONMENT_VARIABLE} and no GGUF to build one from: {exc}")
    model = transformers.AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model.hf_quantizer = None  # otherwise save_pretrained refuses: "quantized with gguf and is not serializable"
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
