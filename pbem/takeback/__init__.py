"""Undo with consent: the mover asks to take back their last move, the next player answers."""
