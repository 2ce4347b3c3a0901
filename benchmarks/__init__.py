"""Benchmarks and their helper servers (a source checkout only: not shipped in the wheel).

``toolsearch bench speed|attach|tui|gateway`` load these modules when the checkout has this folder;
``bench recall`` and ``bench reach`` are operator features and live in the package.
"""
