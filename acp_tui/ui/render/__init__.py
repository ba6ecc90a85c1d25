"""Laying out agent text for the screen, incrementally and lazily.

- :mod:`.blocks`: the top-level Markdown blocks of a growing text, split as it grows;
- :mod:`.markdown`: Rich's Markdown as this client draws it (a block to lines, or a piece of a
  paragraph to styled text);
- :mod:`.wrap`: Rich's word wrap of a styled text that grows at its end, re-wrapping only the
  last lines;
- :mod:`.paragraph`: a growing paragraph, rendered a settled piece at a time;
- :mod:`.document`: a reply as blocks with heights, drawn only where the screen looks.
"""
