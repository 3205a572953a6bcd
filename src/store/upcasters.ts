/**
 * Old events stay as they were written; readers see them in the current shape. An upcaster lifts the data
 * of one event type from schema version N to N+1, and reads chain them up to the newest version. A type may also
 * be stored in a form of its own at its newest version (a compact encoding): its decoder gives readers the shape
 * older versions upcast to, and its writer encodes.
 */
export type Upcaster = (data: any) => unknown;

export class Upcasters {
  readonly #byType = new Map<string, Map<number, Upcaster>>();
  readonly #decoders = new Map<string, { version: number; decode: Upcaster }>();

  register(type: string, fromVersion: number, upcast: Upcaster): this {
    let versions = this.#byType.get(type);
    if (!versions) this.#byType.set(type, (versions = new Map()));
    versions.set(fromVersion, upcast);
    return this;
  }

  /** Events of `type` at `version` are stored encoded; `decode` reads them in the shape the upcasters lead to. */
  registerDecoder(type: string, version: number, decode: Upcaster): this {
    this.#decoders.set(type, { version, decode });
    return this;
  }

  /** The schema version new events of this type are written with. */
  currentVersion(type: string): number {
    const decoder = this.#decoders.get(type);
    if (decoder) return decoder.version;
    const versions = this.#byType.get(type);
    return versions ? Math.max(...versions.keys()) + 1 : 1;
  }

  upcast(type: string, schemaVersion: number, data: unknown): { data: unknown; schemaVersion: number } {
    const decoder = this.#decoders.get(type);
    if (decoder?.version === schemaVersion) return { data: decoder.decode(data), schemaVersion };
    const versions = this.#byType.get(type);
    if (!versions) return { data, schemaVersion };
    let version = schemaVersion;
    let current = data;
    for (let step = versions.get(version); step; step = versions.get(version)) {
      current = step(current);
      version += 1;
    }
    return { data: current, schemaVersion: version };
  }
}
