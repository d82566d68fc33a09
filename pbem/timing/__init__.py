"""Time, pure: the turn clocks (per move, Fischer, banked), days off, deadlines, retry waits."""
