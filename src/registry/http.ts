import type { CompanyRegistryRecord, CompanyType, IdentityKind, IdentityRecord, RegistryProvider } from './types.js';

export interface HttpRegistryOptions {
  /** e.g. https://registry.example/api; the provider answers the two paths below. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Adapter for a live identity/company registry behind HTTP:
 *   GET {baseUrl}/identities/{kind}/{number}        → 200 IdentityRecord | 404
 *   GET {baseUrl}/companies/{type}/{registration}   → 200 CompanyRegistryRecord | 404
 * A vendor with another contract gets its own small class implementing RegistryProvider.
 */
export class HttpRegistryProvider implements RegistryProvider {
  readonly #fetch: typeof fetch;
  constructor(private readonly options: HttpRegistryOptions) {
    this.#fetch = options.fetch ?? fetch;
  }

  identity(kind: IdentityKind, number: string): Promise<IdentityRecord | undefined> {
    return this.#get<IdentityRecord>(`identities/${encodeURIComponent(kind)}/${encodeURIComponent(number)}`);
  }

  company(type: CompanyType, registrationNumber: string): Promise<CompanyRegistryRecord | undefined> {
    return this.#get<CompanyRegistryRecord>(`companies/${encodeURIComponent(type)}/${encodeURIComponent(registrationNumber)}`);
  }

  async #get<T>(path: string): Promise<T | undefined> {
    const url = `${this.options.baseUrl.replace(/\/$/, '')}/${path}`;
    const res = await this.#fetch(url, {
      headers: { accept: 'application/json', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`registry answered ${res.status} for ${path}`);
    return (await res.json()) as T;
  }
}
