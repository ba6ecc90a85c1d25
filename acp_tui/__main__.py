from acp_tui.cli import main

raise SystemExit(main())
