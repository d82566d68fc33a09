"""`pbem live`: the live pages' streams (Server-Sent Events), beside the WSGI app (issue 47)."""
