"""What a seated player may ask beside a move: a rematch of a finished game, or to leave one."""
