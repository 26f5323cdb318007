/**
 * Thrown by a request layer that needs the caller's input before it can go on (a plugin's question to a
 * 2026-07-28 client): the layer's outcome becomes `result`, an input-required result the client answers
 * by sending the request again. `compose` turns it into that outcome, so outer layers see a result.
 */
export class InputRequired extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super('The request needs input from the client (an input-required result).');
    this.name = 'InputRequired';
  }
}
