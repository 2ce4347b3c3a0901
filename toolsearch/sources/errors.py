"""Errors raised while loading or saving tool sources."""

from __future__ import annotations


class SourceError(Exception):
    """A source could not be read, detected or saved.

    ``str(exc)`` is a one-line human message, safe to print: it never
    contains secrets (environment values, headers).
    """

    def __init__(self, message: str) -> None:
        one_line = " ".join(str(message).split())
        super().__init__(one_line)
        self.message = one_line

    def __str__(self) -> str:
        return self.message
