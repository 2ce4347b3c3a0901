"""Panes of the main screen."""
