// Hot reload: watches a rules directory and swaps in a new ruleset only if it passes the checker. Readers
// call current() per request, so a swap takes effect between requests and never half-way through one; a
// failing ruleset is reported through onError and the previous ruleset keeps serving.
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { CompiledRuleset } from './compiler.js';
import { RuleErrors } from './errors.js';
import { loadRuleset, type RulesetOptions } from './loader.js';

export interface ReloadOptions extends RulesetOptions {
  /** Called after a successful swap (not for the initial load). */
  readonly onSwap?: (next: CompiledRuleset, previous: CompiledRuleset) => void;
  /** Called when a changed ruleset is refused; `errors` are `file:line:col message` lines. */
  readonly onError?: (errors: readonly string[]) => void;
  /** Quiet period after the last change before reloading, so an editor's multi-file save loads once. */
  readonly debounceMs?: number;
}

export interface RulesetWatcher {
  current(): CompiledRuleset;
  /** Reloads now; resolves to whether a new ruleset was swapped in. */
  reload(): Promise<boolean>;
  close(): void;
}

export async function watchRuleset(dir: string, options: ReloadOptions = {}): Promise<RulesetWatcher> {
  let active = await loadRuleset(dir, options);
  let timer: NodeJS.Timeout | undefined;
  // Serialises reloads: a change arriving during a reload triggers another one after it.
  let pending: Promise<boolean> = Promise.resolve(false);

  async function load(): Promise<boolean> {
    try {
      const next = await loadRuleset(dir, options);
      if (next.version === active.version) return false;
      const previous = active;
      active = next;
      options.onSwap?.(next, previous);
      return true;
    } catch (e) {
      options.onError?.(e instanceof RuleErrors ? e.errors.map((d) => `${d.file}:${d.line}:${d.col} ${d.message}`) : [String(e)]);
      return false;
    }
  }

  const reload = (): Promise<boolean> => (pending = pending.then(load));
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), options.debounceMs ?? 100);
  };
  const watchers: FSWatcher[] = [watch(dir, schedule)];
  try {
    watchers.push(watch(join(dir, 'lists'), schedule));
  } catch {
    // No lists directory: nothing to watch there.
  }
  return {
    current: () => active,
    reload,
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
