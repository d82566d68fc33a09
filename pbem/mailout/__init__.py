"""Mail out: what each mail says (context, templates), the outbox it is queued in, and
the sender that renders, builds, checks and delivers it."""
