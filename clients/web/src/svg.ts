// Drawing in SVG, and the parts of a drawing a person can point at.
const NS = "http://www.w3.org/2000/svg";

export type Attrs = Record<string, string | number>;

/** The smallest text a drawing writes, in units: drawings are laid out one unit a CSS pixel, so
 * no text is smaller than this on any screen. */
export const MIN_FONT = 12;

export function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  parent?: Element,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  parent?.appendChild(el);
  return el;
}

/** A drawing of width × height units that scales to its container; `label` names it for readers.
 * Laid out at the container's width (DrawContext.width), a unit is a CSS pixel. */
export function drawing(width: number, height: number, label: string): SVGSVGElement {
  return svgEl("svg", {
    viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`,
    role: "group",
    "aria-label": label,
  });
}

/** How many of `size` (with `gap` between) fit across `width`, at least one. */
export function fit(width: number, size: number, gap = 0): number {
  return Math.max(1, Math.floor((width + gap) / (size + gap)));
}

export function text(
  parent: Element,
  x: number,
  y: number,
  value: string,
  attrs: Attrs = {},
): void {
  const size = Math.max(MIN_FONT, Number(attrs["font-size"] ?? 16));
  const el = svgEl(
    "text",
    { x, y, "text-anchor": "middle", "dominant-baseline": "central", ...attrs, "font-size": size },
    parent,
  );
  el.textContent = value;
}

/** A group at (x, y) whose first child, the face, is the outline highlighted when it is a target. */
export function group(parent: Element, x: number, y: number, label?: string): SVGGElement {
  const g = svgEl("g", { transform: `translate(${x} ${y})` }, parent);
  if (label) {
    g.setAttribute("role", "img");
    g.setAttribute("aria-label", label);
  }
  return g;
}

export function rect(
  parent: Element,
  w: number,
  h: number,
  fill: string,
  attrs: Attrs = {},
): SVGRectElement {
  return svgEl(
    "rect",
    {
      width: w,
      height: h,
      rx: 6,
      fill,
      stroke: "#44506a",
      "stroke-width": 1.2,
      class: "face",
      ...attrs,
    },
    parent,
  );
}
