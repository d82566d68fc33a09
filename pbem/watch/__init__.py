"""Watching a deployment: health, metrics, doctor."""
