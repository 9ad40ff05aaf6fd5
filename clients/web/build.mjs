// Builds the playground into service/playground/, the server's package data that the HTTP door
// serves at /: index.html, app.js (esbuild bundle), styles.css and favicon.svg. Each
// game's rules summary is the `## Summary` section of docs/rules/<game>.md, turned into HTML here
// and bundled, so the rules are written once, in the player docs.
import { build } from "esbuild";
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const dist = join(root, "service", "playground");
const GAMES = ["six_nimmt", "sequence_numbers", "up_or_down", "fora_de_ordem"];

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
export function markdownToHtml(markdown) {
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
  for (const raw of markdown.split("\n")) {
    const line = raw.trimEnd();
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const heading = /^#{3,6}\s+(.*)$/.exec(line);
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
      html.push(`<h4>${inline(heading[1])}</h4>`);
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
  return html.join("\n");
}

export function summarySection(markdown, file) {
  const match = /^## Summary[ \t]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown);
  if (!match) throw new Error(`${file} has no "## Summary" section`);
  return match[1].trim();
}

async function summaries() {
  const missing = [];
  const found = {};
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
  }
  if (missing.length) {
    throw new Error(
      `the playground shows each game's rules from the player docs, and these are missing:\n  ${missing.join("\n  ")}`,
    );
  }
  return found;
}

async function main() {
  const rules = await summaries();
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
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
