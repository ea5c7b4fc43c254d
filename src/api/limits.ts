/** Largest request body either interface reads (a lead is a few hundred bytes; GraphQL documents a few kB). */
export const MAX_BODY_BYTES = 100 * 1024;

/**
 * Largest body read from a request that will be refused (no key, a wrong one): a lead is a few
 * hundred bytes, an introspection query ~2 kB. A refused request declaring more is answered
 * without reading its body, on both interfaces.
 */
export const KEYLESS_MAX_BODY_BYTES = 16 * 1024;
