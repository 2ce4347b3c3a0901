"""The toolsearch Textual app (imports the engine; the engine never imports this)."""
