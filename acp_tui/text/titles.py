"""How a tool call's title and paths read to a person.

Agents write titles in Markdown (``Run `npm test` ``, ``Read `src/app.py` ``), for a client
that renders it; shown as plain text, the backticks are noise. And an agent names files by
absolute path, where the person thinks in the project's terms. Pure text: no Textual.
"""

from __future__ import annotations

import os
import re

__all__ = ["plain_title", "project_path"]

#: One inline code span: a run of backticks, its text (no line break), a run of as many
#: (CommonMark's rule: ``a `b` c`` holds backticks).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)([^\n]+?)(?<!`)\1(?!`)")


def plain_title(title: str) -> str:
    """``title`` with its inline code spans' backticks taken off (``Run `ls -la` `` reads
    ``Run ls -la``); a lone backtick stays, it is not a span."""
    return _CODE_SPAN.sub(lambda match: match.group(2).strip(" ") or match.group(0), title)


def project_path(path: str, project: str | None) -> str:
    """``path`` relative to ``project`` (the session's folder) when it lies inside it, else
    as given: ``/home/me/proj/src/app.py`` in ``/home/me/proj`` reads ``src/app.py``."""
    if not project or not os.path.isabs(path):
        return path
    try:
        root = os.path.normpath(project)
        normal = os.path.normpath(path)
        if os.path.commonpath([root, normal]) != root or normal == root:
            return path
        return os.path.relpath(normal, root)
    except ValueError:  # another drive (Windows), or a path that cannot be compared
        return path
