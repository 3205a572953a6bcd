/**
 * Old events stay as they were written; readers see them in the current shape. An upcaster lifts the data
 * of one event type from schema version N to N+1, and reads chain them up to the newest version.
 */
export type Upcaster = (data: any) => unknown;

export class Upcasters {
  readonly #byType = new Map<string, Map<number, Upcaster>>();

  register(type: string, fromVersion: number, upcast: Upcaster): this {
    let versions = this.#byType.get(type);
    if (!versions) this.#byType.set(type, (versions = new Map()));
    versions.set(fromVersion, upcast);
    return this;
  }

  /** The schema version new events of this type are written with. */
  currentVersion(type: string): number {
    const versions = this.#byType.get(type);
    return versions ? Math.max(...versions.keys()) + 1 : 1;
  }

  upcast(type: string, schemaVersion: number, data: unknown): { data: unknown; schemaVersion: number } {
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
