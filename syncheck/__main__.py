from syncheck.command import entry

raise SystemExit(entry())
