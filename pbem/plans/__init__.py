"""Plans made ahead of the turn: a seat's plan ahead (conditional moves, two players) and its
standing orders (Fantasy Business), kept, read from mail and shown; the rules are in pbem.games."""
