"""Glicko-2, from Glickman's "Example of the Glicko-2 system" (2013): one rating period's
update of a player's rating, deviation (RD) and volatility from the games in it.

Pure: numbers in, numbers out. Ratings and RDs are on the Glicko scale (1500, 350); the
steps below work on the Glicko-2 scale, as the paper does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The paper's step 2 factor between the two scales (400 / ln 10).
SCALE = 173.7178
CENTRE = 1500.0
# The system constant: how much volatility may change in a period. The paper advises 0.3 to
# 1.2; 0.5 is its worked example's, and a slow game's few results need no more.
TAU = 0.5
# Step 5's convergence tolerance (the paper's epsilon).
EPSILON = 0.000001


@dataclass(frozen=True)
class Standing:
    """A player's rating, deviation and volatility, on the Glicko scale."""

    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True)
class Result:
    """One game of the period: the opponent's rating and deviation, and the score (1 win,
    0.5 draw, 0 loss)."""

    rating: float
    deviation: float
    score: float


def _g(phi: float) -> float:
    """Step 3's g: how much an opponent's uncertainty dampens their game's weight."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Step 3's E: the expected score against an opponent."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f found by the Illinois algorithm."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    low = a
    if delta * delta > phi2 + v:
        high = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        new = low + (low - high) * f_low / (f_high - f_low)
        f_new = f(new)
        if f_new * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0  # the Illinois step: halve the kept end's value
        high, f_high = new, f_new
    return math.exp(low / 2.0)


def idle(player: Standing, periods: int) -> Standing:
    """The player's standing after `periods` rating periods without a game: step 6 alone,
    the deviation growing by the volatility each period (a rating not played is less sure)."""
    if periods <= 0:
        return player
    phi = player.deviation / SCALE
    grown = SCALE * math.sqrt(phi * phi + periods * player.volatility * player.volatility)
    return Standing(player.rating, grown, player.volatility)


def rate(player: Standing, results: Sequence[Result], tau: float = TAU) -> Standing:
    """The player's standing after one rating period with these results (none: only the
    deviation grows, by the volatility)."""
    mu = (player.rating - CENTRE) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Standing(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    games = []
    for result in results:
        mu_j = (result.rating - CENTRE) / SCALE
        phi_j = result.deviation / SCALE
        games.append((_g(phi_j), _expected(mu, mu_j, phi_j), result.score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in games)
    improvement = sum(g * (score - e) for g, e, score in games)
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Standing(SCALE * new_mu + CENTRE, SCALE * new_phi, new_sigma)
