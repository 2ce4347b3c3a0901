"""The app's save actions: Ctrl+S, Tuning's Save button and the save dialogs.

A mixin of :class:`tui.app.ToolSearchApp`, beside :mod:`tui.actions`. Only the
``tools.tool_search`` keys the operator set are written, after a diff he says yes to: a diff
against the file as it is at Ctrl+S (not as loaded), and a file changed while it is shown is
not saved.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from . import save_diff, services
from .messages import SaveRequested
from .screens.confirm_save import ConfirmSaveScreen
from .screens.save import SavePathScreen

if TYPE_CHECKING:
    from .app import ToolSearchApp

    _Base = ToolSearchApp
else:
    _Base = object


class SaveActions(_Base):
    """Save actions of the app (mixed into ToolSearchApp)."""

    _save_on_its_way: bool = False
    """Ctrl+S was pressed and its dialog is not up yet (SaveRequested is still queued)."""

    def action_save(self) -> None:
        self._close_open_list()  # the operator asked to save: close the list, then save
        self._save_on_its_way = True  # the keys typed after it meet its dialog (DIALOG_KEYS)
        self.post_message(SaveRequested())

    def save_requested(self, path: str | None) -> None:
        """Save to *path*, the loaded Hermes config, or a path the operator picks."""
        self._save_on_its_way = False
        if self.dialog_up():
            return  # Ctrl+S again (or held down) while its dialog is open: that one answers;
            # another dialog opened meanwhile (the Tuning pane's Save button, then Ctrl+T)
        target = path or self.save_target
        if target:
            self._save(Path(target))
            return

        def chosen(path: str | None) -> None:
            if path:
                self._save(Path(path).expanduser())

        self.push_screen(SavePathScreen(str(Path.cwd() / "config.yaml"),
                                        refusal=services.save_refusal), chosen)

    def _save(self, path: Path) -> None:
        """Show what would change (only the keys the operator set), then save on yes."""
        if self.session is None:
            return
        refusal = services.save_refusal(path)
        if refusal:
            self.notify(refusal, title="Not saved", severity="error", timeout=15)
            return
        raw = self.session.config.to_raw()
        values = {k: raw[k] for k in self.overrides if k in raw}
        seen = save_diff.on_disk(path)  # the diff is against the file now, not as loaded
        found = save_diff.changes(seen, values)
        if not found:
            self.notify("Nothing to save: no tools.tool_search key you changed differs from "
                        f"{path}.", title="Not saved", timeout=8)
            return
        wanted = {c.key: c.new for c in found}

        def answered(yes: bool | None) -> None:
            if yes:
                self._save_worker(path, wanted, seen)
            else:
                self.notify("Nothing written.", title="Save cancelled", timeout=4)

        self.push_screen(ConfirmSaveScreen(str(path), save_diff.diff_lines(found),
                                           new_file=not path.exists()), answered)

    @work(thread=True, group="save", exit_on_error=False, description="save config")
    def _save_worker(self, path: Path, values: dict[str, Any], seen: bytes | None) -> None:
        if save_diff.on_disk(path) != seen:  # an editor (or Hermes) wrote it while the
            # diff was up: what he said yes to is not what would be written
            self.call_from_thread(
                self.notify, f"{path} changed on disk while the diff was shown; nothing "
                "written. Ctrl+S again shows what would change now.", title="Not saved",
                severity="error", timeout=15)
            return
        try:
            outcome = services.save_block(path, values)
        except Exception as exc:
            self.call_from_thread(self.notify, str(exc), title="Not saved", severity="error",
                                  timeout=15)
            return
        self.call_from_thread(self._saved, outcome, values)

    def _saved(self, outcome: services.SaveOutcome, values: dict[str, Any]) -> None:
        self.last_save = outcome
        self.save_target = str(outcome.path)
        # what the file holds now is what Ctrl+R comes back to
        self.saved_values.update(values)
        if self._initial is not None:
            self._initial = self._initial.with_config(**values)
        self.notify(outcome.message(), title="Saved", timeout=15)
