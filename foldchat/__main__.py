from foldchat.cli.main import main

raise SystemExit(main())
