"""Stress a model: prompt formats, option arrangements and scoring rules that should not change its answers."""
