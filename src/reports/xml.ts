/** A goAML document as a tree: elements in schema order, leaves holding text. */
export type XmlNode = { name: string; text: string } | { name: string; children: XmlNode[] };

export const leaf = (name: string, text: string): XmlNode => ({ name, text });
export const node = (name: string, children: (XmlNode | undefined)[]): XmlNode => ({
  name,
  children: children.filter((c): c is XmlNode => c !== undefined),
});
/** An optional leaf: absent when there is no value. */
export const maybe = (name: string, text: string | null | undefined): XmlNode | undefined =>
  text === null || text === undefined || text === '' ? undefined : leaf(name, text);

/** Element text needs only these three escaped; quotes stay as written. */
const escapeText = (text: string) => text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

function write(n: XmlNode, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  if ('text' in n) {
    out.push(`${pad}<${n.name}>${escapeText(n.text)}</${n.name}>`);
  } else if (n.children.length === 0) {
    out.push(`${pad}<${n.name}/>`);
  } else {
    out.push(`${pad}<${n.name}>`);
    for (const c of n.children) write(c, depth + 1, out);
    out.push(`${pad}</${n.name}>`);
  }
}

/** UTF-8 XML with a declaration, two-space indented: the same tree always gives the same bytes. */
export function serialize(root: XmlNode): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  write(root, 0, out);
  return `${out.join('\n')}\n`;
}
