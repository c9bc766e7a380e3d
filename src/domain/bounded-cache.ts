// A map that forgets everything when it is full: a cache of parse results for a bounded set of
// hot keys (User-Agent strings), cheap to keep and unable to grow without bound.
export class BoundedCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string, make: (key: string) => V): V {
    let v = this.map.get(key);
    if (v === undefined) {
      if (this.map.size >= this.max) this.map.clear();
      v = make(key);
      this.map.set(key, v);
    }
    return v;
  }
  /** The value kept for `key`, if any. */
  peek(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, v: V): void {
    if (this.map.size >= this.max && !this.map.has(key)) this.map.clear();
    this.map.set(key, v);
  }
}
