// Builds the playground into service/playground/, the server's package data that the HTTP door
// serves at /: index.html, app.js (esbuild bundle), styles.css and favicon.svg. Each
// game's rules summary is the `## Summary` section of docs/rules/<game>.md (in another language,
// of docs/rules/<language>/<game>.md), turned into HTML here and bundled, and the whole of each
// page is rules/<game>.html, which the table links to: the rules are written once, in the player
// docs.
import { build } from "esbuild";
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const dist = join(root, "service", "playground");
// The games whose rules the playground shows: the registry's (engines/registry.py), checked by
// tests/test_game_lists.py.
export const GAMES = ["six_nimmt", "sequence_numbers", "up_or_down", "fora_de_ordem"];

const escape = (text) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// Inline Markdown: code spans first (their content stays literal), then bold and italics.
function inline(text) {
  return text
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith("`") && part.endsWith("`") && part.length > 1
        ? `<code>${escape(part.slice(1, -1))}</code>`
        : escape(part)
            .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
            .replace(/(^|[^*])\*([^*]+)\*/g, "$1<em>$2</em>")
            .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1"),
    )
    .join("");
}

// Block Markdown as the summaries use it: paragraphs, bullet and numbered lists, sub-headings.
// Headings go `headingShift` levels down: a summary's ### becomes the page's h4.
export function markdownToHtml(markdown, headingShift = 1) {
  const html = [];
  let list = null;
  let paragraph = [];
  const flushParagraph = () => {
    if (paragraph.length) html.push(`<p>${inline(paragraph.join(" "))}</p>`);
    paragraph = [];
  };
  const closeList = () => {
    if (list) html.push(`</${list}>`);
    list = null;
  };
  let fence = null;
  let table = null;
  const closeTable = () => {
    if (table) html.push(`</tbody></table>`);
    table = null;
  };
  for (const raw of markdown.split("\n")) {
    const line = raw.trimEnd();
    // Fenced blocks stay as they are written; pipe tables become tables.
    if (fence !== null) {
      if (/^```/.test(line)) {
        html.push(`<pre><code>${escape(fence.join("\n"))}</code></pre>`);
        fence = null;
      } else fence.push(raw);
      continue;
    }
    if (/^```/.test(line)) {
      flushParagraph();
      closeList();
      closeTable();
      fence = [];
      continue;
    }
    if (/^\|.*\|$/.test(line)) {
      flushParagraph();
      closeList();
      const cells = line
        .slice(1, -1)
        .split("|")
        .map((cell) => inline(cell.trim()));
      if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
      if (!table) {
        html.push(
          `<table><thead><tr>${cells.map((c) => `<th>${c}</th>`).join("")}</tr></thead><tbody>`,
        );
        table = true;
      } else html.push(`<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`);
      continue;
    }
    closeTable();
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (bullet || numbered) {
      flushParagraph();
      const kind = bullet ? "ul" : "ol";
      if (list !== kind) {
        closeList();
        html.push(`<${kind}>`);
        list = kind;
      }
      html.push(`<li>${inline((bullet ?? numbered)[1])}</li>`);
    } else if (heading) {
      flushParagraph();
      closeList();
      const level = Math.min(6, heading[1].length + headingShift);
      html.push(`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (line.trim() === "") {
      flushParagraph();
      closeList();
    } else if (list && /^\s+\S/.test(line)) {
      html[html.length - 1] = html[html.length - 1].replace(
        /<\/li>$/,
        ` ${inline(line.trim())}</li>`,
      );
    } else {
      closeList();
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  closeList();
  closeTable();
  return html.join("\n");
}

export function summarySection(markdown, file, heading = "Summary") {
  const match = new RegExp(`^## ${heading}[ \\t]*\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, "m").exec(
    markdown,
  );
  if (!match) throw new Error(`${file} has no "## ${heading}" section`);
  return match[1].trim();
}

// The summaries in other languages: docs/rules/<language>/<game>.md, each with the summary as its
// one "## " section (under the language's word for it). A language there must have every game.
async function translatedSummaries() {
  const rules = join(root, "docs", "rules");
  const found = {};
  for (const entry of await readdir(rules, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const game of GAMES) {
      const file = join(rules, entry.name, `${game}.md`);
      const text = await readFile(file, "utf8").catch(() => {
        throw new Error(`${file} is missing: a language's summaries cover every game`);
      });
      const heading = /^## (.+)$/m.exec(text)?.[1]?.trim() ?? "Summary";
      found[game] = {
        ...found[game],
        [entry.name]: markdownToHtml(summarySection(text, file, heading)),
      };
    }
  }
  return found;
}

// A rules page of its own: the whole of docs/rules/<game>.md, with the playground's styles.
function rulesPage(markdown) {
  const title = /^#\s+(.*)$/m.exec(markdown)?.[1] ?? "Rules";
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escape(title)}: rules</title>
    <link rel="icon" href="../favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="../styles.css" />
  </head>
  <body class="rules-page">
    <main>
${markdownToHtml(markdown, 0)}
    </main>
  </body>
</html>
`;
}

async function summaries() {
  const missing = [];
  const found = {};
  const pages = {};
  for (const game of GAMES) {
    const file = join(root, "docs", "rules", `${game}.md`);
    let text;
    try {
      text = await readFile(file, "utf8");
    } catch {
      missing.push(file);
      continue;
    }
    found[game] = markdownToHtml(summarySection(text, file));
    pages[game] = rulesPage(text);
  }
  if (missing.length) {
    throw new Error(
      `the playground shows each game's rules from the player docs, and these are missing:\n  ${missing.join("\n  ")}`,
    );
  }
  return { found, pages };
}

async function main() {
  const { found: english, pages } = await summaries();
  const translated = await translatedSummaries();
  const rules = Object.fromEntries(
    Object.entries(english).map(([game, html]) => [game, { en: html, ...translated[game] }]),
  );
  await rm(dist, { recursive: true, force: true });
  await mkdir(join(dist, "rules"), { recursive: true });
  for (const [game, page] of Object.entries(pages))
    await writeFile(join(dist, "rules", `${game}.html`), page);
  await build({
    entryPoints: [join(here, "src", "main.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    sourcemap: true,
    outfile: join(dist, "app.js"),
    define: { RULES_SUMMARIES: JSON.stringify(rules) },
    logLevel: "warning",
  });
  await copyFile(join(here, "src", "index.html"), join(dist, "index.html"));
  for (const file of ["styles.css", "favicon.svg"])
    await copyFile(join(here, "src", file), join(dist, file));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`clients/web: build failed: ${error.message}`);
    process.exit(1);
  });
}
