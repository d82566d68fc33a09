"""Watching the server: health answers, heartbeats of the long-running processes, metrics,
and the doctor's checks of a deployment."""
