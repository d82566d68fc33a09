"""When a player's mail stops arriving: the bounce reports scored against their address
(score), the table told (tell), and the player's own fix of the address (fix).

The reports themselves are read and recorded by pbem.bounces.
"""
