"""Leagues by mail: a round robin or Swiss league of players for one game kind (pairing,
standings, the league's life; its pages are in pbem.web.leagues)."""
