// Every game's part of the page, by game id: the page's one list of games (GameId is its keys),
// the registry's (engines/registry.py), which tests/test_game_lists.py checks it against.
import type { GameUi } from "../ui.ts";
import { foraDeOrdem } from "./fora_de_ordem.ts";
import { sequenceNumbers } from "./sequence_numbers.ts";
import { sixNimmt } from "./six_nimmt.ts";
import { upOrDown } from "./up_or_down.ts";

export const UIS = {
  six_nimmt: sixNimmt,
  sequence_numbers: sequenceNumbers,
  up_or_down: upOrDown,
  fora_de_ordem: foraDeOrdem,
} as const satisfies Record<string, GameUi>;
