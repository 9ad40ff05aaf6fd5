"""Up or Down? (Wolfgang Kramer & Michael Kiesling, Abacusspiele 2024): RULES.md §3.

Kind: 2 to 6 seats, chance (the deal), hidden information (hands, the face-down pile, the face-up
pile below its top, discarded faces), sequential turns from seat 0. One action (``Turn``) is one
whole turn: the hand card played into the circle, the neighbour taken (``LOWER`` or ``HIGHER``),
where the taken card goes (``EXTEND`` a row, start a ``NEW_ROW``, or ``ABANDON`` a row and restart
it) and the pile drawn from. Every part is checked, and the legal actions list exactly the legal
combinations. The game ends when both piles and every hand are empty; then each row scores its
length times the count of its most common colour, plus the discard pile per ``discard_scoring``.

Decisions (RULES.md and this engine):
- Colours [decision]: the real table is not public; each block of six consecutive numbers holds
  the six colours once (``data.COLOUR_BLOCKS``, a fixed checked-in table).
- ``length`` SHORT (default, the seed's card sets) or LONG; ``discard_scoring`` PER_CARD
  (default, the seed) or PER_ROW [decision: the reading of one rules summary].
- The circle wraps: a card lower than the lowest or higher than the highest sits between the
  highest and the lowest, so its ``LOWER`` neighbour is the highest card and its ``HIGHER``
  neighbour the lowest. The circle is stored ascending.
- After the deal the rest of the cards are split with the face-down pile taking the larger half
  (one card more when the count is odd). Pile tops are the first card of each tuple.
- A row's direction is fixed by its first two cards; a row of one card accepts any card.
- Abandoning is always allowed ("cannot or do not want to"), for any row, even with fewer than
  3 rows. The abandoned row keeps its index and restarts with the taken card; a new row gets
  the next index.
- The turn names its pile: ``FACE_UP`` or ``FACE_DOWN`` while that pile has cards (when one is
  empty, only the other is legal), ``NONE`` only when both are empty.
- Visibility [decision]: a seat sees its own discard pile (it put the cards there); of the other
  seats' piles only the sizes and the number of abandoned rows are public. A card drawn from the
  face-down pile is told to its drawer alone; a card drawn from the face-up pile is public, and
  so is the new top.
- One action is one turn, so the state's revision counts the turns: seat ``revision % seats`` is
  to act, and the game is over after (highest card - 6) turns, when every hand is empty.
- Outcome: highest total wins, ties share the win (termination ``ALL_CARDS_PLAYED``).
"""

from engines.up_or_down.engine import ENGINE, UpOrDown
from engines.up_or_down.rules import (
    GAME_ID,
    NO_CARD,
    CardDrawn,
    DiscardScoring,
    Draw,
    GameScored,
    Neighbour,
    Options,
    Placement,
    State,
    Turn,
    TurnPlayed,
    View,
)

__all__ = [
    "ENGINE",
    "GAME_ID",
    "NO_CARD",
    "CardDrawn",
    "DiscardScoring",
    "Draw",
    "GameScored",
    "Neighbour",
    "Options",
    "Placement",
    "State",
    "Turn",
    "TurnPlayed",
    "UpOrDown",
    "View",
]
