// The page's language: the first of the browser's languages the page speaks (English when none
// is), or the one a person chose with the switch, kept for their next visit. Every text comes
// from the catalogue of that language (src/messages/): `t()` is the catalogue in force. A new
// language is a catalogue file and one line in LANGUAGES.
import { en, type Messages } from "./messages/en.ts";
import { ptBR } from "./messages/pt-BR.ts";

export type { Messages };

/** Every language the page speaks, the first the fallback. */
export const LANGUAGES: readonly Messages[] = [en, ptBR];
const STORED = "ordo-playground-language";

let current: Messages = en;

/** The catalogue in force. */
export const t = (): Messages => current;

/** The language of `tags` (the browser's, in order of preference: "pt-BR", "en-GB"…) that the
 * page speaks: the same tag, else the same language ("pt-PT" reads "pt-BR"), else English. */
export function matchLanguage(tags: readonly string[]): Messages {
  const base = (tag: string): string => tag.toLowerCase().split("-")[0] ?? "";
  for (const tag of tags) {
    const found =
      LANGUAGES.find((lang) => lang.code.toLowerCase() === tag.toLowerCase()) ??
      LANGUAGES.find((lang) => base(lang.code) === base(tag));
    if (found) return found;
  }
  return LANGUAGES[0]!;
}

/** Puts a language in force (by its tag), and keeps a person's choice for their next visit. */
export function setLanguage(code: string, chosen = false): Messages {
  current = LANGUAGES.find((lang) => lang.code === code) ?? LANGUAGES[0]!;
  if (chosen) {
    try {
      localStorage.setItem(STORED, current.code);
    } catch {
      // Storage disabled: the choice lasts as long as the page.
    }
  }
  return current;
}

/** The language the page opens in: the one chosen before, else the browser's. */
export function initialLanguage(): Messages {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORED);
  } catch {
    stored = null;
  }
  return setLanguage(matchLanguage(stored ? [stored] : navigator.languages).code);
}
