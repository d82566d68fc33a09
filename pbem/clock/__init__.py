"""The clock process: its scheduler and jobs, deadlines and the sweeps for timeouts,
reminders, digests and vacations, and the computer players' moves."""
