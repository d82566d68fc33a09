"""Chat-room webhooks: Discord, Slack or signed generic JSON, sent through their own outbox."""
