"""Storage: the engine and its sessions, the queries every layer needs, the rate-limit
counters, and a move's writes planned as plain data and carried out in one transaction."""
