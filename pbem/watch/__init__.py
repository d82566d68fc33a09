"""Watching the server: health answers, heartbeats of the long-running processes, metrics."""
