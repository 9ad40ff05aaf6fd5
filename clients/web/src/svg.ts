// Drawing in SVG, and the parts of a drawing a person can point at.
const NS = "http://www.w3.org/2000/svg";

export type Attrs = Record<string, string | number>;

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

/** A drawing of width × height units that scales to its container; `label` names it for readers. */
export function drawing(width: number, height: number, label: string): SVGSVGElement {
  return svgEl("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "group",
    "aria-label": label,
  });
}

export function text(
  parent: Element,
  x: number,
  y: number,
  value: string,
  attrs: Attrs = {},
): void {
  const el = svgEl(
    "text",
    { x, y, "text-anchor": "middle", "dominant-baseline": "central", ...attrs },
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
