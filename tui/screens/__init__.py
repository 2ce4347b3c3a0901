"""Modal screens: the Call dialog and the save-path prompt."""
