"""Rule documents, packaged from rules/."""
