/**
 * Bodies a refused request never has read. A refusal decided before the body (a wrong or missing
 * key, a spent budget, a declared length over the limit) is answered at once, and the rest of the
 * body stays unread: body-parser, on its own 413, reads the whole body off the wire before it
 * answers (its `dump`), however long it is, so a declared length over the limit is refused here
 * before it is called.
 */

/** Whether the request declares a body longer than `limit` bytes (Content-Length). */
export function declaresBodyOver(req: { headers: { 'content-length'?: string } }, limit: number): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > limit;
}

/**
 * For a refusal answered before the request's body was read whole: the connection closes after the
 * answer. Node then destroys the socket once the answer is written, instead of reading the rest of
 * the body to throw it away and keeping the connection for the client's next request
 * (KEEP_ALIVE_TIMEOUT_MS): a flood of refused bodies is not read past what the refusal needed, and
 * leaves no descriptor or buffer behind. A request whose body has arrived whole (a GET) keeps its
 * connection: a new one would cost more than the answer.
 */
export function closeIfBodyUnread(req: { complete: boolean }, res: { setHeader(name: string, value: string): unknown }): void {
  if (!req.complete) res.setHeader('connection', 'close');
}
