from acp_tui.cli.main import main

raise SystemExit(main())
