"""Renderers: each turns the one Report model into an output format."""
