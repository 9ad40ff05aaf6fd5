"""Sequence Numbers (RULES.md §2)."""
