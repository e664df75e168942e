/**
 * @module
 * `StatefulObjectClient`: the spec's wrapper over a Durable Object namespace.
 * `get(name)` addresses one object per name (`idFromName`), which is how
 * Gatehouse keeps one object per user or per limited key, never one global object.
 */

export class StatefulObjectClient<T extends Rpc.DurableObjectBranded | undefined = undefined> {
  readonly #ns: DurableObjectNamespace<T>;

  constructor(namespace: DurableObjectNamespace<T>) {
    this.#ns = namespace;
  }

  /** The underlying binding. */
  get raw(): DurableObjectNamespace<T> {
    return this.#ns;
  }

  /**
   * The stub of the instance with that id. A string is a name (`idFromName`);
   * a 64-hex-digit string produced by `DurableObjectId.toString()` is still
   * treated as a name: pass the `DurableObjectId` itself to address by id.
   */
  get(id: string | DurableObjectId): DurableObjectStub<T> {
    const objectId = typeof id === "string" ? this.#ns.idFromName(id) : id;
    return this.#ns.get(objectId);
  }
}
