from .console import main

raise SystemExit(main())
