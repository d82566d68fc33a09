"""Players: accounts and settings, sign-in and sessions, signed links, home (/me), table
talk, and the accounts of computer players."""
