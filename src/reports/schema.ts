import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';
import { BUNDLED_GOAML_SCHEMA } from '../package-files.js';
import type { Fiu } from './fiu.js';

/**
 * The schema as the source repository's two documented patches leave it: the person-name patterns lose the `^…$`
 * that XSD reads as literal characters (libxml2 refuses a plain `Sara` without this), and the e-mail pattern's `-`
 * moves to the end of its character class, where every validator reads it as a dash.
 */
export function patchedSchema(xsd: string): string {
  return xsd
    .replace(/<xs:pattern value="\^([^"]*)\$"/g, '<xs:pattern value="$1"')
    .replace('[_a-zA-Z0-9-+]+', '[_a-zA-Z0-9+-]+')
    .replace('[_a-zA-Z0-9-\\+]+', '[_a-zA-Z0-9+-]+');
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The schema with each code list the FIU configures put in place of the schema's own values. */
export function schemaForFiu(xsd: string, fiu: Pick<Fiu, 'codeLists'>): string {
  let out = xsd;
  for (const [type, values] of Object.entries(fiu.codeLists)) {
    const start = out.indexOf(`<xs:simpleType name="${type}">`);
    if (start < 0) throw new Error(`the goAML schema has no simple type ${type}`);
    const end = out.indexOf('</xs:simpleType>', start);
    const block = out.slice(start, end);
    const base = /<xs:restriction base="([^"]+)"/.exec(block)?.[1] ?? 'xs:string';
    const enumerations = values!.map((v) => `<xs:enumeration value="${escapeAttribute(v)}" />`).join('');
    out = `${out.slice(0, start)}<xs:simpleType name="${type}"><xs:restriction base="${base}">${enumerations}</xs:restriction>${out.slice(end)}`;
  }
  return out;
}

/** The shipped goAML 5.0.2 schema, read once. */
let shipped: string | undefined;
export const shippedSchema = (): string => {
  shipped ??= patchedSchema(readFileSync(BUNDLED_GOAML_SCHEMA, 'utf8'));
  return shipped;
};

export interface SchemaProblem {
  line: number | null;
  message: string;
}

/** libxml2's verdict on a report (xmllint-wasm): no problems when it is valid. */
export async function validateAgainst(xml: string, xsd: string): Promise<SchemaProblem[]> {
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'goaml.xsd', contents: xsd }],
  });
  return result.valid
    ? []
    : result.errors.map((e) => ({ line: e.loc?.lineNumber ?? null, message: e.message.replace(/^Schemas validity error : /, '') }));
}
