"""The message keys the engines emit (and the few the site builds), each with its English msgid.

A key is the engines' public vocabulary (pbem.games stays free of translation); its value is
the gettext msgid, with %(name)s placeholders, that the catalogues in translations/ translate.
A plural entry names the parameter that carries its count. Card ids such as "theft-3" fall back
to their kind ("card.theft").
"""

from __future__ import annotations

from pbem.present.i18n import N_, NN_, Msgid

VOCABULARY: dict[str, Msgid] = {
    # The interface's errors, card and suit names, game titles
    "card.ace-knots": N_("Ace of Knots"),
    "card.ace-leaves": N_("Ace of Leaves"),
    "card.ace-moons": N_("Ace of Moons"),
    "card.ace-suns": N_("Ace of Suns"),
    "card.ace-waves": N_("Ace of Waves"),
    "card.ace-wyrms": N_("Ace of Wyrms"),
    "card.antitrust": N_("Antitrust law"),
    "card.armour": N_("Armour"),
    "card.author": N_("The Author"),
    "card.bard": N_("The Bard"),
    "card.battle": N_("The Battle"),
    "card.betrayal": N_("The Betrayal"),
    "card.borderland": N_("The Borderland"),
    "card.bows": N_("Bows and arrows"),
    "card.calamity": N_("The Calamity"),
    "card.castle": N_("The Castle"),
    "card.cave": N_("The Cave"),
    "card.chance-meeting": N_("The Chance Meeting"),
    "card.components": N_("Magic components"),
    "card.consul": N_("The Consul"),
    "card.darkness": N_("The Darkness"),
    "card.defaulting": N_("Defaulting buyer"),
    "card.defective": N_("Defective goods"),
    "card.desert": N_("The Desert"),
    "card.diplomat": N_("The Diplomat"),
    "card.discovery": N_("The Discovery"),
    "card.end": N_("The End"),
    "card.excuse": N_("The Excuse"),
    "card.forest": N_("The Forest"),
    "card.harvest": N_("The Harvest"),
    "card.herbs": N_("Medicinal herbs"),
    "card.horses": N_("Horses"),
    "card.huntress": N_("The Huntress"),
    "card.island": N_("The Island"),
    "card.journey": N_("The Journey"),
    "card.light-keeper": N_("The Light Keeper"),
    "card.lunatic": N_("The Lunatic"),
    "card.market": N_("The Market"),
    "card.merchant": N_("The Merchant"),
    "card.mill": N_("The Mill"),
    "card.mountain": N_("The Mountain"),
    "card.origin": N_("The Origin"),
    "card.pact": N_("The Pact"),
    "card.painter": N_("The Painter"),
    "card.penitent": N_("The Penitent"),
    "card.potions": N_("Magic potions"),
    "card.rite": N_("The Rite"),
    "card.sailor": N_("The Sailor"),
    "card.savage": N_("The Savage"),
    "card.scrolls": N_("Spell scrolls"),
    "card.sea": N_("The Sea"),
    "card.soldier": N_("The Soldier"),
    "card.special": N_("Face-down special card"),
    "card.subsidy": N_("Special subsidy"),
    "card.swords": N_("Swords"),
    "card.theft": N_("Theft"),
    "card.watchman": N_("The Watchman"),
    "card.windfall": N_("The Windfall"),
    "card.window": N_("The Window"),
    "error.game_over": N_("The game is over."),
    "error.malformed": N_("That move is not understood: %(detail)s."),
    "error.not_your_turn": N_("It is not your turn."),
    "error.option_bool": N_("The option “%(name)s” must be on or off."),
    "error.option_choice": N_("The option “%(name)s” must be one of: %(choices)s."),
    "error.option_int": N_("The option “%(name)s” must be a whole number."),
    "error.option_range": N_("The option “%(name)s” must be from %(low)s to %(high)s."),
    "error.option_unknown": N_("There is no option called “%(name)s”."),
    "error.players": N_("This game takes %(low)s to %(high)s players, not %(count)s."),
    "game.colour-bazaar": N_("Colour Bazaar"),
    "game.fantasy-business": N_("Fantasy Business"),
    "seat.default": N_("Player %(number)s"),
    "suit.knots": N_("Knots"),
    "suit.leaves": N_("Leaves"),
    "suit.moons": N_("Moons"),
    "suit.suns": N_("Suns"),
    "suit.waves": N_("Waves"),
    "suit.wyrms": N_("Wyrms"),
    # Plan ahead (conditional moves)
    "ahead.error.answer": N_("Your answer is not a move you could make after theirs."),
    "ahead.error.deep": N_("A plan looks at most two of their moves ahead."),
    "ahead.error.discard": N_("A face-down discard shows no card: a plan cannot name it."),
    "ahead.error.game_ends": N_("That move ends the game: there is nothing to answer."),
    "ahead.error.not_now": N_(
        "You can plan ahead only in a two-player Colour Bazaar while the other player is to move."
    ),
    "ahead.error.shape": N_(
        "That plan is not understood: give pairs of their move and your answer."
    ),
    "ahead.error.their_move": N_("That is not a move they could make, as far as you can see."),
    "ahead.error.twice": N_("Your plan names the same move of theirs twice."),
    "ahead.log.played": N_("(%(seat)s played this ahead, as planned.)"),
    "ahead.log.played.you": N_("(You planned this ahead: played at once.)"),
    # Standing orders (Fantasy Business)
    "standing.error.amount": N_("A limit must be a whole number from 0 to %(most)s."),
    "standing.error.not_now": N_("Standing orders are for a Fantasy Business game under way."),
    "standing.error.shape": N_("Those standing orders are not understood."),
    "standing.log.played": N_("%(seat)s's move was played by standing order."),
    # Colour Bazaar
    "cb.bad_market": N_("Choose a market from 1 to 4."),
    "cb.chip_gone": N_("There are no %(suit)s chips left."),
    "cb.court_needs_suit": N_("Name one of the suits of %(card)s for the royal edict."),
    "cb.court_wrong_suit": N_("%(suit)s is not a suit of %(card)s."),
    "cb.edict_market": N_(
        "You hold no card of the named suit, but %(fit_card)s shares a suit with %(court_card)s: the edict says you must play on market %(market)s."
    ),
    "cb.edict_suit": N_(
        "The royal edict of %(court_card)s calls for a %(suit)s card on market %(market)s, and you hold one."
    ),
    "cb.form.garbled": N_("That choice of card and market is not understood; choose again."),
    "cb.form.no_card": N_("Choose the card you play, or the card you discard."),
    "cb.form.no_chip": N_("Choose the chip you take."),
    "cb.form.no_suit": N_("You are playing a Court: name one of its suits for the royal edict."),
    "cb.log.chip_only": N_("%(seat)s had no card and took a %(chip_suit)s chip."),
    # The mover's own lines, said to them: ".you" in their log, ".review" before sending.
    "cb.log.chip_only.review": N_("You have no card and take a %(chip_suit)s chip."),
    "cb.log.chip_only.you": N_("You had no card and took a %(chip_suit)s chip."),
    "cb.log.discarded": N_(
        "%(seat)s could not play, discarded a card face down and took a %(chip_suit)s chip."
    ),
    "cb.log.discarded_own": N_(
        "%(seat)s could not play, discarded %(card)s face down and took a %(chip_suit)s chip."
    ),
    "cb.log.discarded_own.review": N_(
        "You cannot play: you discard %(card)s face down and take a %(chip_suit)s chip."
    ),
    "cb.log.discarded_own.you": N_(
        "You could not play, discarded %(card)s face down and took a %(chip_suit)s chip."
    ),
    "cb.log.last_chip": N_("That was the last chip: the game is over."),
    "cb.log.played": N_(
        "%(seat)s played %(card)s on market %(market)s and took a %(chip_suit)s chip."
    ),
    "cb.log.played.review": N_(
        "You play %(card)s on market %(market)s and take a %(chip_suit)s chip."
    ),
    "cb.log.played.you": N_(
        "You played %(card)s on market %(market)s and took a %(chip_suit)s chip."
    ),
    "cb.log.played_court": N_(
        "%(seat)s played %(card)s on market %(market)s, named %(suit)s in a royal edict, and took a %(chip_suit)s chip."
    ),
    "cb.log.played_court.review": N_(
        "You play %(card)s on market %(market)s, name %(suit)s in a royal edict, and take a %(chip_suit)s chip."
    ),
    "cb.log.played_court.you": N_(
        "You played %(card)s on market %(market)s, named %(suit)s in a royal edict, and took a %(chip_suit)s chip."
    ),
    "cb.log.revealed": N_(
        "%(target_seat)s holds no %(suit)s card and shows their hand: %(cards)s."
    ),
    "cb.log.revealed.you": N_("You hold no %(suit)s card and show your hand: %(cards)s."),
    "cb.malformed": N_(
        "A move must say which card you play and where, or which card you discard, and which chip you take."
    ),
    "cb.market_without_card": N_("Choose a card to go with the market."),
    "cb.must_play": N_(
        "You cannot discard while a card can be played: %(card)s fits market %(market)s."
    ),
    "cb.need_card": N_("Choose a card to play or, if none can be played, one to discard."),
    "cb.need_chip": N_("Choose the chip you take."),
    "cb.no_shared_suit": N_(
        "%(card)s shares no suit with the top of market %(market)s (%(top_card)s)."
    ),
    "cb.not_court": N_("%(card)s is not a Court, so it names no suit."),
    "cb.not_in_hand": N_("%(card)s is not in your hand."),
    "cb.play_and_discard": N_("Play a card or discard one, not both."),
    "cb.suit_without_court": N_("Only a Court names a suit, and you are not playing one."),
    "cb.title": N_("Colour Bazaar"),
    "cb.unknown_card": N_("There is no card called “%(name)s”."),
    "cb.unknown_field": N_("A move has no field called “%(name)s”."),
    "cb.unknown_suit": N_("“%(name)s” is not a suit."),
    # Fantasy Business
    "fb.already_bid": N_("You have already sent your sealed bid for this card."),
    "fb.amount_not_int": N_("A bid is a whole number of écus."),
    "fb.antitrust_target": N_(
        "Another player holds a monopoly: name them, and the article, to play the antitrust law."
    ),
    "fb.article_needed": N_("Name the article %(card)s is aimed at."),
    "fb.bad_slot": N_("Choose one of the revealed cards, numbered 1 to %(count)s."),
    "fb.bad_target": N_("Name a player of this table (seats 1 to %(count)s)."),
    "fb.bid_too_high": NN_(
        "You hold only %(money)s écu: you cannot bid more than that.",
        "You hold only %(money)s écus: you cannot bid more than that.",
        "money",
    ),
    "fb.bid_too_low": NN_(
        "Bid at least %(minimum)s écu, or pass.",
        "Bid at least %(minimum)s écus, or pass.",
        "minimum",
    ),
    "fb.cannot_afford": NN_(
        "You hold less than %(base)s écu: you cannot take this card.",
        "You hold fewer than %(base)s écus: you cannot take this card.",
        "base",
    ),
    "fb.expect_antitrust_limits": N_(
        "An antitrust sale is under way: send the most you would pay per card (0 for none)."
    ),
    "fb.expect_choose": N_("The first buyer must now choose which card goes up for auction next."),
    "fb.expect_limits": N_(
        "Limits are being collected: send the most you would pay for each card (0 for none)."
    ),
    "fb.expect_lists": N_(
        "Special cards are being listed: send the list of those you play (it may be empty)."
    ),
    "fb.expect_open": N_("An auction is under way: bid or pass."),
    "fb.expect_order": N_("The first buyer must now give the order of sale of the row."),
    "fb.expect_pricing": N_("Set your selling prices."),
    "fb.expect_sealed": N_("Sealed bids are being collected: send a bid (0 means no bid)."),
    "fb.expect_single": N_("Take the last card at its base price, or pass."),
    "fb.expect_specials": N_("Play a special card, or say you are done."),
    "fb.form.bad_amount": N_("A bid is a whole number of écus, such as 5."),
    "fb.form.bad_limit": N_("Each limit is a whole number of écus, such as 5 (0 for no bid)."),
    "fb.form.bad_order": N_("Give each card a different place, from 1 to the number of cards."),
    "fb.form.bad_price": N_("Each price is a whole number of écus, within the range shown."),
    "fb.form.garbled": N_("This form was not understood; please choose again."),
    "fb.form.no_action": N_("Press one of the buttons of the form to say what you do."),
    "fb.form.no_amount": N_("Enter your bid in écus."),
    "fb.form.no_prices": N_("Set a price for each of your articles on sale."),
    "fb.form.no_slot": N_("Choose the card to put up for auction."),
    "fb.form.no_target": N_("Choose who (and which article) the card is played against."),
    "fb.limit_cannot_afford": NN_(
        "You cannot pay the base price of card %(number)s (%(base)s écu): its limit must be 0.",
        "You cannot pay the base price of card %(number)s (%(base)s écus): its limit must be 0.",
        "base",
    ),
    "fb.limit_not_int": N_("The limit for card %(number)s must be a whole number of écus."),
    "fb.limit_too_high": NN_(
        "You hold only %(money)s écu: the limit for card %(number)s cannot be more than that.",
        "You hold only %(money)s écus: the limit for card %(number)s cannot be more than that.",
        "money",
    ),
    "fb.limit_too_low": NN_(
        "The limit for card %(number)s is 0 (none) or at least its base price, %(base)s écu.",
        "The limit for card %(number)s is 0 (none) or at least its base price, %(base)s écus.",
        "base",
    ),
    "fb.limits_not_list": N_("Give one limit for each of the row's %(count)s cards (0 for none)."),
    "fb.log.antitrust": NN_(
        "%(seat)s plays %(card)s: %(target_seat)s's only %(article_card)s card goes up for auction.",
        "%(seat)s plays %(card)s: %(target_seat)s's %(count)s %(article_card)s cards go up for auction one by one.",
        "count",
    ),
    "fb.log.antitrust_limit_none_own": N_("%(seat)s will not bid in this sale."),
    "fb.log.antitrust_limit_own": NN_(
        "%(seat)s set a limit of %(amount)s écu per card.",
        "%(seat)s set a limit of %(amount)s écus per card.",
        "amount",
    ),
    "fb.log.antitrust_limit_set": N_("%(seat)s has set their limit."),
    "fb.log.antitrust_none": N_(
        "%(seat)s plays %(card)s, but no other player holds a monopoly: it has no effect."
    ),
    "fb.log.antitrust_sold": NN_(
        "Antitrust sale %(number)s of %(total)s, %(card)s (base %(base)s): %(limits)s. %(seat)s buys it at %(price)s écu, paid to %(owner_seat)s.",
        "Antitrust sale %(number)s of %(total)s, %(card)s (base %(base)s): %(limits)s. %(seat)s buys it at %(price)s écus, paid to %(owner_seat)s.",
        "price",
    ),
    "fb.log.antitrust_sold_base": N_(
        "Antitrust sale %(number)s of %(total)s, %(card)s (base %(base)s): %(limits)s. %(seat)s, the only bidder, buys it at the base price, paid to %(owner_seat)s."
    ),
    "fb.log.antitrust_sold_none": N_(
        "Antitrust sale %(number)s of %(total)s, %(card)s (base %(base)s): %(limits)s. Nobody bids: the card is discarded."
    ),
    "fb.log.antitrust_start": NN_(
        "%(owner_seat)s's only %(article_card)s card is sold by limits: every other player sets, secretly, the most they would pay for it.",
        "%(owner_seat)s's %(count)s %(article_card)s cards are sold by limits: every other player sets, secretly, the most they would pay per card.",
        "count",
    ),
    "fb.log.bid": NN_("%(seat)s bids %(amount)s écu.", "%(seat)s bids %(amount)s écus.", "amount"),
    "fb.log.decline": N_("%(seat)s declines the card."),
    "fb.log.decline_auto": N_("%(seat)s cannot afford the card and goes without."),
    "fb.log.defaulting": N_(
        "%(seat)s plays %(card)s: %(target_seat)s receives no income this round."
    ),
    "fb.log.defective": N_(
        "%(seat)s plays %(card)s: %(target_seat)s's %(article_card)s are off the market this round."
    ),
    "fb.log.done": N_("%(seat)s is done with special cards."),
    "fb.log.income_all_equal": N_(
        "%(seat)s: %(count)s × %(article_card)s at %(price)s écus, the same price as everyone, which counts as lowest (+2 per card): %(amount)s écus."
    ),
    "fb.log.income_defaulting": N_(
        "%(seat)s: %(count)s × %(article_card)s at %(price)s écus, but the buyer defaults: nothing."
    ),
    "fb.log.income_defective": N_(
        "%(seat)s: %(count)s × %(article_card)s, defective and off the market: nothing."
    ),
    "fb.log.income_highest": N_(
        "%(seat)s: %(count)s × %(article_card)s at %(price)s écus, the highest price: nothing."
    ),
    "fb.log.income_lowest": N_(
        "%(seat)s: %(count)s × %(article_card)s at %(price)s écus, the lowest price (+2 per card): %(amount)s écus."
    ),
    "fb.log.income_middle": N_(
        "%(seat)s: %(count)s × %(article_card)s at %(price)s écus: %(amount)s écus."
    ),
    "fb.log.income_sole": N_(
        "%(seat)s: %(count)s × %(article_card)s at %(price)s écus, sole seller (+2 per card): %(amount)s écus."
    ),
    "fb.log.limit_none_own": N_("%(card)s: no bid."),
    "fb.log.limit_own": NN_(
        "%(card)s: up to %(amount)s écu.", "%(card)s: up to %(amount)s écus.", "amount"
    ),
    "fb.log.limits_own": N_("%(seat)s set these limits:"),
    "fb.log.limits_revised_own": N_("%(seat)s changed their limits:"),
    "fb.log.limits_set": N_("%(seat)s has set their limits."),
    "fb.log.limits_start": N_(
        "Every player who may buy now sets, secretly, the most they would pay for each card."
    ),
    "fb.log.list_item": N_("%(number)s. %(card)s"),
    "fb.log.list_item_article": N_(
        "%(number)s. %(card)s, against %(target_seat)s's %(article_card)s"
    ),
    "fb.log.list_item_target": N_("%(number)s. %(card)s, against %(target_seat)s"),
    "fb.log.lists_none_own": N_("%(seat)s plays no special card this round."),
    "fb.log.lists_open": N_("All lists are in, carried out clockwise from the first buyer:"),
    "fb.log.lists_own": N_("%(seat)s will play, in this order:"),
    "fb.log.lists_revised_own": N_("%(seat)s changed their list; they will play, in this order:"),
    "fb.log.lists_set": N_("%(seat)s has listed their special cards."),
    "fb.log.lists_start": N_(
        "Every player holding special cards now lists, secretly, the ones they play this round."
    ),
    "fb.log.lot": N_("%(seat)s puts the %(card)s card up for auction (base price %(base)s écus)."),
    "fb.log.lot_last": N_(
        "The last card, %(card)s, goes up for auction (base price %(base)s écus)."
    ),
    "fb.log.lot_last_special": NN_(
        "The last card, a face-down special, goes up for auction (base price %(base)s écu).",
        "The last card, a face-down special, goes up for auction (base price %(base)s écus).",
        "base",
    ),
    "fb.log.lot_special": NN_(
        "%(seat)s puts a face-down special card up for auction (base price %(base)s écu).",
        "%(seat)s puts a face-down special card up for auction (base price %(base)s écus).",
        "base",
    ),
    "fb.log.order_set": N_("%(seat)s gives the order of sale: %(cards)s."),
    "fb.log.over": N_("The game is over. Scores (écus + base value of the goods held):"),
    "fb.log.pass": N_("%(seat)s passes."),
    "fb.log.pass_auto": N_("%(seat)s cannot afford to bid and is out of this auction."),
    "fb.log.price_own": N_("%(article_card)s: %(price)s écus."),
    "fb.log.prices_own": N_("%(seat)s set these prices:"),
    "fb.log.prices_revealed": N_("All prices are revealed."),
    "fb.log.prices_revised_own": N_("%(seat)s changed their prices to:"),
    "fb.log.prices_set": N_("%(seat)s has set their prices."),
    "fb.log.pricing": N_("Now everyone with articles on sale sets prices, in secret."),
    "fb.log.revealed": N_("Revealed: %(cards)s."),
    "fb.log.revealed_hidden": N_("Face-down special cards revealed: %(count)s."),
    "fb.log.revealed_none": N_("The draw pile is empty: no card goes up for auction this round."),
    "fb.log.round": N_("Round %(round)s of %(rounds)s: %(seat)s is the first buyer."),
    "fb.log.sale": N_(
        "Antitrust sale %(number)s of %(total)s: %(owner_seat)s's %(card)s card, base price %(base)s écus."
    ),
    "fb.log.sale_won": N_(
        "%(seat)s buys the %(card)s card for %(price)s écus, paid to %(owner_seat)s."
    ),
    "fb.log.score": N_("%(seat)s: %(ecus)s écus + %(goods)s = %(score)s."),
    "fb.log.sealed_auto": N_("%(seat)s cannot afford the base price and makes no bid."),
    "fb.log.sealed_bid": N_("%(seat)s has sent a sealed bid."),
    "fb.log.sealed_bid_own": NN_(
        "%(seat)s sent a sealed bid of %(amount)s écu.",
        "%(seat)s sent a sealed bid of %(amount)s écus.",
        "amount",
    ),
    "fb.log.sale_start": N_(
        "All limits are in. The sale, worked out by the server card by card in the order of sale:"
    ),
    "fb.log.sealed_none_own": N_("%(seat)s chose not to bid."),
    "fb.log.sealed_start": N_(
        "Every player who may still buy now sends a secret bid (0 for no bid)."
    ),
    "fb.log.sealed_was": NN_(
        "%(seat)s had bid %(amount)s écu.", "%(seat)s had bid %(amount)s écus.", "amount"
    ),
    "fb.log.sealed_was_none": N_("%(seat)s had not bid."),
    "fb.log.single": N_(
        "%(seat)s alone may still buy: they may take the %(card)s card for %(base)s écus, or decline."
    ),
    "fb.log.single_special": NN_(
        "%(seat)s alone may still buy: they may take the face-down special card for %(base)s écu, or decline.",
        "%(seat)s alone may still buy: they may take the face-down special card for %(base)s écus, or decline.",
        "base",
    ),
    "fb.log.skipped_no_article": N_(
        "%(seat)s's %(card)s, against %(target_seat)s's %(article_card)s, has no effect: they no longer hold any. The card is discarded."
    ),
    "fb.log.skipped_no_monopoly": N_(
        "%(seat)s's %(card)s, against %(target_seat)s's %(article_card)s, has no effect: they are no longer its only owner. The card is discarded."
    ),
    "fb.log.sold": NN_(
        "%(card)s (base %(base)s): %(limits)s. %(seat)s wins at %(price)s écu.",
        "%(card)s (base %(base)s): %(limits)s. %(seat)s wins at %(price)s écus.",
        "price",
    ),
    "fb.log.sold_base": N_(
        "%(card)s (base %(base)s): %(limits)s. %(seat)s, the only bidder, wins at the base price."
    ),
    "fb.log.sold_none": N_(
        "%(card)s (base %(base)s): %(limits)s. Nobody bids: the card is discarded."
    ),
    "fb.log.sold_special": NN_(
        "Face-down special card (base %(base)s): %(limits)s. %(seat)s wins it at %(price)s écu.",
        "Face-down special card (base %(base)s): %(limits)s. %(seat)s wins it at %(price)s écus.",
        "price",
    ),
    "fb.log.sold_special_base": N_(
        "Face-down special card (base %(base)s): %(limits)s. %(seat)s, the only bidder, wins it at the base price."
    ),
    "fb.log.sold_special_none": N_(
        "Face-down special card (base %(base)s): %(limits)s. Nobody bids: it is discarded unseen."
    ),
    "fb.log.special_own": N_(
        "The special card %(seat)s won is %(card)s (the others do not know which)."
    ),
    "fb.log.specials_turn": N_("%(seat)s may now play special cards."),
    "fb.log.subsidy": NN_(
        "%(seat)s plays %(card)s and takes %(amount)s écu from the bank.",
        "%(seat)s plays %(card)s and takes %(amount)s écus from the bank.",
        "amount",
    ),
    "fb.log.theft": N_(
        "%(seat)s plays %(card)s and takes one %(article_card)s card from %(target_seat)s."
    ),
    "fb.log.unsold": N_("Nobody bid: %(card)s is discarded."),
    "fb.log.unsold_special": N_("Nobody bid: the face-down special card is discarded unseen."),
    "fb.log.won": N_("%(seat)s wins the %(card)s card for %(price)s écus."),
    "fb.log.won_special": NN_(
        "%(seat)s wins a face-down special card for %(price)s écu.",
        "%(seat)s wins a face-down special card for %(price)s écus.",
        "price",
    ),
    "fb.log.won_special_own": NN_(
        "%(seat)s wins a special card for %(price)s écu: %(card)s (the others do not know which).",
        "%(seat)s wins a special card for %(price)s écus: %(card)s (the others do not know which).",
        "price",
    ),
    "fb.malformed": N_(
        "A move needs an “action”: order, limits, specials, limit, choose, bid, pass, take, play, done or prices."
    ),
    "fb.no_article": N_("%(card)s names no article: leave out the article."),
    "fb.no_limits_needed": N_("You cannot buy any card of this row, so you set no limits."),
    "fb.no_monopoly": N_("%(target_seat)s is not the only owner of any article."),
    "fb.no_prices_needed": N_("You have no article on sale this round, so you set no prices."),
    "fb.no_specials_held": N_("You hold no special card, so you have nothing to list."),
    "fb.no_target": N_("%(card)s is not played against anyone: leave out the player."),
    "fb.not_eligible": N_("You have already won a card this round: you may bid again next round."),
    "fb.not_held": N_("You do not hold that card (%(card)s)."),
    "fb.not_monopoly": N_("%(target_seat)s is not the only owner of %(article_card)s."),
    "fb.not_special": N_("%(card)s is an article, not a special card."),
    "fb.option.auction": N_("Auctions"),
    "fb.option.auction.open": N_("Open, bidding in turn"),
    "fb.option.auction.orders": N_("By mail: limits set in advance (recommended)"),
    "fb.option.auction.sealed": N_("Sealed bids"),
    "fb.option.specials": N_("Special cards"),
    "fb.option.specials.none": N_("No special cards"),
    "fb.option.specials.standard": N_("The 24 cards of the rules"),
    "fb.option_specials": N_(
        "The option “specials” is a preset (%(choices)s) or a table of special cards."
    ),
    "fb.option_specials_amount": N_(
        "The amount of %(card)s must be from %(low)s to %(high)s écus."
    ),
    "fb.option_specials_copies": N_(
        "The number of %(card)s cards must be from %(low)s to %(high)s."
    ),
    "fb.option_specials_field": N_("%(card)s has no setting called “%(name)s”."),
    "fb.option_specials_kind": N_("There is no special card called “%(name)s”."),
    "fb.options_not_object": N_("The options must be given as a set of named values."),
    "fb.order_not_list": N_(
        "Give the order of sale as a list of the row's %(count)s cards, each once."
    ),
    "fb.order_not_permutation": N_(
        "The order of sale must name each of the row's %(count)s cards exactly once."
    ),
    "fb.out_of_auction": N_("You passed on this card, and a pass is final."),
    "fb.own_antitrust": N_("These are your own cards being sold: you cannot bid for them."),
    "fb.page.ask.antitrust_limits": N_(
        "Antitrust sale of %(owner)s's %(article)s: set the most you would pay per card (you hold %(ecus)s)."
    ),
    "fb.page.ask.choose": N_("You are the first buyer: choose the next card to auction."),
    "fb.page.ask.limits": N_(
        "Set your limits: the most you would pay for each card of the row (you hold %(ecus)s)."
    ),
    "fb.page.ask.lists": N_(
        "List the special cards you play this round, with their targets (or none)."
    ),
    "fb.page.ask.open": N_("Bid or pass on %(card)s (you hold %(ecus)s)."),
    "fb.page.ask.order": N_(
        "You are the first buyer: give the order in which the %(count)s cards of the row are sold."
    ),
    "fb.page.ask.pricing": N_("Set your selling prices for this round."),
    "fb.page.ask.sealed": N_("Send your sealed bid for %(card)s (you hold %(ecus)s)."),
    "fb.page.ask.single": N_("Take the last card, %(card)s, at its base price, or decline."),
    "fb.page.ask.specials": N_("Play your special cards, or say you are done."),
    "fb.page.base": N_("base price %(price)s"),
    "fb.page.effect.antitrust": N_(
        "Name a player who alone owns an article: all their cards of it are auctioned among the others, and they get the money. With no monopoly in play it does nothing."
    ),
    "fb.page.effect.defaulting": N_(
        "Name another player: they receive no income this round (their prices still count)."
    ),
    "fb.page.effect.defective": N_(
        "Name another player and an article they own: those cards are off the market this round."
    ),
    "fb.page.effect.subsidy": N_("Take %(amount)s from the bank."),
    "fb.page.effect.theft": N_("Pick an article card from another player and keep it."),
    "fb.page.limits_set": N_("Limits in: %(names)s."),
    "fb.page.lists_set": N_("Lists in: %(names)s."),
    "fb.page.mode.open": N_("Auctions are open: bidding goes round in turn."),
    "fb.page.mode.orders": N_("Auctions by mail: everyone sets limits in advance."),
    "fb.page.mode.sealed": N_("Auctions use sealed bids."),
    "fb.page.pick.antitrust": N_("Whose monopoly"),
    "fb.page.pick.defaulting": N_("Against whom"),
    "fb.page.pick.defective": N_("Whose articles"),
    "fb.page.pick.subsidy": N_("Choice"),
    "fb.page.pick.theft": N_("Take from"),
    "fb.page.special_face_down": N_("a special card (face down)"),
    "fb.page.unsold": N_("unsold, discarded"),
    "fb.page.won_by": N_("won by %(name)s for %(price)s"),
    "fb.play_twice": N_("%(card)s is listed twice: each card can be played once."),
    "fb.plays_not_list": N_(
        "Give a list of the special cards you play, each with its target, or an empty list."
    ),
    "fb.price_missing": N_("Set a price for your %(article_card)s as well."),
    "fb.price_not_int": N_("The price of %(article_card)s must be a whole number of écus."),
    "fb.price_not_owned": N_("You have no %(article_card)s on sale this round."),
    "fb.price_range": N_("The price of %(article_card)s must be from %(low)s to %(high)s écus."),
    "fb.prices_not_object": N_(
        'Give one price per article, for example {"herbs": 3, "swords": 6}.'
    ),
    "fb.reason.all_equal": N_(
        "everyone at the same price counts as lowest: price × cards + 2 per card"
    ),
    "fb.reason.defaulting": N_("defaulting buyer: no income this round"),
    "fb.reason.defective": N_("defective goods: off the market this round"),
    "fb.reason.highest": N_("highest price: nothing"),
    "fb.reason.lowest": N_("lowest price: price × cards + 2 per card"),
    "fb.reason.middle": N_("between lowest and highest: price × cards"),
    "fb.results.ecus": NN_("%(count)s écu", "%(count)s écus", "count"),
    "fb.results.reason.all_equal": N_("same price as everyone, counts as lowest"),
    "fb.results.reason.defaulting": N_("defaulting buyer: no income"),
    "fb.results.reason.defective": N_("defective: off the market"),
    "fb.results.reason.highest": N_("highest price: no sale"),
    "fb.results.reason.lowest": N_("lowest price, +2 per card"),
    "fb.results.reason.middle": N_("between lowest and highest"),
    "fb.results.reason.sole": N_("sole seller, +2 per card"),
    "fb.sealed_too_low": NN_(
        "A sealed bid is 0 (no bid) or at least the base price, %(base)s écu.",
        "A sealed bid is 0 (no bid) or at least the base price, %(base)s écus.",
        "base",
    ),
    "fb.slot_done": N_("Card %(number)s of the row has already been auctioned."),
    "fb.why.all_passed": N_("Everyone passed: discarded."),
    "fb.why.alone": N_("Only bidder: pays the base price."),
    "fb.why.capped": N_("A limit above the écus a player still held counted as those écus."),
    "fb.why.declined": N_("The last buyer declined: discarded."),
    "fb.why.held": NN_(
        "%(seat)s's limit counted as the %(amount)s écu they still held.",
        "%(seat)s's limit counted as the %(amount)s écus they still held.",
        "amount",
    ),
    "fb.why.last_bid": N_("Last bid: everyone else passed."),
    "fb.why.none": N_("No limit reached the base price: discarded."),
    "fb.why.sealed_highest": N_("Highest sealed bid."),
    "fb.why.sealed_tie": N_(
        "Tie at %(price)s with %(tied_seats)s: first clockwise from the first buyer."
    ),
    "fb.why.second": N_("Highest limit: pays %(second_seat)s's %(second)s + 1."),
    "fb.why.single": N_("Alone left to buy: took it at the base price."),
    "fb.why.tie": N_(
        "Tie at %(price)s with %(tied_seats)s: first clockwise from the first buyer, pays that limit."
    ),
    "fb.why.tie_antitrust": N_(
        "Tie at %(price)s with %(tied_seats)s: first clockwise from %(owner_seat)s's left, pays that limit."
    ),
    # What the news under a move says instead of lines shown as tables of their own (issue 47).
    "fb.news.end": N_(
        "All prices are revealed and the round is over: its outcome, with each player's income, is shown above."
    ),
    "fb.news.sale": N_(
        "All limits are in: the server worked out the sale, card by card (see the sale's table)."
    ),
    # An article in a word or two, for the board's chips on a phone (issue 47).
    "fb.short.armour": N_("Armour"),
    "fb.short.bows": N_("Bows"),
    "fb.short.components": N_("Components"),
    "fb.short.herbs": N_("Herbs"),
    "fb.short.horses": N_("Horses"),
    "fb.short.potions": N_("Potions"),
    "fb.short.scrolls": N_("Scrolls"),
    "fb.short.swords": N_("Swords"),
    "fb.step.antitrust_limits": N_("Antitrust sale"),
    "fb.step.choose": N_("The first buyer chooses the next card to auction"),
    "fb.step.limits": N_("Limits"),
    "fb.step.lists": N_("Special cards"),
    "fb.step.open": N_("Auction"),
    "fb.step.order": N_("The first buyer gives the order of sale"),
    "fb.step.over": N_("Game over"),
    "fb.step.pricing": N_("Setting prices"),
    "fb.step.sealed": N_("Sealed bids"),
    "fb.step.single": N_("Last card"),
    "fb.step.specials": N_("Special cards"),
    "fb.target_lacks": N_("%(target_seat)s holds no %(article_card)s."),
    "fb.target_needed": N_("Name the player you play %(card)s against."),
    "fb.target_self": N_("Play %(card)s against another player, not yourself."),
    "fb.title": N_("Fantasy Business"),
    "fb.unknown_action": N_("There is no action called “%(name)s”."),
    "fb.unknown_article": N_("There is no article called “%(name)s”."),
    "fb.unknown_card": N_("There is no card called “%(name)s”."),
    "fb.unknown_field": N_("This move has no field called “%(name)s”."),
    "fb.wait_bid": N_("It is %(turn_seat)s's turn to bid."),
    "fb.wait_choose": N_("%(first_seat)s, the first buyer, is choosing the next card to auction."),
    "fb.wait_order": N_("%(first_seat)s, the first buyer, is giving the order of sale."),
    "fb.wait_specials": N_("It is %(turn_seat)s's turn to play special cards."),
    "fb.which_monopoly": N_(
        "%(target_seat)s holds several monopolies: name the article to put up for auction."
    ),
    # Keys the site builds or passes along: form and play errors, options, statuses
    "api.error.body": N_("Send a JSON object with a “turn” string and a “move” object."),
    "export.notes": N_("My notes"),
    "api.error.notes": N_("Send a JSON object with a “text” string."),
    "api.error.fields": N_(
        "Send a JSON object with the fields this route reads, each of its type: see /api/v1/openapi.json."
    ),
    "api.error.signed_out": N_(
        "Sign in on this device first: this acts for the player signed in, by the pages' session."
    ),
    "api.error.json": N_("The body is not JSON that can be read (or it is nested too deeply)."),
    "api.error.move": N_("The rules cannot read this move: see legal_moves for its shape."),
    "error.csrf": N_(
        "This form is too old, or did not come from this site. Go back, reload the page and send it again: nothing was changed."
    ),
    "error.http.400": N_("That request could not be understood."),
    "error.http.403": N_("That is not allowed."),
    "error.http.404": N_(
        "This page does not exist, or this link is no longer valid. Use the link in your most recent mail."
    ),
    "error.http.405": N_("That page cannot be used this way."),
    "error.http.409": N_("That no longer fits the game as it stands."),
    "error.http.413": N_("That request is too large."),
    "error.http.415": N_("Send this request as application/json."),
    "error.http.429": N_("Too many requests: wait a minute and try again."),
    "error.http.500": N_(
        "Something went wrong on our side. Nothing you sent was lost; try again in a moment."
    ),
    "error.http.503": N_(
        "The database is not answering just now. Nothing you sent was changed; try again in a minute."
    ),
    "error.no_game": N_("There is no such game."),
    "error.no_seat": N_("There is no such seat in this game."),
    "extend.error.days": N_("Add from 1 to 14 days."),
    "extend.error.no_deadline": N_("That player has no deadline running now."),
    "extend.error.not_creator": N_("Only the player who started the game can add time."),
    "join.error.share": N_("Your share of the deal holds at most %(limit)s characters."),
    "join.error.not_creator": N_("Only the player who started the game can call it off."),
    "join.error.not_forming": N_("This game has already started or been called off."),
    "join.status.declined": N_("declined"),
    "join.status.invited": N_("not answered yet"),
    "join.status.joined": N_("in"),
    "list.and": N_(" and "),
    "list.or": N_(" or "),
    "lobby.about.colour-bazaar": N_("a Decktet card game of fashion and investment by P.D. Magnus"),
    "lobby.about.fantasy-business": N_("auctions, secret prices and a fair amount of bluff"),
    "lobby.error.absent_after": N_("Choose from 1 to 10 missed moves."),
    "lobby.error.creator_computer": N_(
        "The first player is the creator: a person, not a computer."
    ),
    "lobby.error.days_per_move": N_("Choose from 1 to 14 days per move, or no limit."),
    "clock.nothing": N_("nothing"),
    "lobby.error.clock": N_("Choose a clock: days per move, Fischer or time bank."),
    "lobby.error.clock_no_limit": N_("A Fischer clock or a time bank needs days per move."),
    "lobby.error.clock_add": N_("Choose from 1 to 7 days added after each move."),
    "lobby.error.clock_cap": N_(
        "The most days on a clock or in a bank go from 1 to 60, and a Fischer clock holds "
        "at least its days per move."
    ),
    "lobby.error.days_off": N_("Leave at least one weekday on which the clocks run."),
    "lobby.error.email_invalid": N_("The email address of player %(number)s does not look right."),
    "lobby.error.email_twice": N_("%(email)s appears twice: each player needs their own address."),
    "league.error.address": N_("“%(address)s” is not a mail address."),
    "league.error.format": N_("Choose round robin or Swiss."),
    "league.error.full": N_("This league is full."),
    "league.error.invites": N_("Invite at most %(most)s addresses at once."),
    "league.error.most_players": N_("A league has between 2 and %(most)s players."),
    "league.error.name": N_("The league needs a name."),
    "league.error.none": N_("There is no such league."),
    "league.error.not_forming": N_("This league has already started."),
    "league.error.not_invited": N_("This league takes only the players its organiser invited."),
    "league.error.not_organiser": N_("Only the league's organiser can do that."),
    "league.error.organiser_stays": N_("The organiser cannot leave a league before it starts."),
    "league.error.rounds": N_("A league plays at most %(most)s rounds."),
    "league.error.sign_in": N_("Sign in first: a league needs to know who you are."),
    "league.error.table_size": N_(
        "This game seats between %(low)s and %(high)s players at a table."
    ),
    "league.error.too_few": N_("A league needs at least %(count)s players who have joined."),
    "league.error.too_many": N_("The league takes at most %(most)s players."),
    "league.format.round_robin": N_("a round robin"),
    "league.format.swiss": N_("Swiss rounds"),
    "lobby.error.level": N_("Choose a computer level: beginner, casual or strong."),
    "lobby.error.name_missing": N_("Player %(number)s needs a name."),
    "lobby.error.no_such_game": N_("Choose one of the games offered."),
    "lobby.error.reminders": N_(
        "Reminders are written like “24h, 80%%”: hours after the turn began, or a share of the time allowed (at most 6)."
    ),
    "lobby.level.beginner": N_("computer, beginner"),
    "lobby.level.casual": N_("computer, casual"),
    "lobby.level.strong": N_("computer, strong"),
    "option.colour-bazaar.courts": N_("Add the four Courts (extended deck, royal edicts)"),
    "option.colour-bazaar.first": N_("Who plays first"),
    "option.fantasy-business.auction": N_("Auctions"),
    "option.fantasy-business.auction.open": N_("Open: bidding goes round in turn"),
    "option.fantasy-business.auction.orders": N_(
        "By mail: limits set in advance, a few turns a round (recommended)"
    ),
    "option.fantasy-business.auction.sealed": N_("Sealed bids: everyone bids once, in secret"),
    "option.fantasy-business.specials": N_("Special cards"),
    "option.fantasy-business.specials.none": N_("None"),
    "option.fantasy-business.specials.standard": N_("The 24 cards of the rules"),
    "option.player_n": N_("Player %(number)s"),
    "option.random": N_("Chosen at random"),
    "leave.error.not_active": N_("You can only leave a game while it is being played."),
    "play.error.not_active": N_("This game is not being played now."),
    "play.error.not_your_turn": N_("It is not your turn."),
    "play.error.left": N_("You left this game: a computer player plays your seat now."),
    "play.error.stale": N_("This turn was already played."),
    "play.source.ahead": N_("planned ahead"),
    "play.source.cli": N_("by the host"),
    "play.source.computer": N_("computer"),
    "play.source.left": N_("the player left: a computer plays the seat"),
    "play.source.standing": N_("standing order"),
    "play.source.timeout": N_("time ran out"),
    "takeback.error.asked": N_(
        "You asked to take back this move already: one request for each move."
    ),
    "takeback.error.computer": N_(
        "A computer player moves next: it cannot agree to take a move back."
    ),
    "takeback.error.lapsed": N_(
        "Too late: the next move was played, so the request to take back lapsed."
    ),
    "takeback.error.none": N_("There is no request to take back a move for you to answer."),
    "takeback.error.nothing": N_(
        "You have no move to take back now: only your last move, until the next player moves."
    ),
    "takeback.error.pending": N_(
        "A request to take back a move is already waiting for its answer."
    ),
    "takeback.error.replay": N_(
        "The game could not be rebuilt without the move, so nothing changed."
    ),
    "rematch.error.not_over": N_("A rematch can only follow a finished game."),
    "rules.kind.ace": N_("Aces (rank 1)"),
    "rules.kind.court": N_("Courts (with the option)"),
    "rules.kind.crown": N_("Crowns"),
    "rules.kind.numeral": N_("Numbered cards"),
    "rules.kind.pawn": N_("Pawns (they start the markets)"),
    "rules.option.colour-bazaar.courts": N_(
        "The four Courts join the deck, and laying one calls a royal edict."
    ),
    "rules.option.colour-bazaar.first": N_("By lot, unless you choose who starts."),
    "rules.option.fantasy-business.auction": N_(
        "By mail (the default), everyone sends limits for all the cards at once, as described above. Open auctions go round the table bid by bid; with sealed bids everyone bids once, in secret, and the highest bid wins (ties go to the first in turn order from the first buyer)."
    ),
    "rules.option.fantasy-business.specials": N_(
        "Play with the special cards, or with articles alone."
    ),
    "rules.position.all_equal": N_("everyone asks the same: counts as lowest"),
    "rules.position.highest": N_("highest"),
    "rules.position.lowest": N_("lowest"),
    "rules.position.middle": N_("in between"),
    "rules.special.antitrust": N_(
        "Name another player who alone owns an article: all their cards of it are auctioned to the others, and they get the money."
    ),
    "rules.special.defaulting": N_(
        "Name another player: their buyer does not pay, so they earn nothing this round (their prices still count)."
    ),
    "rules.special.defective": N_(
        "Name another player and an article of theirs: those cards sell nothing this round and their price is left out."
    ),
    "rules.special.subsidy": N_("Receive 5 écus from the bank."),
    "rules.special.theft": N_("Pick an article card from another player and keep it."),
    "settings.error.allowance": NN_(
        "That is more than the %(left)s day of vacation you have left this year.",
        "That is more than the %(left)s days of vacation you have left this year.",
        "left",
    ),
    "settings.error.already_away": N_("You already have a vacation set."),
    "settings.error.days": N_("A vacation lasts from 1 to %(high)s days."),
    "settings.error.lang": N_("Choose one of the languages offered."),
    "settings.error.not_away": N_("You are not on vacation now."),
    "settings.error.notify": N_("Choose which mails you want."),
    "settings.error.tz": N_("Choose a time zone from the list."),
    "settings.notify.digest": N_(
        "One mail a day (at 8:00) listing the games waiting for me, and reminders"
    ),
    "settings.notify.every": N_("A mail every time it is my turn, and reminders"),
    "settings.notify.none": N_("No turn mails and no reminders (I check the site myself)"),
    "settings.notify.reminders": N_("Only reminders when a move has waited"),
    # A player's mail turned back on, or their address changed (pbem.mailfix.fix)
    "mailfix.error.expired": N_(
        "This link has expired: it works for %(days)s days. Ask for a new one from the page of "
        "any of your games."
    ),
    "mailfix.error.invalid": N_("That does not look like an email address."),
    "mailfix.error.same": N_(
        "That is the address we mail now. If it is right, ask for a test mail instead."
    ),
    "mailfix.error.stale": N_(
        "Your address has changed since this link was mailed: it no longer applies."
    ),
    "mailfix.error.taken": N_(
        "Another player on pbem has that address already: give an address of your own."
    ),
    "mailfix.error.too_many": N_(
        "You have asked for this as often as a day allows. Try again after %(time)s."
    ),
    "notes.error.long": N_("Notes hold at most %(limit)s characters."),
    "verify.not_an_export.bad": N_("This is not the JSON export of a pbem game."),
    "verify.not_over.bad": N_(
        "This game is not over: its seed and moves are shown only at the end."
    ),
    "verify.no_deal.ok": N_("This game predates checkable deals: its replay alone is checked."),
    "verify.deal_unreadable.bad": N_("The revealed secret, salt or shares cannot be read."),
    "verify.shares_count.bad": N_("The deal does not hold one share per player."),
    "verify.sealed.ok": N_(
        "The server's secret and salt match the seal published before anyone joined."
    ),
    "verify.sealed.bad": N_(
        "The server's secret and salt do not match the seal published before anyone joined."
    ),
    "verify.seed.ok": N_("The secret and the players' shares give the seed %(seed)s."),
    "verify.seed.bad": N_("The secret and the players' shares do not give the seed %(seed)s."),
    "verify.committed.ok": N_("The seed matches the commitment published when the game started."),
    "verify.committed.bad": N_(
        "The seed does not match the commitment published when the game started."
    ),
    "verify.setup.bad": N_("The game cannot be set up from these options and this seed."),
    "verify.move_missing.bad": N_("Move %(ply)s is missing from the export."),
    "verify.move_illegal.bad": N_("Move %(ply)s is not legal in the replay from this seed."),
    "verify.moves.ok": N_("All %(count)s moves are legal in the replay from this seed."),
    "verify.result.ok": N_("The replay ends with the logged result."),
    "verify.result.bad": N_("The replay does not end with the logged result."),
    "talk.error.closed": N_("This game was called off."),
    "talk.error.empty": N_("Write something first."),
    "talk.error.long": N_("A message holds at most %(limit)s characters."),
    "talk.error.recipient": N_("Send it to everyone or to one of the other players."),
    # Moves by mail (pbem.mailin, the text-move parsers) and chat-room webhooks
    "mailmove.error.ambiguous": NN_(
        "That fits %(count)s move: say more (the market, the chip, the player or the article).",
        "That fits %(count)s different moves: say more (the market, the chip, the player or the article).",
        "count",
    ),
    "mailmove.error.empty": N_("No move found in your mail."),
    "mailmove.error.game_not_active": N_("This game is not being played now."),
    "mailmove.error.no_card": N_("Say which card you play."),
    "mailmove.error.no_chip": N_("Say which chip you take."),
    "mailmove.error.no_match": N_("That is not one of your legal moves now."),
    "mailmove.error.limit_missing": N_("A limit is missing for card %(number)s."),
    "mailmove.error.limits_count": NN_(
        'Give one limit per card: %(count)s number, in the order of sale, or names with numbers, for example "swords 6, horses 8".',
        'Give one limit per card: %(count)s numbers, in the order of sale, or names with numbers, for example "swords 6, horses 8".',
        "count",
    ),
    "mailmove.error.no_number": N_("Say the number."),
    "mailmove.error.no_order": NN_(
        'Give the order of sale: the %(count)s card\'s number or name, for example "order 3 1 2".',
        'Give the order of sale: the %(count)s cards\' numbers or names, first sold first, for example "order 3 1 2".',
        "count",
    ),
    "mailmove.error.no_prices": N_(
        'Give a price for each article you sell, for example "swords 6, horses 8".'
    ),
    "mailmove.error.not_from_player": N_(
        "This mail does not come from the address of this seat's player."
    ),
    "mailmove.error.not_in_hand": N_("%(card)s is not in your hand."),
    "mailmove.error.not_in_row": N_('"%(word)s": no such card left in the row.'),
    "mailmove.error.plan_line": N_(
        'A plan line reads "if <their move> then <your move>" ("and if … then …" under one).'
    ),
    "mailmove.error.play_and_discard": N_("Play or discard, not both."),
    "mailmove.error.price_missing": N_("A price is missing for %(article_card)s."),
    "mailmove.error.price_twice": N_("%(article_card)s has two prices."),
    "mailmove.error.stale": N_("The turn you answered has already been played."),
    "mailmove.error.two_numbers": N_("There are two numbers where one is expected."),
    "mailmove.error.unknown_word": N_('"%(word)s" is not part of a move.'),
    "play.source.mail": N_("by mail"),
    "webhook.error.https": N_("Webhook addresses must start with https://."),
    "webhook.error.kind": N_("Choose Discord, Slack or generic JSON."),
    "webhook.error.not_creator": N_(
        "Only the game's creator can add a webhook for the whole table."
    ),
    "webhook.error.not_found": N_("There is no such webhook."),
    "webhook.error.private": N_("That address is inside a private network."),
    "webhook.error.too_many": N_("You have as many webhooks as allowed; remove one first."),
    "webhook.error.url": N_("That is not a web address a webhook can use."),
    "webhook.own.deadline_warning": N_(
        "%(name)s, %(left)s left for your move in %(title)s (until %(deadline)s): %(link)s"
    ),
    "webhook.own.game_over": N_("%(title)s is over: %(winners)s won. Results: %(link)s"),
    "webhook.own.reminder": N_("%(name)s, %(title)s is still waiting for your move: %(link)s"),
    "webhook.own.takeback_asked": N_(
        "%(name)s, you are asked to allow or refuse taking back the last move in %(title)s: "
        "%(link)s"
    ),
    "webhook.own.takeback_refused": N_(
        "%(name)s, taking back your move in %(title)s was refused: %(link)s"
    ),
    "webhook.own.taken_back": N_(
        "%(name)s, your move in %(title)s was taken back: you play it again: %(link)s"
    ),
    "webhook.own.your_turn": N_("%(name)s, your move in %(title)s: %(link)s"),
    "webhook.table.deadline_warning": N_(
        "%(title)s: %(left)s left for %(name)s to move. Watch: %(link)s"
    ),
    "webhook.table.game_over": N_("%(title)s is over: %(winners)s won. Results: %(link)s"),
    "webhook.table.mail_bouncing": N_(
        "%(title)s: pbem can no longer reach %(name)s by mail, so they may not know when it is "
        "their turn. Reach them another way if you can. Watch: %(link)s"
    ),
    "webhook.table.reminder": N_("%(title)s is still waiting for %(name)s. Watch: %(link)s"),
    "webhook.table.takeback_asked": N_(
        "%(title)s: %(name)s is asked to let the last move be taken back. Watch: %(link)s"
    ),
    "webhook.table.takeback_refused": N_(
        "%(title)s: %(name)s may not take back their move. Watch: %(link)s"
    ),
    "webhook.table.taken_back": N_(
        "%(title)s: %(name)s took back their move and plays it again. Watch: %(link)s"
    ),
    "webhook.table.your_turn": N_("%(title)s: it is %(name)s's move. Watch: %(link)s"),
    # Allowances over a sliding window (pbem.storage.allowance, pbem.players.invitations):
    # %(time)s is when the next act fits, in the reader's zone ("Thu 5 Mar, 14:05 (UTC)").
    "limit.inviteanon": N_(
        "These invitations would take the games made from your network without signing in "
        "past %(count)s invitations in 24 hours. Sign in to send them as yourself, or try "
        "again after %(time)s."
    ),
    "limit.invitedto": N_(
        "These addresses cannot be invited just now: %(who)s. An address gets at most "
        "%(count)s invitations in 24 hours, none from a player it has said no to, and none "
        "once it has turned its mail off. Leave them out to invite the others."
    ),
    "limit.invitesent": N_(
        "These invitations would take you past %(count)s in 24 hours, the most a player may "
        "send. Try again after %(time)s."
    ),
    "limit.leaguejoin": N_(
        "You have joined or answered as many leagues as an hour allows (%(count)s). Try "
        "again after %(time)s."
    ),
    "limit.newgame": N_(
        "Your network has started as many games and leagues as an hour allows (%(count)s). Try "
        "again after %(time)s."
    ),
    "limit.open": N_(
        "You already have %(count)s open tables waiting for players: withdraw one, or wait "
        "until one fills, before posting another."
    ),
    "limit.openjoin": N_(
        "You have taken as many open seats as 24 hours allow (%(count)s). Try again after %(time)s."
    ),
    "limit.openpost": N_(
        "You have posted as many open tables and seeks as 24 hours allow (%(count)s). Try "
        "again after %(time)s."
    ),
    "limit.signin": N_(
        "Your network has asked for as many sign-in links as an hour allows (%(count)s). Try "
        "again after %(time)s."
    ),
    # Open tables and standing seeks (pbem.opentables)
    "open.error.bad_range": N_(
        "A rating range goes from %(low)s to %(high)s, the lowest first: leave an end empty for no bound."
    ),
    "open.error.blocked": N_("You cannot take a seat at this table."),
    "open.error.closed": N_(
        "This table is no longer open: it has filled and started, or it was called off."
    ),
    "open.error.full": N_("Every seat at this table is taken."),
    "open.error.lang": N_("Choose a language from the list."),
    "open.error.page": N_("There is no such page of open tables."),
    "open.error.range": N_("Your rating in this game is outside the range this table asks for."),
    "open.error.seated": N_("You already have a seat at this table."),
    "open.error.seats": N_("Choose as many players as the game allows."),
    "open.error.seeks": N_("You can keep at most %(limit)s standing seeks: remove one first."),
    "report.error.barred": N_(
        "The operator of this server barred your account from open tables, leagues and ratings."
    ),
    "report.error.long": N_("Say why in at most %(most)s characters."),
    "report.error.many": N_(
        "You have sent %(most)s reports in the last 24 hours, the most allowed. Try again after "
        "%(time)s."
    ),
    "report.error.off": N_("This server takes no reports."),
    "report.error.reason": N_("Say why you report this player."),
    "report.error.self": N_("You cannot report yourself."),
    "report.error.who": N_("There is no such player or message to report."),
}
