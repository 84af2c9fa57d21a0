"""Language models behind one batched protocol: llama.cpp (default, embedded SmolLM2), OpenAI-compatible servers."""
