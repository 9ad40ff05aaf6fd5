"""Sequence Numbers (Jax, "Sequence game of add & subtract"): docs/rules/sequence_numbers.md.

Kind: 2–6 seats, turn by turn (no simultaneous moves), chance (the deal and each draw), hidden
information (hands and the deck order). On its turn a seat may exchange one dead card, then plays
one card onto its face-up discard pile: an equation card puts its team's chip on a free cell
showing the result, PLUS on any free non-corner cell, MINUS removes another team's unlocked chip.
Then it draws. Five in a line (corners count for every team) make a locked sequence (the seat
chooses which five when its fives exclude one another); one sequence wins with 2–3 seats, two with
4–6.

Modules: ``data`` (the board and deck, generated once by ``gen_data``), ``rules`` (a package, one
module per seam: ``board``, ``cards``, ``state``, ``sequences``, ``turn`` and the consistency
``check``), ``bots`` (the ``heuristic`` player), ``engine`` (the shared protocol and ``ENGINE``,
the registered engine).

Decisions (docs/rules/sequence_numbers.md, where the rulebook is silent):
- Board and deck [decision]: the fixed, versioned tables in ``data``: 10 × 10 cells, the four
  corners free, 1..48 twice each (the two cells at Chebyshev distance >= 3); 96 equation cards
  (two per number, operands 0..60), 2 PLUS, 2 MINUS. Cells are ``row × 10 + column``.
- Seats and teams: 2 or 3 seats play individually; 4 seats as 2 teams of 2; 6 seats as 2 teams
  of 3 (the usual) or 3 teams of 2 (option ``teams``); 5 seats is rejected. Seating alternates:
  seat ``i`` is on team ``i mod teams``. Hands hold 5 cards with 2–3 seats, 4 with 4–6. Seat 0
  starts, then seats play in order.
- Dead card: an equation card both of whose cells hold a chip (of any team); PLUS and MINUS are
  never dead. At most one exchange per turn, before the play; the replacement may be played in
  the same turn.
- Playable: an equation card with a free cell of its result, PLUS while a non-corner cell is
  free, MINUS while another team has a chip outside every sequence. No playable card at all
  [decision]: the seat's actions are "discard one card and draw" (and still the dead-card
  exchange, if not used), so a game never gets stuck.
- The draw is automatic (the seed's "loss of card" and "table talk" rules do not apply). When a
  draw empties the deck, all discard piles (the card just played included) are shuffled at once
  into a new deck, so the deck is never empty between turns.
- Sequences: five cells in a line, each the team's chip or a corner (corners count for every
  team, in any number of sequences); a sequence's chips are locked. After a placement, only
  fives through the placed cell can be new. A five is new when it shares at most one cell with
  each earlier sequence of its team [decision, as in classic Sequence], or, with the option
  ``sequence_overlap`` ``ANY``, when it is not one of them (the rulebook: "any chips of the first
  sequence may be used as part of the second").
- Choosing the five: the player turns over the five chips they choose. The fives a play
  completes that exclude no other (share no more than the option allows with each other) are
  all locked at once, in scan order; when some exclude one another (a line of six or more), the
  seat stays to act, before its draw, and chooses one (``ChooseSequence``; the choice is public
  in views and events). [decision] Every five left that still counts is then locked the same
  way, or offered again, so a play locks as many fives as the choices allow: a line of nine
  makes two sequences when an end five is chosen, one when the middle five is. [decision] With
  ``ANY`` fives never exclude one another, so there is no choice: every five is locked, and a
  line of six completed at once is two sequences. Scan order (for listing and locking)
  [decision]: rows, then columns, then diagonals down-right, then diagonals down-left; along a
  line, the five starting nearest the top (left, for rows) first. While a choice is pending
  nothing else can happen (no exchange, no play), and the chips left out of the chosen five stay
  unlocked: a later MINUS may remove them.
- Winning: the team that first has its sequences wins at once, once the seat has chosen its
  play's fives (the choice is made even when the play wins); the winning play is not followed by
  a draw. [decision] After 600 turns without a winner the game is a draw (termination
  TURN_LIMIT). Scores are each seat's team's sequence count.
- Visibility: the board, sequences, discard piles, hand sizes, deck size, whether the seat to
  act has exchanged and a pending choice of five are public; hands are seen only by their seat
  (teammates included: no table talk); the deck order and the generator state never.
"""

from engines.sequence_numbers.engine import ENGINE
from engines.sequence_numbers.rules import GAME_ID, Action, Options, State, View

__all__ = ["ENGINE", "GAME_ID", "Action", "Options", "State", "View"]
