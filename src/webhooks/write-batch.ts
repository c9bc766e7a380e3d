// How the delivery worker (worker.ts) writes what many attempts in flight report at once.
/**
 * Gathers the writes that attempts in flight make at about the same moment into one statement
 * or transaction: under load, dozens of attempts share a write instead of each paying for one.
 */
export class WriteBatch<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly flushAll: (items: T[]) => Promise<R[]>,
    private readonly max = 256,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.max) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0);
    if (!batch.length) return;
    this.flushAll(batch.map((b) => b.item)).then(
      (results) => {
        for (const [i, b] of batch.entries()) b.resolve(results[i]);
      },
      (err) => {
        for (const b of batch) b.reject(err);
      },
    );
  }
}
