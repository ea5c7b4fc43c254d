/** Largest request body either interface reads (a lead is a few hundred bytes; GraphQL documents a few kB). */
export const MAX_BODY_BYTES = 100 * 1024;
