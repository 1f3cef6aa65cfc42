from syncheck.cli import main

raise SystemExit(main())
