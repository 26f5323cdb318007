/** A fixed-capacity buffer that keeps the latest `capacity` items, oldest first when read. */
export class RingBuffer<T> {
  readonly #items: (T | undefined)[];
  #next = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    this.#items = new Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size += 1;
  }

  /** The kept items, oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    for (let i = 0; i < this.#size; i++) out.push(this.#items[(start + i) % this.capacity] as T);
    return out;
  }
}
