// Loads the playground's own sources in Node.js (bundled by esbuild, no browser) and answers the
// Python tests with JSON on stdout:
//
//   node test/sources.mjs games            the games the page has a part for (src/games/index.ts)
//                                          and the games build.mjs takes rules from
//   node test/sources.mjs notation < FILE  each case of FILE ([{function, arguments}], cards in
//                                          proto JSON) written by src/notation.ts
//
// tests/web/test_notation.py and tests/test_game_lists.py hold the answers to the engines'.
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { GAMES } from "../build.mjs";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The modules of the page the tests read, bundled into one ES module and imported. */
async function sources() {
  const bundled = await build({
    stdin: {
      contents: [
        'export * as notation from "./src/notation.ts";',
        'export { UIS } from "./src/games/index.ts";',
      ].join("\n"),
      resolveDir: web,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "warning",
  });
  const code = bundled.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}

const { notation, UIS } = await sources();
const [command] = process.argv.slice(2);
if (command === "games") {
  console.log(JSON.stringify({ uis: Object.keys(UIS), build: GAMES }));
} else if (command === "notation") {
  const cases = JSON.parse(readFileSync(0, "utf8"));
  const written = cases.map(({ function: name, arguments: args }) => {
    const write = notation[name];
    return typeof write === "function" ? write(...args) : { missing: name };
  });
  console.log(JSON.stringify(written));
} else {
  console.error("usage: node test/sources.mjs games | notation < CASES.json");
  process.exit(2);
}
