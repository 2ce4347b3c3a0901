"""toolsearch: a pure-Python engine for Hermes-style progressive tool disclosure.

The engine never imports textual, rich or the ``tui`` package (a test enforces it).
"""

__version__ = "0.1.0"
