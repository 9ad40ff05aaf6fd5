// The page speaks the browser's language where a game has one (Fora de Ordem's question bank):
// the first of the browser's languages that an option offers, English when none matches.
import type { OptionInfo } from "./types.ts";

const FALLBACK = "EN";

/** The allowed value of a `language` option that matches `languages` (the browser's, in order of
 * preference: "pt-BR", "en-GB"...), or English; null for any other option. */
export function preferredLanguage(
  option: OptionInfo,
  languages: readonly string[] = navigator.languages,
): string | null {
  if (option.name !== "language" || !option.allowedValues?.length) return null;
  const offered = option.allowedValues;
  const code = (value: string): string => value.toUpperCase().replace(/-/g, "_");
  for (const wanted of languages.map(code)) {
    const exact = offered.find((value) => value === wanted);
    const base = offered.find((value) => value.split("_")[0] === wanted.split("_")[0]);
    if (exact ?? base) return (exact ?? base)!;
  }
  return offered.find((value) => value === FALLBACK) ?? null;
}
