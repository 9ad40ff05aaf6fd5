// Every game's part of the page, by game id.
import type { GameUi } from "../ui.ts";
import type { GameId } from "../types.ts";
import { foraDeOrdem } from "./fora_de_ordem.ts";
import { sequenceNumbers } from "./sequence_numbers.ts";
import { sixNimmt } from "./six_nimmt.ts";
import { upOrDown } from "./up_or_down.ts";

export const UIS: Record<GameId, GameUi> = {
  six_nimmt: sixNimmt,
  sequence_numbers: sequenceNumbers,
  up_or_down: upOrDown,
  fora_de_ordem: foraDeOrdem,
};
