from acp_tui.demo_agent.main import main

raise SystemExit(main())
