"""Open tables and standing seeks: games posted for anyone signed in, and seeks that fill them."""
