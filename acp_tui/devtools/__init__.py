"""Tools for looking at the wire itself: ``--record`` (:mod:`.recording`), ``acp-tui replay``
(:mod:`.replay`) and ``acp-tui replay --check`` (:mod:`.wire_check`). Unlike the faces
(``ui``, ``cli``), they read and write the protocol layer's recordings directly."""
