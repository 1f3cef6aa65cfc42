"""Intermediate representation: lowered syntax trees, functions, CFGs, launch sites."""
