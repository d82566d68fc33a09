"""Mail that does not arrive (issue 46): bounces and complaints read, scored per address, and
told to the table, so that a game by mail does not die silently when a player's mail does.

- reading: a bounce or complaint report read from its bytes (DSN, the common non-standard
  bounce formats, ARF): hard, soft or complaint, with the status and reason given.
- verp: the signed bounce address each mail is sent from (its envelope sender), which
  names the mail and the address it was for without trusting the report's body.
- record: a report received (by `pbem inbound`, or a refusal at SMTP time) written down.
- state: what is known of an address now, and which mail may still go to it.

What follows from them (scored, told to the table, an address fixed) is pbem.mailfix.
"""
