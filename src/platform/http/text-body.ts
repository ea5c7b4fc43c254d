/**
 * Ends a response with a text body. Node measures a string in bytes as it ends the response and
 * sends that as Content-Length; measuring it here as well would read every byte of the answer
 * twice, and a report's answer holds characters beyond Latin-1, where measuring is slowest. The
 * answers Node does not measure are told their length here: HEAD (Node drops the body unread)
 * and HTTP/1.0 (Node would end the connection to mark the body's end).
 */
import type { ServerResponse } from 'node:http';

export function endWithText(res: ServerResponse, body: string): void {
  const { req } = res;
  if (req.method === 'HEAD' || req.httpVersion !== '1.1') res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}
