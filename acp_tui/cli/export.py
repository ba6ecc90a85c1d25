"""``acp-tui export``: a session to share, headless.

``acp-tui export SESSION [--redact] [--format md|html] [--agent NAME | --demo | -- CMD]``
starts the agent as ``ask`` does, loads the session (its history replayed into the store,
subagents included), and writes the TUI's export of it (Markdown, or one self-contained HTML
page) into acp-tui's exports folder through the path gate (a new file, 0600); the file's path
goes to stdout. ``--redact`` runs the one redaction engine (:mod:`acp_tui.text.redaction`,
with the config's ``[export] redact_patterns``) over it: every finding is listed on stderr
(kind, where, a masked preview; never the secret), and the export says at its top that it was
redacted and by which rules. Nobody is there to undo a finding: all of them are redacted.

``acp-tui export --recording FILE --redact`` writes a redacted copy of a ``--record`` file
(still a recording that ``acp-tui replay`` plays) into the same folder.

Exit codes: those of ``ask`` (0 written; 1 the session could not be loaded; 2 a usage
error or an agent that cannot load sessions; ...).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

from acp_tui.cli.headless_base import Headless, _run
from acp_tui.cli.headless_output import EXIT_OK, EXIT_STOPPED, EXIT_UNSUPPORTED, Output, _label
from acp_tui.cli.say import say
from acp_tui.config import locations
from acp_tui.services.path_gate import PathRefused, create_new, private_directory
from acp_tui.session.errors import SessionError
from acp_tui.session.export.formats import SUFFIXES, ExportFormat, redacted_title, render
from acp_tui.session.export.markdown import write_export
from acp_tui.text.redaction import Finding, Redactor, compile_patterns
from acp_tui.text.safety import escaped_line

__all__ = ["export_recording", "make_redactor", "run_export"]


def make_redactor(patterns: dict[str, str], problems: list[str]) -> Redactor:
    """The engine with the person's patterns (those that do not compile: to ``problems``)."""
    compiled, bad = compile_patterns(patterns)
    problems += [f"config: [export] {problem}" for problem in bad]
    return Redactor(compiled)


def finding_line(number: int, finding: Finding) -> str:
    """One finding, as listed for the person: number, kind, where, masked preview."""
    where = f"{finding.where}, line {finding.line}"
    return f"{number + 1}. {finding.kind} ({finding.rule}) in {where}: {finding.preview}"


class HeadlessExport(Headless):
    """Load one session, render it, write it."""

    def __init__(self, invocation: Any, output: Output, redactor: Redactor | None) -> None:
        super().__init__(invocation, output)
        options = invocation.options
        self.session_id: str = options.session
        self.format: ExportFormat = "html" if options.format == "html" else "md"
        self.redactor = redactor
        self.path: Path | None = None

    async def run(self) -> int:
        await self.controller.run(lambda controller: self._export())
        return self.exit_code()

    async def _export(self) -> None:
        agent = self.controller.agent
        assert agent is not None
        if not agent.can_load:
            self.finish(
                EXIT_UNSUPPORTED,
                f"{self.agent_name} cannot load a session (it does not advertise "
                "loadSession): there is no history to export",
            )
            return
        try:
            await self.controller.open_session(self.session_id, self.cwd, history=True)
        except SessionError as error:
            self.open_failed(error, "load the session")
            return
        state = self.store.get(self.session_id)
        if state is None:
            self.finish(EXIT_STOPPED, f"session {_label(self.session_id, 80)} was not loaded")
            return
        text = render(state, self.store.get, self.format, self.redactor)
        title = redacted_title(state, self.redactor)
        if self.redactor is not None:
            for number, finding in enumerate(self.redactor.findings):
                self.output.note(finding_line(number, finding))
        try:
            self.path = write_export(
                locations.exports_dir(), state, text, SUFFIXES[self.format], title=title
            )
        except (OSError, PathRefused) as error:
            self.finish(EXIT_STOPPED, f"cannot write the export: {_label(str(error), 300)}")
            return
        self.output.write_raw(f"{self.path}\n")
        if self.redactor is not None:
            found = len(self.redactor.findings)
            self.output.note(f"redacted {found} finding{'s' if found != 1 else ''}")
        self.finish(EXIT_OK)


def run_export(invocation: Any, patterns: dict[str, str]) -> int:
    """``acp-tui export SESSION``: the exit code."""
    options = invocation.options
    problems: list[str] = []
    redactor = make_redactor(patterns, problems) if options.redact else None
    for problem in problems:
        say(f"acp-tui: {problem}", file=sys.stderr)
    output = Output()
    return _run(HeadlessExport(invocation, output, redactor).run, output)


def export_recording(path: str, patterns: dict[str, str]) -> int:
    """``acp-tui export --recording FILE --redact``: the redacted copy's path on stdout."""
    from acp_tui.devtools.redact_recording import redact_recording

    problems: list[str] = []
    redactor = make_redactor(patterns, problems)
    for problem in problems:
        say(f"acp-tui: {problem}", file=sys.stderr)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        why = error.strerror or str(error)
        say(f"acp-tui export: {escaped_line(path, 1000)}: {why}", file=sys.stderr)
        return 2
    redacted = redact_recording(data, redactor)
    for number, finding in enumerate(redactor.findings):
        say(finding_line(number, finding), file=sys.stderr)
    named = Redactor(redactor.patterns).scrub(Path(path).stem, "name")
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", named)[:40].strip("-") or "recording"
    name = f"{stem}-redacted-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    try:
        written, file = create_new(private_directory(locations.exports_dir()), name)
        with file:
            file.write(redacted)
    except (OSError, PathRefused) as error:
        say(
            f"acp-tui export: cannot write the copy: {escaped_line(str(error), 300)}",
            file=sys.stderr,
        )
        return 1
    say(str(written))
    found = len(redactor.findings)
    say(f"redacted {found} finding{'s' if found != 1 else ''}", file=sys.stderr)
    return EXIT_OK
