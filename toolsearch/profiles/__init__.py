"""The profile registry: one module per generation of tool search (SPEC §9, STYLE §12).

Each module here defines ``PROFILE``, a frozen :class:`~toolsearch.profile.Profile`; the
registry lists this package to find them, so adding a profile means adding one module.
The CLI, the app and the gateway look profiles up by name with :func:`get_profile`.
"""

from __future__ import annotations

from ..profile import Profile, ProfileLike, as_profile, get_profile, profile_names

PROFILE_NAMES: tuple[str, ...] = profile_names()
"""Every profile's name, the default (``seed``) first."""

__all__ = ["PROFILE_NAMES", "Profile", "ProfileLike", "as_profile", "get_profile"]
