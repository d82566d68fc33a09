"""Moves by mail: reply addresses, reading a reply, applying it, and the SMTP/LMTP listener."""
