"""6 nimmt! (Wolfgang Kramer, Amigo 1994): docs/rules/six_nimmt.md, seed "6 Fuori!".

Kind: 2–10 seats, chance (the deal of each hand), hidden information (hands), simultaneous
moves. Each turn every seat secretly selects a card (``Select``); when the last seat has
selected, the cards are revealed and placed in ascending order by Rules 1–4. A card lower than
every row (Rule 4) makes its seat the only seat to act until it takes a row (``ChooseRow``).

Decisions (docs/rules/six_nimmt.md):
- ``too_low_rule`` TAKE_CHEAPEST_ROW [decision]: the seed's "Ricorda" line as an automatic rule —
  the row with the fewest bullheads, then the fewest cards, then the lowest index.
- Zero card [decision]: with ``zero_card`` each seat holds a 0 card for the whole game and may
  select it once instead of a number card; it is revealed, never placed, and discarded. The hand
  still ends after 10 turns; the number card then left in that seat's hand is discarded without
  penalty. A seat's public hand size counts its zero card while it holds it, as at the table: a
  pending zero card then cannot be told from a number card by the hand sizes.
- ``end`` PENALTY_THRESHOLD (default 66) ends the game after the hand in which a total reaches the
  threshold, never mid-hand; FIXED_HANDS after a number of hands. Winners: every lowest total.
- Every hand re-deals the whole card set from the state's generator. The selections of a turn
  stay in the state while it is resolved (they are public once revealed); ``placed`` counts how
  many of them, in ascending order, are already on the table.

Bots: ``random`` picks any legal action. ``heuristic`` sees only what its seat may see; it selects
the card with the fewest expected bullheads this turn, plays its zero card when even its best card
is expected to cost a bullhead, and under Rule 4 takes the cheapest row (``bots``).

Modules: ``data`` (the cards and their bullheads), ``rules`` (values, the deal, the turn),
``check`` (the consistency check), ``bots`` (the ``heuristic`` player), ``search`` (the search
bot's parts), ``engine`` (the shared protocol and ``ENGINE``, the registered engine).
"""

from engines.six_nimmt.engine import ENGINE
from engines.six_nimmt.rules import GAME_ID, Action, Options, State, View

__all__ = ["ENGINE", "GAME_ID", "Action", "Options", "State", "View"]
