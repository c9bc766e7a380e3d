// The redirect path's in-process cache of resolved links, keyed by domain key and slug.
// Every change to a link invalidates its entries, so an update applies from the next click.
export interface CacheKey {
  domainKey: string;
  slug: string;
}

export interface LinkCacheInvalidator {
  /** Drops the cached entries; throws when the invalidation could not be completed. */
  invalidate(keys: CacheKey[]): Promise<void>;
}

export class RedirectCache<T> implements LinkCacheInvalidator {
  private readonly entries = new Map<string, T>();
  constructor(private readonly maxEntries = 100_000) {}

  static keyOf(k: CacheKey): string {
    return `${k.domainKey}\u0000${k.slug}`;
  }
  get(k: string): T | undefined {
    return this.entries.get(k);
  }
  set(k: string, value: T): void {
    if (this.entries.size >= this.maxEntries) {
      // Evict the oldest insertion: Map iterates in insertion order.
      const first = this.entries.keys().next().value;
      if (first !== undefined) this.entries.delete(first);
    }
    this.entries.set(k, value);
  }
  delete(k: string): void {
    this.entries.delete(k);
  }
  clear(): void {
    this.entries.clear();
  }
  async invalidate(keys: CacheKey[]): Promise<void> {
    for (const k of keys) this.entries.delete(RedirectCache.keyOf(k));
  }
  get size(): number {
    return this.entries.size;
  }
}
