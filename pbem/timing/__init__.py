"""Turn time, pure: the clock kinds (per move, Fischer, banked), days off and deadlines."""
