"""The counters every floor adds to (moves, mails, webhooks, jobs), read by /metrics."""
