"""Shared analyses: control dependence, uniformity, barrier intervals."""
