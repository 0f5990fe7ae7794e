"""Presentation only: tables and matplotlib figures (matplotlib is imported lazily)."""
